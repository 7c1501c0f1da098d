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
import { maxLength, required } from '../../app/validators';
import { PermissionEditor } from './PermissionEditor';
import { roleIds } from './transform';

const byName = (q: string) => (q ? { 'name@has': q } : {});

/** The role form shared by create and edit: name, description, assignable roles and the permission editor. */
export function RoleForm() {
  const translate = useTranslate();
  const record = useRecordContext<Role>();
  return (
    <SimpleForm
      toolbar={
        <Toolbar>
          <SaveButton />
        </Toolbar>
      }
      sx={{ maxWidth: 1100 }}
    >
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
        />
      </ReferenceArrayInput>
      {record?.created_by_user ? (
        <Typography variant="body2" color="text.secondary">
          {translate('resources.roles.fields.created_by_user')}: {record.created_by_user.name}
        </Typography>
      ) : null}
      <PermissionEditor />
    </SimpleForm>
  );
}
