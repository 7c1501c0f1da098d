import { ALARM_REALTIME, ALARM_STATUSES, type DeviceAlarm } from '@atrium/contract';
import { Chip } from '@mui/material';
import {
  AutocompleteInput,
  DateTimeInput,
  FunctionField,
  ReferenceInput,
  SelectInput,
  TextInput,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { filterSource } from '../../app/dataProvider';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useLiveRefresh } from '../../app/live';
import { useSessionData } from '../../app/SessionContext';
import { alarmTitle, STATUS_COLORS } from './transform';

/** The menu's /devices/alarms is the API's /alarms; `search` (device, zone or kind) is a plain query parameter. */
export const DEVICE_ALARMS = 'devices/alarms';
const ROUTES = { [DEVICE_ALARMS]: { path: 'alarms', queryParams: ['search'] } };
const F = `resources.${DEVICE_ALARMS}.fields`;

const statusChoices = ALARM_STATUSES.map((id) => ({ id, name: `device_alarms.statuses.${id}` }));
const byName = (q: string) => (q ? { 'name@has': q } : {});

const filters = [
  <SelectInput key="status" source="status" label={`${F}.status`} choices={statusChoices} alwaysOn />,
  <TextInput key="search" source="search" label={`${F}.search`} resettable alwaysOn />,
  <ReferenceInput key="device_id" source="device_id" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label={`${F}.device_id`} filterToQuery={byName} />
  </ReferenceInput>,
  <DateTimeInput key="from" source={filterSource('raised_at', 'above')} label={`${F}.from`} />,
  <DateTimeInput key="to" source={filterSource('raised_at', 'below')} label={`${F}.to`} />,
];

/** The alarm's state as a chip: red while on, amber once the device cleared it, green once processed. */
export function AlarmStatusChip(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const a = useRecordContext<DeviceAlarm>();
  if (!a) return null;
  return (
    <Chip
      size="small"
      color={STATUS_COLORS[a.status]}
      variant={a.status === 'active' ? 'filled' : 'outlined'}
      label={translate(`device_alarms.statuses.${a.status}`)}
    />
  );
}

function DeviceAlarmListView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  // Alarms raised, cleared and processed elsewhere show up as they happen.
  useLiveRefresh(ALARM_REALTIME.topic);
  return (
    <ListPage
      title={translate('device_alarms.title')}
      sort={{ field: 'raised_at', order: 'DESC' }}
      filters={filters}
      canDelete={can('can_delete_device_alarms')}
      rowClick={(id) => `/${DEVICE_ALARMS}/${id}/edit`}
      omit={['id', 'cleared_at', 'processed_by', 'comment']}
    >
      <EllipsisField source="id" />
      <DateTimeField source="raised_at" />
      <AlarmStatusChip source="status" />
      <EllipsisField source="kind" render={(r) => alarmTitle(r as DeviceAlarm, translate)} />
      <EllipsisField source="device_name" sortable={false} />
      <EllipsisField source="domain_name" sortable={false} />
      <DateTimeField source="cleared_at" />
      <DateTimeField source="processed_at" />
      <EllipsisField source="processed_by" sortable={false} render={(r) => (r as DeviceAlarm).processed_by?.name} />
      <FunctionField source="comment" sortable={false} render={(r: DeviceAlarm) => r.comment ?? ''} />
    </ListPage>
  );
}

export function DeviceAlarmList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <DeviceAlarmListView />
    </ApiRoutes>
  );
}

export { ROUTES as DEVICE_ALARM_ROUTES };
