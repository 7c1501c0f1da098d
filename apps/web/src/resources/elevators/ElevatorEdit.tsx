import type { Elevator } from '@atrium/contract';
import { TopToolbar, useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { CallElevatorButton } from './CallElevatorDialog';
import { ElevatorForm } from './ElevatorForm';
import { ELEVATOR_ROUTES } from './routes';
import { elevatorBody } from './transform';

function ElevatorTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Elevator>();
  return <span>{record ? translate('elevators.edit_title', { name: record.name }) : translate('elevators.title')}</span>;
}

function ElevatorActions() {
  return (
    <TopToolbar sx={{ alignItems: 'center' }}>
      <CallElevatorButton />
    </TopToolbar>
  );
}

const transform = patchTransform((values) => elevatorBody(values, 'edit'));

export function ElevatorEdit() {
  return (
    <ApiRoutes routes={ELEVATOR_ROUTES}>
      <EditPage title={<ElevatorTitle />} actions={<ElevatorActions />} transform={transform}>
        <ElevatorForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
