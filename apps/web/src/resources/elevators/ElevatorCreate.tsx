import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { ElevatorForm } from './ElevatorForm';
import { ELEVATOR_ROUTES } from './routes';
import { elevatorBody, newElevatorRecord } from './transform';

const transform = (values: Record<string, unknown>) => elevatorBody(values, 'create');
const record = newElevatorRecord();

function ElevatorCreateView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage allowed={can('can_create_elevators')} title={translate('elevators.create_title')} transform={transform} record={record}>
      <ElevatorForm mode="create" />
    </CreatePage>
  );
}

export function ElevatorCreate() {
  return (
    <ApiRoutes routes={ELEVATOR_ROUTES}>
      <ElevatorCreateView />
    </ApiRoutes>
  );
}
