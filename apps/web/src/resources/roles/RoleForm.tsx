import type { Role } from '@atrium/contract';
import { maxLength, required } from '@atrium/contract';
import { Box, Typography } from '@mui/material';
import {
  AutocompleteArrayInput,
  BooleanInput,
  DeleteWithConfirmButton,
  ReferenceArrayInput,
  SaveButton,
  SimpleForm,
  TextInput,
  Toolbar,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useAvailableRolesRefresh } from '../../app/kit/StructureDialogs';
import { useRoleAccess } from './access';
import { PermissionEditor } from './PermissionEditor';
import { roleIds } from './transform';

const byName = (q: string) => (q ? { 'name@has': q } : {});

/**
 * The role form shared by create and edit: name, description, assignable roles and the permission
 * editor. Read-only without an edit permission over the role (or when its can_edit says no); the
 * built-in role's permissions never change; delete on the edit page when its can_delete allows.
 */
export function RoleForm() {
  const translate = useTranslate();
  const record = useRecordContext<Role>();
  const access = useRoleAccess();
  // A deleted role leaves the roles the user form offers.
  const refreshAvailable = useAvailableRolesRefresh();
  return (
    <SimpleForm
      warnWhenUnsavedChanges
      disabled={!access.edit}
      toolbar={
        access.edit || access.delete ? (
          <Toolbar sx={{ justifyContent: 'space-between' }}>
            {access.edit ? <SaveButton /> : <span />}
            {access.delete ? (
              <DeleteWithConfirmButton
                mutationMode="pessimistic"
                mutationOptions={refreshAvailable}
                confirmTitle={translate('roles.actions.delete')}
                confirmContent={translate('roles.delete_confirm', { name: record?.name ?? '' })}
              />
            ) : null}
          </Toolbar>
        ) : (
          false
        )
      }
      sx={{ maxWidth: 1100 }}
    >
      {access.edit ? null : <ReadOnlyNotice />}
      <Typography variant="h6" component="h2">
        {translate('roles.general')}
      </Typography>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={[required, maxLength(255)]} />
        <TextInput source="description" validate={maxLength(1000)} />
      </Box>
      <BooleanInput source="two_factor_required" helperText={translate('roles.two_factor_help')} />
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
