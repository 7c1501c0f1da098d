import { DEVICE_PROTOCOLS, type Device } from '@atrium/contract';
import RadarIcon from '@mui/icons-material/Radar';
import { Button } from '@mui/material';
import { FunctionField, NullableBooleanInput, SelectInput, TextField, TextInput, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { GroupInput } from '../../app/kit/GroupPicker';
import { EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { LocaleNumberField } from '../../app/kit/LocaleFields';
import { useActions } from '../../app/kit/useActions';
import { DEVICE_TOPICS, OnlineField, typeChoices, useLiveRefresh } from './shared';

const ROUTES = { devices: { queryParams: ['search'] } };
const protocolChoices = DEVICE_PROTOCOLS.map((id) => ({ id, name: `devices.protocols.${id}` }));

const filters = [
  <TextInput key="search" source="search" label="resources.devices.fields.search" resettable alwaysOn />,
  <SelectInput key="type" source="type" label="resources.devices.fields.type" choices={typeChoices} />,
  textFilter('model', 'begins_with', 'resources.devices.fields.model'),
  <GroupInput key="domain_id" source="domain_id" label="resources.devices.fields.domain_id" />,
  <NullableBooleanInput key="online" source="online" label="resources.devices.fields.online" />,
  <SelectInput key="protocol" source="protocol" label="resources.devices.fields.protocol" choices={protocolChoices} />,
];

function DeviceListView() {
  const translate = useTranslate();
  const { can } = useActions();
  useLiveRefresh(DEVICE_TOPICS.status);
  return (
    <ListPage
      title={translate('devices.title')}
      sort={{ field: 'name', order: 'ASC' }}
      filters={filters}
      canCreate={can('devices.create')}
      canDelete={can('devices.delete')}
      addRoute
      omit={['id', 'port']}
      extraActions={
        can('devices.create') ? (
          <Button size="small" startIcon={<RadarIcon />} component={Link} to="/devices/search">
            {translate('devices.search.open')}
          </Button>
        ) : null
      }
    >
      <EllipsisField source="id" />
      <EllipsisField source="name" />
      <FunctionField source="type" render={(d: Device) => translate(`devices.types.${d.type}`)} />
      <EllipsisField source="model" />
      {/* A serial number and an address are read whole (a device is told by them): never cut. */}
      <TextField source="serial_number" emptyText="—" />
      <TextField source="ip_address" emptyText="—" />
      <LocaleNumberField code source="port" emptyText="—" />
      <FunctionField source="protocol" render={(d: Device) => translate(`devices.protocols.${d.protocol}`)} />
      <OnlineField source="online" />
    </ListPage>
  );
}

export function DeviceList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <DeviceListView />
    </ApiRoutes>
  );
}
