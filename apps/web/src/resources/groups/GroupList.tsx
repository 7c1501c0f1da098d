import type { Group } from '@atrium/contract';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import AddIcon from '@mui/icons-material/Add';
import AutoAwesomeIcon from '@mui/icons-material/AutoAwesome';
import CategoryIcon from '@mui/icons-material/Category';
import DownloadIcon from '@mui/icons-material/Download';
import TableRowsIcon from '@mui/icons-material/TableRows';
import UploadIcon from '@mui/icons-material/Upload';
import { Button, Stack, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useState } from 'react';
import { FunctionField, TextField, TextInput, Title, useStore, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { ListPage, textFilter } from '../../app/kit/ListPage';
import { LocaleNumberField } from '../../app/kit/LocaleFields';
import { StructureExportDialog, StructureImportDialog } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { domainTypeName } from '../../app/seeded';
import { GenerateDialog } from './GenerateDialog';
import { GroupTree } from './GroupTree';
import { GROUP_ROUTES } from './routes';

type DialogName = 'generate' | 'import' | 'export' | null;

function Actions({ onOpen }: { onOpen: (d: DialogName) => void }) {
  const translate = useTranslate();
  const { can } = useActions();
  return (
    <>
      {can('groups.generate') ? (
        <Button size="small" startIcon={<AutoAwesomeIcon />} onClick={() => onOpen('generate')}>
          {translate('groups.actions.generate')}
        </Button>
      ) : null}
      {can('groups.import_structure') ? (
        <Button size="small" startIcon={<UploadIcon />} onClick={() => onOpen('import')}>
          {translate('groups.actions.import')}
        </Button>
      ) : null}
      {can('groups.export_structure') ? (
        <Button size="small" startIcon={<DownloadIcon />} onClick={() => onOpen('export')}>
          {translate('groups.actions.export')}
        </Button>
      ) : null}
      <Button size="small" component={Link} to="/domain-types" startIcon={<CategoryIcon />}>
        {translate('domain_types.title')}
      </Button>
    </>
  );
}

/** Groups: the hierarchy as an expandable tree (default), or a flat table searched and paged on the server. */
export function GroupList() {
  const translate = useTranslate();
  const { can } = useActions();
  const [view, setView] = useStore<'tree' | 'table'>('groups.view', 'tree');
  const [dialog, setDialog] = useState<DialogName>(null);

  const toggle = (
    <ToggleButtonGroup
      size="small"
      exclusive
      value={view}
      onChange={(_, v) => v && setView(v)}
      aria-label={translate('groups.title')}
      // MUI's unselected grey falls short of 4.5:1 on the page background; the selected one stays shaded.
      sx={{ '& .MuiToggleButton-root:not(.Mui-selected)': { color: 'text.primary' } }}
    >
      <ToggleButton value="tree" aria-label={translate('groups.tree')}>
        <AccountTreeIcon fontSize="small" sx={{ mr: 0.5 }} /> {translate('groups.tree')}
      </ToggleButton>
      <ToggleButton value="table" aria-label={translate('groups.table')}>
        <TableRowsIcon fontSize="small" sx={{ mr: 0.5 }} /> {translate('groups.table')}
      </ToggleButton>
    </ToggleButtonGroup>
  );

  return (
    <ApiRoutes routes={GROUP_ROUTES}>
      {view === 'tree' ? (
        <>
          <Title title={translate('groups.title')} />
          <Stack direction="row" sx={{ alignItems: 'center', gap: 1, mt: 2, flexWrap: 'wrap' }}>
            {toggle}
            <Typography sx={{ flex: 1 }} />
            <Actions onOpen={setDialog} />
            {can('groups.create') ? (
              <Button component={Link} to="/groups/add" variant="contained" size="small" startIcon={<AddIcon />}>
                {translate('list.create')}
              </Button>
            ) : null}
          </Stack>
          <GroupTree />
        </>
      ) : (
        <>
          <Stack direction="row" sx={{ mt: 2 }}>
            {toggle}
          </Stack>
          <ListPage
            resource="groups"
            title={translate('groups.title')}
            sort={{ field: 'name', order: 'ASC' }}
            queryOptions={{ meta: { with: ['parent'] } }}
            filters={[
              <TextInput key="search" source="search" label="resources.groups.fields.search" resettable alwaysOn />,
              textFilter('logic_address', 'equals', 'resources.groups.fields.logic_address'),
            ]}
            canCreate={can('groups.create')}
            addRoute
            extraActions={<Actions onOpen={setDialog} />}
          >
            <LocaleNumberField code source="id" />
            <TextField source="name" />
            <FunctionField
              source="domain_type_id"
              render={(g: Group) => (g.domain_type ? domainTypeName(g.domain_type, translate) : translate('groups.no_type'))}
            />
            <LocaleNumberField code source="logic_address" emptyText="—" />
            <FunctionField source="parent_id" sortable={false} render={(g: Group) => g.parent?.name ?? translate('groups.root')} />
            <TextField source="description" emptyText="—" sortable={false} />
          </ListPage>
        </>
      )}
      {can('groups.generate') ? <GenerateDialog open={dialog === 'generate'} onClose={() => setDialog(null)} /> : null}
      {can('groups.import_structure') ? <StructureImportDialog open={dialog === 'import'} onClose={() => setDialog(null)} /> : null}
      {can('groups.export_structure') ? <StructureExportDialog open={dialog === 'export'} onClose={() => setDialog(null)} /> : null}
    </ApiRoutes>
  );
}
