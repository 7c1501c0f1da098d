import { CALL_OUTCOMES, type CallHistoryItem } from '@atrium/contract';
import { Chip } from '@mui/material';
import { DateTimeInput, FunctionField, SelectInput, useRecordContext, useTranslate } from 'react-admin';
import { filterSource } from '../../app/dataProvider';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { callDuration } from './transform';

/** The menu's /devices/alarms-calls is the API's /alarms/calls. */
const RESOURCE = 'devices/alarms-calls';
const ROUTES = { [RESOURCE]: { path: 'alarms/calls' } };
const F = `resources.${RESOURCE}.fields`;

const statusChoices = CALL_OUTCOMES.map((id) => ({ id, name: `alarm_calls.statuses.${id}` }));
const filters = [
  textFilter('from_number', 'has', `${F}.from_number`, { alwaysOn: true }),
  textFilter('to_number', 'has', `${F}.to_number`, { alwaysOn: true }),
  <SelectInput key="status" source="status" label={`${F}.status`} choices={statusChoices} />,
  <DateTimeInput key="from" source={filterSource('created_at', 'above')} label={`${F}.since`} />,
  <DateTimeInput key="to" source={filterSource('created_at', 'below')} label={`${F}.until`} />,
];

const STATUS_COLORS = { answered: 'success', noanswer: 'error', busy: 'warning', cancel: 'default', failed: 'error' } as const;

/** An SOS call's outcome: one nobody answered stands out. */
function OutcomeField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const c = useRecordContext<CallHistoryItem>();
  if (!c) return null;
  return (
    <>
      <Chip size="small" color="error" label={translate('alarm_calls.sos')} sx={{ mr: 0.5 }} />
      <Chip
        size="small"
        variant={c.status === 'noanswer' ? 'filled' : 'outlined'}
        color={STATUS_COLORS[c.status]}
        label={translate(`alarm_calls.statuses.${c.status}`)}
      />
    </>
  );
}

const party = (p: CallHistoryItem['from']) => (p.user?.name ? `${p.number} · ${p.user.name}` : p.number);

function SosCallListView() {
  const translate = useTranslate();
  return (
    <ListPage
      title={translate('alarm_calls.title')}
      sort={{ field: 'created_at', order: 'DESC' }}
      filters={filters}
      rowClick={false}
      omit={['id']}
    >
      <EllipsisField source="id" />
      <DateTimeField source="created_at" />
      <EllipsisField source="from" sortable={false} render={(r) => party((r as CallHistoryItem).from)} />
      <EllipsisField source="to" sortable={false} render={(r) => party((r as CallHistoryItem).to)} />
      <OutcomeField source="status" />
      <FunctionField source="duration" render={(r: CallHistoryItem) => callDuration(r.duration) || '—'} />
      <EllipsisField source="answered_by" sortable={false} />
    </ListPage>
  );
}

/** /devices/alarms-calls: the SOS call history of the devices and people in the user's scope. */
export function SosCallList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <SosCallListView />
    </ApiRoutes>
  );
}
