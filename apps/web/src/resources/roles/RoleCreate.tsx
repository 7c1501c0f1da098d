import { useTranslate } from 'react-admin';
import { CreatePage } from '../../app/kit/RecordPage';
import { RoleForm } from './RoleForm';
import { roleBody } from './transform';

export function RoleCreate() {
  const translate = useTranslate();
  return (
    <CreatePage title={translate('roles.create_title')} transform={roleBody} record={{ permissions: [], available_roles: [] }}>
      <RoleForm />
    </CreatePage>
  );
}
