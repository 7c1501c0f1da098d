import type { TimeRule } from '@atrium/contract';
import { TopToolbar, useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { OpenNowField, SCHEDULE_ROUTES } from './shared';
import { TimeRuleForm } from './TimeRuleForm';
import { timeRuleBody } from './transform';

function TimeRuleTitle() {
  const translate = useTranslate();
  const record = useRecordContext<TimeRule>();
  return <span>{record ? translate('schedules.edit_title', { name: record.name }) : translate('schedules.title')}</span>;
}

function TimeRuleActions() {
  return (
    <TopToolbar sx={{ alignItems: 'center' }}>
      <OpenNowField />
    </TopToolbar>
  );
}

const transform = patchTransform((values) => timeRuleBody(values, 'edit'));

export function TimeRuleEdit() {
  return (
    <ApiRoutes routes={SCHEDULE_ROUTES}>
      <EditPage title={<TimeRuleTitle />} actions={<TimeRuleActions />} transform={transform}>
        <TimeRuleForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
