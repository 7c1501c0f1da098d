import { useTranslate } from 'react-admin';
import { CreatePage } from '../../app/kit/RecordPage';
import { useAvailableRolesRefresh } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { RoleForm } from './RoleForm';
import { roleBody } from './transform';

export function RoleCreate() {
  const translate = useTranslate();
  const { can } = useActions();
  const mutationOptions = useAvailableRolesRefresh();
  return (
    <CreatePage
      allowed={can('roles.create')}
      title={translate('roles.create_title')}
      transform={roleBody}
      mutationOptions={mutationOptions}
      record={{ permissions: [], available_roles: [] }}
    >
      <RoleForm />
    </CreatePage>
  );
}
