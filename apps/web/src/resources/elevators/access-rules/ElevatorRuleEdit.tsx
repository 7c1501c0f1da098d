import type { ElevatorRule } from '@atrium/contract';
import { useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../../app/kit/apiRoutes';
import { patchTransform } from '../../../app/kit/patch';
import { EditPage } from '../../../app/kit/RecordPage';
import { ELEVATOR_ROUTES } from '../routes';
import { ElevatorRuleForm } from './ElevatorRuleForm';
import { elevatorRuleBody } from './transform';

function ElevatorRuleTitle() {
  const translate = useTranslate();
  const record = useRecordContext<ElevatorRule>();
  return <span>{record ? translate('elevator_rules.edit_title', { name: record.name }) : translate('elevator_rules.title')}</span>;
}

const transform = patchTransform((values) => elevatorRuleBody(values, 'edit'));

export function ElevatorRuleEdit() {
  return (
    <ApiRoutes routes={ELEVATOR_ROUTES}>
      <EditPage title={<ElevatorRuleTitle />} transform={transform}>
        <ElevatorRuleForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
