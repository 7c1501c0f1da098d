import { DEVICE_EVENT_TYPES, type DeviceEvent } from '@atrium/contract';
import { DateTimeInput, FunctionField, SelectInput, useTranslate } from 'react-admin';
import { filterSource } from '../../app/dataProvider';
import { displayValue, useIdentifierFormat } from '../../app/identifier-value';
import { ListDownload } from '../../app/kit/ListDownload';
import { EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';

const typeChoices = DEVICE_EVENT_TYPES.map((id) => ({ id, name: `devices.events.types.${id}` }));
const filters = [
  <SelectInput key="type" source="type" label="resources.devices/events.fields.type" choices={typeChoices} alwaysOn />,
  textFilter('identifier', 'begins_with', 'resources.devices/events.fields.identifier'),
  <DateTimeInput key="from" source={filterSource('occurred_at', 'above')} label="resources.devices/events.fields.from" />,
  <DateTimeInput key="to" source={filterSource('occurred_at', 'below')} label="resources.devices/events.fields.to" />,
];

export function DeviceEventList() {
  const translate = useTranslate();
  const format = useIdentifierFormat();
  return (
    <ListPage
      title={translate('devices.events.title')}
      sort={{ field: 'occurred_at', order: 'DESC' }}
      filters={filters}
      rowClick={false}
      extraActions={<ListDownload path="/devices/events/download" name="device-events" />}
    >
      <DateTimeField source="occurred_at" />
      <EllipsisField source="device_name" sortable={false} />
      <FunctionField source="type" render={(e: DeviceEvent) => translate(`devices.events.types.${e.type}`, { _: e.type })} />
      {/* A card's number as the viewer reads card numbers everywhere else (the device sends it in hex). */}
      <EllipsisField
        source="identifier"
        render={(e) => displayValue((e as unknown as DeviceEvent).data.kind, (e as unknown as DeviceEvent).identifier, format)}
      />
    </ListPage>
  );
}
