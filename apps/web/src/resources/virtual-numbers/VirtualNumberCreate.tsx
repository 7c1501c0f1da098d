import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { VIRTUAL_NUMBER_ROUTES } from './routes';
import { newSipNumberRecord, sipNumberBody } from './transform';
import { VirtualNumberForm } from './VirtualNumberForm';

const transform = (values: Record<string, unknown>) => sipNumberBody(values, 'create');
const record = newSipNumberRecord();

function VirtualNumberCreateView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage
      allowed={can('can_create_virtual_numbers')}
      title={translate('virtual_numbers.create_title')}
      transform={transform}
      record={record}
    >
      <VirtualNumberForm mode="create" />
    </CreatePage>
  );
}

export function VirtualNumberCreate() {
  return (
    <ApiRoutes routes={VIRTUAL_NUMBER_ROUTES}>
      <VirtualNumberCreateView />
    </ApiRoutes>
  );
}
