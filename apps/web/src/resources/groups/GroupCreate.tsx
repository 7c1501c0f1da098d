import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useActions } from '../../app/kit/useActions';
import { GroupForm, useTypeCode } from './GroupForm';
import { GROUP_ROUTES } from './routes';
import { groupBody } from './transform';

function GroupCreateView() {
  const translate = useTranslate();
  const typeCode = useTypeCode();
  const { can } = useActions();
  return (
    <CreatePage
      allowed={can('groups.create')}
      title={translate('groups.create_title')}
      transform={(values: Record<string, unknown>) => groupBody(values, typeCode(values.domain_type_id))}
      record={{
        whitelabel_settings: { is_enabled: false },
        device_status_notify: [],
        internal_subnetworks: [],
        is_resident_phonebook_enabled: false,
      }}
    >
      <GroupForm mode="create" />
    </CreatePage>
  );
}

export function GroupCreate() {
  return (
    <ApiRoutes routes={GROUP_ROUTES}>
      <GroupCreateView />
    </ApiRoutes>
  );
}
