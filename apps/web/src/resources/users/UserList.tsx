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
  ReferenceInput,
  SelectInput,
  TextInput,
  useTranslate,
} from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GroupInput } from '../../app/kit/GroupPicker';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { LocaleNumberField } from '../../app/kit/LocaleFields';
import { StructureExportDialog, StructureImportDialog } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { roleName } from '../../app/seeded';
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

const DEFAULT_HIDDEN = ['id', 'is_group_admin'];
/** Groups named in a row; the others are counted ("+3") and all are in the cell's tooltip. */
const SHOWN_GROUPS = 1;

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
        // At 1280 px the table fits the page: the ID and group-admin columns are offered by the column
        // chooser, long texts end with an ellipsis (the full text is the cell's tooltip).
        omit={DEFAULT_HIDDEN}
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
        <LocaleNumberField code source="id" />
        <EllipsisField source="login" />
        <EllipsisField source="name" />
        <EllipsisField source="email" />
        <EllipsisField
          source="role"
          render={(u) => ((u as User).role_info ? roleName((u as User).role_info, translate) : translate('users.no_role'))}
        />
        <FunctionField
          source="domains"
          sortable={false}
          render={(u: User) => {
            const groups = u.domains_info ?? [];
            return (
              <Stack direction="row" title={groups.map((g) => g.name).join(', ')} sx={{ gap: 0.5, overflow: 'hidden' }}>
                {groups.slice(0, SHOWN_GROUPS).map((g) => (
                  <Chip key={g.id} size="small" label={g.name} sx={{ minWidth: 0 }} />
                ))}
                {groups.length > SHOWN_GROUPS ? (
                  <Chip size="small" variant="outlined" label={`+${groups.length - SHOWN_GROUPS}`} sx={{ flexShrink: 0 }} />
                ) : null}
              </Stack>
            );
          }}
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
