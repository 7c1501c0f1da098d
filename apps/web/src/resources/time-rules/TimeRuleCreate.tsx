import { timeZones } from '@atrium/contract';
import { useMemo } from 'react';
import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { SCHEDULE_ROUTES } from './shared';
import { TimeRuleForm } from './TimeRuleForm';
import { newTimeRuleRecord, timeRuleBody, viewerTimeZone } from './transform';

const transform = (values: Record<string, unknown>) => timeRuleBody(values, 'create');

function TimeRuleCreateView() {
  const translate = useTranslate();
  const { can, profile } = useSessionData();
  const zone = profile.profile?.time_zone;
  const record = useMemo(() => newTimeRuleRecord(viewerTimeZone(zone, timeZones())), [zone]);
  return (
    <CreatePage allowed={can('can_create_time_rules')} title={translate('schedules.create_title')} transform={transform} record={record}>
      <TimeRuleForm mode="create" />
    </CreatePage>
  );
}

export function TimeRuleCreate() {
  return (
    <ApiRoutes routes={SCHEDULE_ROUTES}>
      <TimeRuleCreateView />
    </ApiRoutes>
  );
}
