import { type Amenity, slotsOfDay, WEEK_DAYS } from '@atrium/contract';
import { FunctionField, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { CreatePage, EditPage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { AmenityForm } from './AmenityForm';
import { type AmenityFormValues, amenityBody, hhmm } from './transform';

const ROUTES = { amenities: { queryParams: ['search'] } };
const filters = [<TextInput key="search" source="search" label="resources.amenities.fields.search" resettable alwaysOn />];
const scopes = (action: string) => ['all', 'domain', 'descendants', 'own'].map((s) => `can_${action}_${s}_amenities`);
const transform = (v: unknown) => amenityBody(v as AmenityFormValues);

/** The week's windows in a line: "Mo–Su 06:00–22:00 (16)". */
function SlotsSummary() {
  const translate = useTranslate();
  const a = useRecordContext<Amenity>();
  if (!a) return null;
  return (
    <span>
      {a.time_slots.items
        .map(
          (i) =>
            `${i.days.length === 7 ? translate('amenities.every_day') : i.days.map((d) => translate(`amenities.days.${d}`)).join(' ')} ${hhmm(i.from)}–${hhmm(i.to)}`,
        )
        .join('; ')}{' '}
      ({translate('amenities.slots_per_day', { smart_count: Math.max(...WEEK_DAYS.map((d) => slotsOfDay(a.time_slots, d).length)) })})
    </span>
  );
}

export function AmenityList() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={ROUTES}>
      <ListPage
        resource="amenities"
        title={translate('amenities.title')}
        sort={{ field: 'name', order: 'ASC' }}
        filters={filters}
        canCreate={can('can_create_amenities')}
        canDelete={scopes('delete').some(can)}
        addRoute
        omit={['id']}
        // When it was made matters least: shown on a wide desk, where the slots' summary leaves room.
        secondary={['created_at']}
      >
        <EllipsisField source="id" />
        <EllipsisField source="name" />
        <EllipsisField source="address" sortable />
        <FunctionField
          source="number_of_persons"
          label="resources.amenities.fields.persons"
          sortable={false}
          render={(a: Amenity) => `${a.number_of_persons.min}–${a.number_of_persons.max}`}
        />
        <FunctionField
          source="time_slots"
          label="resources.amenities.fields.time_slots.items"
          sortable={false}
          render={() => <SlotsSummary />}
        />
        <LocaleNumberField source="live_reservations" sortable={false} emptyText="—" />
        <DateTimeField source="created_at" />
      </ListPage>
    </ApiRoutes>
  );
}

export function AmenityCreate() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage allowed={can('can_create_amenities')} title={translate('amenities.create_title')} transform={transform}>
      <AmenityForm mode="create" />
    </CreatePage>
  );
}

function AmenityTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Amenity>();
  return <span>{record ? translate('amenities.edit_title', { name: record.name }) : translate('amenities.title')}</span>;
}

export function AmenityEdit() {
  return (
    <EditPage title={<AmenityTitle />} transform={transform}>
      <AmenityForm mode="edit" />
    </EditPage>
  );
}
