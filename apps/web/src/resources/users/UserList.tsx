import type { User } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import UploadIcon from '@mui/icons-material/Upload';
import { Button, Chip, Stack } from '@mui/material';
import { useState } from 'react';
import {
  BooleanField,
  BooleanInput,
  FunctionField,
  NullableBooleanInput,
  NumberField,
  ReferenceInput,
  SelectInput,
  TextField,
  TextInput,
  useTranslate,
} from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ListPage } from '../../app/kit/ListPage';
import { StructureExportDialog, StructureImportDialog } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { USER_ROUTES } from './routes';

const filters = [
  <TextInput key="search" source="search" label="resources.users.fields.search" resettable alwaysOn />,
  <GroupInput key="branch" source="branch" label="resources.users.fields.branch" />,
  <ReferenceInput key="role" source="role" reference="roles" sort={{ field: 'name', order: 'ASC' }}>
    <SelectInput label="resources.users.fields.role" optionText="name" />
  </ReferenceInput>,
  <NullableBooleanInput key="activated" source="activated" label="resources.users.fields.activated" />,
  <BooleanInput key="is_group_admin" source="is_group_admin" label="resources.users.fields.is_group_admin" />,
];

function UserListView() {
  const translate = useTranslate();
  const { can } = useActions();
  const [dialog, setDialog] = useState<'export' | 'import' | null>(null);
  return (
    <>
      <ListPage
        title={translate('users.title')}
        sort={{ field: 'name', order: 'ASC' }}
        queryOptions={{ meta: { with: ['role', 'domains'] } }}
        filters={filters}
        canCreate={can('users.create')}
        canDelete={can('users.bulk_delete')}
        addRoute
        extraActions={
          <>
            {can('users.export') ? (
              <Button size="small" startIcon={<DownloadIcon />} onClick={() => setDialog('export')}>
                {translate('structure.export_title')}
              </Button>
            ) : null}
            {can('users.import') ? (
              <Button size="small" startIcon={<UploadIcon />} onClick={() => setDialog('import')}>
                {translate('structure.import_title')}
              </Button>
            ) : null}
          </>
        }
      >
        <NumberField source="id" />
        <TextField source="login" />
        <TextField source="name" />
        <TextField source="email" emptyText="—" />
        <FunctionField source="role" render={(u: User) => u.role_info?.name ?? translate('users.no_role')} />
        <FunctionField
          source="domains"
          sortable={false}
          render={(u: User) => (
            <Stack direction="row" sx={{ gap: 0.5, flexWrap: 'wrap' }}>
              {(u.domains_info ?? []).slice(0, 3).map((g) => (
                <Chip key={g.id} size="small" label={g.name} />
              ))}
              {(u.domains_info?.length ?? 0) > 3 ? (
                <Chip size="small" variant="outlined" label={`+${(u.domains_info?.length ?? 0) - 3}`} />
              ) : null}
            </Stack>
          )}
        />
        <BooleanField source="is_group_admin" />
        <BooleanField source="activated" />
      </ListPage>
      {can('users.export') ? <StructureExportDialog open={dialog === 'export'} onClose={() => setDialog(null)} /> : null}
      {can('users.import') ? <StructureImportDialog open={dialog === 'import'} onClose={() => setDialog(null)} /> : null}
    </>
  );
}

export function UserList() {
  return (
    <ApiRoutes routes={USER_ROUTES}>
      <UserListView />
    </ApiRoutes>
  );
}
