import type { Role } from '@atrium/contract';
import { useRecordContext, useTranslate } from 'react-admin';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { useAvailableRolesRefresh } from '../../app/kit/StructureDialogs';
import { RoleForm } from './RoleForm';
import { roleBody } from './transform';

function RoleTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Role>();
  return <span>{record ? translate('roles.edit_title', { name: record.name }) : translate('roles.title')}</span>;
}

export function RoleEdit() {
  const mutationOptions = useAvailableRolesRefresh();
  return (
    <EditPage title={<RoleTitle />} transform={patchTransform(roleBody)} mutationOptions={mutationOptions}>
      <RoleForm />
    </EditPage>
  );
}
