import { ACCESS_REALTIME, ACCESS_REFUSALS, type AccessEvent } from '@atrium/contract';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import { Button, Chip } from '@mui/material';
import {
  AutocompleteInput,
  DateTimeInput,
  FunctionField,
  ReferenceInput,
  SelectInput,
  useLocaleState,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { Link } from 'react-router-dom';
import { filterSource } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { displayValue, useIdentifierFormat } from '../../app/identifier-value';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { ListDownload } from '../../app/kit/ListDownload';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { useLiveRefresh } from '../../app/live';
import { reasonKey } from './explain';

/** The menu's /access-control/events is the API's /access-control/logs. */
export const ACCESS_EVENTS = 'access-control/events';
const ROUTES = { [ACCESS_EVENTS]: { path: 'access-control/logs' } };

const grantedChoices = [
  { id: true, name: 'access_events.results.granted' },
  { id: false, name: 'access_events.results.refused' },
];
const reasonChoices = ACCESS_REFUSALS.map((id) => ({ id, name: `access_events.reasons.${id}` }));
const byName = (q: string) => (q ? { 'name@has': q } : {});

const filters = [
  <SelectInput key="granted" source="granted" label="resources.access-control/events.fields.granted" choices={grantedChoices} alwaysOn />,
  <ReferenceInput key="device_id" source="device_id" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label="resources.access-control/events.fields.device_id" filterToQuery={byName} />
  </ReferenceInput>,
  <SelectInput key="reason" source="reason" label="resources.access-control/events.fields.reason" choices={reasonChoices} />,
  <DateTimeInput key="from" source={filterSource('occurred_at', 'above')} label="resources.access-control/events.fields.from" />,
  <DateTimeInput key="to" source={filterSource('occurred_at', 'below')} label="resources.access-control/events.fields.to" />,
];

/** The address of the explanation of a refused event: who, which door and lock, when. */
export function explainPath(
  e: Pick<AccessEvent, 'identifier_id' | 'user_id' | 'device_id' | 'lock_number' | 'occurred_at'>,
): string | null {
  const who = e.identifier_id !== null ? `identifier_id=${e.identifier_id}` : e.user_id !== null ? `user_id=${e.user_id}` : null;
  if (!who) return null;
  return `/access-control/explain?${who}&device_id=${e.device_id}&lock=${e.lock_number}&at=${encodeURIComponent(e.occurred_at)}`;
}

function ResultField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const e = useRecordContext<AccessEvent>();
  if (!e) return null;
  return (
    <Chip
      size="small"
      color={e.granted ? 'success' : 'error'}
      variant={e.granted ? 'outlined' : 'filled'}
      label={translate(e.granted ? 'access_events.granted' : 'access_events.refused')}
    />
  );
}

/** "Why?" on a refused row whose identifier or person is known: opens the explanation prefilled. */
function WhyField(_: { label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const e = useRecordContext<AccessEvent>();
  const to = e && !e.granted ? explainPath(e) : null;
  if (!e || !to) return null;
  return (
    <Button
      size="small"
      startIcon={<HelpOutlineIcon />}
      component={Link}
      to={to}
      aria-label={translate('access_events.why_label', { time: formatDateTime(e.occurred_at, locale) })}
    >
      {translate('access_events.why')}
    </Button>
  );
}

/**
 * The number a device reported, as the viewer reads card numbers (their profile's format, as the
 * identifiers list shows them) when it is a known identifier's; an unknown one as the device sent it.
 */
function useEventValue() {
  const format = useIdentifierFormat();
  return (e: AccessEvent) => (e.identifier_type ? displayValue(e.identifier_type, e.value, format) : (e.value ?? ''));
}

function AccessEventListView() {
  const translate = useTranslate();
  const eventValue = useEventValue();
  // New decisions of the doors show up as they happen.
  useLiveRefresh(ACCESS_REALTIME.eventsTopic);
  return (
    <ListPage
      title={translate('access_events.title')}
      sort={{ field: 'occurred_at', order: 'DESC' }}
      filters={filters}
      rowClick={false}
      extraActions={<ListDownload path="/access-control/logs/download" name="access-events" />}
      omit={['id', 'value', 'direction']}
    >
      <EllipsisField source="id" />
      <DateTimeField source="occurred_at" />
      <EllipsisField source="device_name" sortable={false} />
      <LocaleNumberField code source="lock_number" emptyText="—" />
      <ResultField source="granted" />
      <FunctionField
        source="reason"
        cellClassName={PROSE_CELL}
        render={(e: AccessEvent) => (e.granted || !e.reason ? '' : translate(reasonKey(e.reason), { _: e.reason }))}
      />
      {/* A refused number no identifier has is still shown: it is what an operator looks for. */}
      <EllipsisField
        source="identifier_name"
        sortable={false}
        render={(e) => (e as unknown as AccessEvent).identifier_name ?? eventValue(e as unknown as AccessEvent)}
      />
      <EllipsisField source="user_name" sortable={false} />
      <EllipsisField source="value" render={(e) => eventValue(e as unknown as AccessEvent)} />
      <EllipsisField source="direction" sortable={false} />
      <WhyField label="resources.access-control/events.fields.why" sortable={false} />
    </ListPage>
  );
}

export function AccessEventList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <AccessEventListView />
    </ApiRoutes>
  );
}
