import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../../app/kit/apiRoutes';
import { CreatePage } from '../../../app/kit/RecordPage';
import { useSessionData } from '../../../app/SessionContext';
import { ELEVATOR_ROUTES } from '../routes';
import { ElevatorRuleForm } from './ElevatorRuleForm';
import { elevatorRuleBody, newElevatorRuleRecord } from './transform';

const transform = (values: Record<string, unknown>) => elevatorRuleBody(values, 'create');
const record = newElevatorRuleRecord();

function ElevatorRuleCreateView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage
      allowed={can('can_create_elevator_access_rules')}
      title={translate('elevator_rules.create_title')}
      transform={transform}
      record={record}
    >
      <ElevatorRuleForm mode="create" />
    </CreatePage>
  );
}

export function ElevatorRuleCreate() {
  return (
    <ApiRoutes routes={ELEVATOR_ROUTES}>
      <ElevatorRuleCreateView />
    </ApiRoutes>
  );
}
