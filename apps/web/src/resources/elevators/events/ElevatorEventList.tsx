import { DEVICE_EVENT_TYPES, type DeviceEvent } from '@atrium/contract';
import { AutocompleteInput, DateTimeInput, FunctionField, ReferenceInput, SelectInput, useTranslate } from 'react-admin';
import { filterSource } from '../../../app/dataProvider';
import { ListDownload } from '../../../app/kit/ListDownload';
import { EllipsisField, ListPage, textFilter } from '../../../app/kit/ListPage';
import { DateTimeField } from '../../../app/kit/LocaleFields';

const typeChoices = DEVICE_EVENT_TYPES.map((id) => ({ id, name: `devices.events.types.${id}` }));
const byName = (q: string) => (q ? { 'name@has': q } : {});
const filters = [
  <SelectInput key="type" source="type" label="resources.elevators/events.fields.type" choices={typeChoices} alwaysOn />,
  <ReferenceInput
    key="device_id"
    source="device_id"
    reference="devices"
    filter={{ type: 'liftcontroller' }}
    sort={{ field: 'name', order: 'ASC' }}
  >
    <AutocompleteInput label="resources.elevators/events.fields.device_name" filterToQuery={byName} />
  </ReferenceInput>,
  textFilter('identifier', 'begins_with', 'resources.elevators/events.fields.identifier'),
  <DateTimeInput key="from" source={filterSource('occurred_at', 'above')} label="resources.elevators/events.fields.from" />,
  <DateTimeInput key="to" source={filterSource('occurred_at', 'below')} label="resources.elevators/events.fields.to" />,
];

/** The floor an event names in its data (a lift called to a floor, a floor granted), if any. */
export const floorOf = (data: unknown): string | null => {
  const floor = data && typeof data === 'object' ? (data as Record<string, unknown>).floor : undefined;
  return typeof floor === 'number' || typeof floor === 'string' ? String(floor) : null;
};

/** Events of the lift controllers of the elevators the user may see, with downloads of what the list shows. */
export function ElevatorEventList() {
  const translate = useTranslate();
  return (
    <ListPage
      title={translate('elevators.events.title')}
      sort={{ field: 'occurred_at', order: 'DESC' }}
      filters={filters}
      rowClick={false}
      extraActions={<ListDownload path="/elevators/events/download" name="elevator-events" />}
    >
      <DateTimeField source="occurred_at" />
      <EllipsisField source="device_name" sortable={false} />
      <FunctionField source="type" render={(e: DeviceEvent) => translate(`devices.events.types.${e.type}`, { _: e.type })} />
      <EllipsisField source="identifier" />
      <EllipsisField source="floor" sortable={false} render={(e) => floorOf(e.data)} />
    </ListPage>
  );
}
