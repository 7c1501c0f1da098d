import type { Role } from '@atrium/contract';
import { Box, Typography } from '@mui/material';
import {
  AutocompleteArrayInput,
  ReferenceArrayInput,
  SaveButton,
  SimpleForm,
  TextInput,
  Toolbar,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { type RoleAccess, roleAccess } from '../../app/action-rules';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useAvailableRoles } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { maxLength, required } from '../../app/validators';
import { PermissionEditor } from './PermissionEditor';
import { roleIds } from './transform';

const byName = (q: string) => (q ? { 'name@has': q } : {});

/** What the signed-in user may do with the role in context (action-rules.ts); everything on create. */
function useRoleAccess(): RoleAccess {
  const record = useRecordContext<Role>();
  const { permissions, me } = useActions();
  const available = useAvailableRoles();
  // While the edit page loads there is no record yet; on create it holds only the initial values (no id).
  if (!record) return { edit: false, editPermissions: false, delete: false };
  if (record.id === undefined) return { edit: true, editPermissions: true, delete: false };
  // GET /roles/available lists my own role first; "available" roles are the others.
  const availableIds = available.data?.map((r) => r.id).filter((id) => id !== me.roleId);
  return roleAccess(permissions, me, record, availableIds);
}

/**
 * The role form shared by create and edit: name, description, assignable roles and the permission
 * editor. Read-only without an edit permission over the role; the built-in role's permissions never change.
 */
export function RoleForm() {
  const translate = useTranslate();
  const record = useRecordContext<Role>();
  const access = useRoleAccess();
  return (
    <SimpleForm
      disabled={!access.edit}
      toolbar={
        access.edit ? (
          <Toolbar>
            <SaveButton />
          </Toolbar>
        ) : (
          false
        )
      }
      sx={{ maxWidth: 1100 }}
    >
      {access.edit ? null : <ReadOnlyNotice />}
      <Typography variant="h6">{translate('roles.general')}</Typography>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={[required, maxLength(255)]} />
        <TextInput source="description" validate={maxLength(1000)} />
      </Box>
      <ReferenceArrayInput source="available_roles" reference="roles" perPage={50} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.roles.fields.available_roles"
          format={roleIds}
          filterToQuery={byName}
          optionText="name"
          fullWidth
          helperText={false}
          readOnly={!access.editPermissions}
        />
      </ReferenceArrayInput>
      {record?.created_by_user ? (
        <Typography variant="body2" color="text.secondary">
          {translate('resources.roles.fields.created_by_user')}: {record.created_by_user.name}
        </Typography>
      ) : null}
      <PermissionEditor readOnly={!access.editPermissions} />
    </SimpleForm>
  );
}
