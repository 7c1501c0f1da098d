import { CALL_OUTCOMES, CALL_TYPES, type CallHistoryItem } from '@atrium/contract';
import { Chip } from '@mui/material';
import { DateTimeInput, FunctionField, NullableBooleanInput, SelectInput, useRecordContext, useTranslate } from 'react-admin';
import { filterSource } from '../../app/dataProvider';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { durationText, partyText } from './transform';

/** The menu's /call-history is the API's /calls/history/items. */
const ROUTES = { 'call-history': { path: 'calls/history/items' } };
const F = 'resources.call-history.fields';

const statusChoices = CALL_OUTCOMES.map((id) => ({ id, name: `call_history.statuses.${id}` }));
const typeChoices = CALL_TYPES.map((id) => ({ id, name: `call_history.types.${id}` }));
const filters = [
  textFilter('from_number', 'has', `${F}.from_number`, { alwaysOn: true }),
  textFilter('to_number', 'has', `${F}.to_number`, { alwaysOn: true }),
  <SelectInput key="status" source="status" label={`${F}.status`} choices={statusChoices} />,
  <SelectInput key="type" source="type" label={`${F}.type`} choices={typeChoices} />,
  <NullableBooleanInput key="sos" source="sos" label={`${F}.sos`} />,
  <DateTimeInput key="from" source={filterSource('created_at', 'above')} label={`${F}.since`} />,
  <DateTimeInput key="to" source={filterSource('created_at', 'below')} label={`${F}.until`} />,
];

const STATUS_COLORS = { answered: 'success', noanswer: 'warning', busy: 'warning', cancel: 'default', failed: 'error' } as const;

/** The call's outcome as a chip; an SOS call says so. */
function StatusField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const c = useRecordContext<CallHistoryItem>();
  if (!c) return null;
  return (
    <>
      <Chip size="small" variant="outlined" color={STATUS_COLORS[c.status]} label={translate(`call_history.statuses.${c.status}`)} />
      {c.sos ? <Chip size="small" color="error" label={translate('call_history.sos')} sx={{ ml: 0.5 }} /> : null}
    </>
  );
}

function CallHistoryListView() {
  const translate = useTranslate();
  return (
    <ListPage
      title={translate('call_history.title')}
      sort={{ field: 'created_at', order: 'DESC' }}
      filters={filters}
      rowClick={false}
      omit={['id', 'type', 'answered_by']}
    >
      <EllipsisField source="id" />
      <DateTimeField source="created_at" />
      <EllipsisField source="from" sortable={false} render={(r) => partyText((r as CallHistoryItem).from)} />
      <EllipsisField source="to" sortable={false} render={(r) => partyText((r as CallHistoryItem).to)} />
      <FunctionField
        source="direction"
        sortable={false}
        render={(r: CallHistoryItem) => (r.direction ? translate(`call_history.directions.${r.direction}`) : '—')}
      />
      <FunctionField source="type" sortable={false} render={(r: CallHistoryItem) => translate(`call_history.types.${r.type}`)} />
      <StatusField source="status" />
      <FunctionField
        source="duration"
        render={(r: CallHistoryItem) => durationText(r.duration) || (r.status === 'answered' ? '0:00' : '—')}
      />
      <EllipsisField source="answered_by" sortable={false} />
    </ListPage>
  );
}

export function CallHistoryList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <CallHistoryListView />
    </ApiRoutes>
  );
}
