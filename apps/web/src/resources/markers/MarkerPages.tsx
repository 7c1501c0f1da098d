import type { Marker } from '@atrium/contract';
import { Box, Typography } from '@mui/material';
import { FunctionField, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { CreatePage, EditPage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { MarkerForm } from './MarkerForm';

// Name contains the text: a plain `search` parameter.
const ROUTES = { markers: { queryParams: ['search'] } };
const filters = [<TextInput key="search" source="search" label="resources.markers.fields.search" resettable alwaysOn />];

/** A marker as users see it: its colour beside its name. */
export function MarkerChip({ marker }: { marker: Pick<Marker, 'name' | 'color'> }) {
  return (
    <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
      <Box
        component="span"
        aria-hidden
        sx={{ width: 14, height: 14, borderRadius: '50%', bgcolor: marker.color, border: 1, borderColor: 'divider' }}
      />
      <span>{marker.name}</span>
    </Box>
  );
}

/** The markers list: its own page at /markers, or a tab of the general settings (`embedded`). */
export function MarkerList({ embedded = false }: { embedded?: boolean }) {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={ROUTES}>
      {embedded ? (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {translate('markers.hint')}
        </Typography>
      ) : null}
      <ListPage
        resource="markers"
        title={embedded ? false : translate('markers.title')}
        disableSyncWithLocation={embedded}
        sort={{ field: 'name', order: 'ASC' }}
        filters={filters}
        canCreate={can('can_create_markers')}
        canDelete={can('can_delete_markers')}
        addRoute
        omit={['id']}
      >
        <EllipsisField source="id" />
        <FunctionField source="name" render={(m: Marker) => <MarkerChip marker={m} />} />
        <EllipsisField source="color" />
        <LocaleNumberField source="users_count" emptyText="—" />
        <DateTimeField source="created_at" />
      </ListPage>
    </ApiRoutes>
  );
}

export function MarkerCreate() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage allowed={can('can_create_markers')} title={translate('markers.create_title')} record={{ color: '#1976d2' }}>
      <MarkerForm mode="create" />
    </CreatePage>
  );
}

function MarkerTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Marker>();
  return <span>{record ? translate('markers.edit_title', { name: record.name }) : translate('markers.title')}</span>;
}

export function MarkerEdit() {
  return (
    <EditPage title={<MarkerTitle />}>
      <MarkerForm mode="edit" />
    </EditPage>
  );
}
