import type { Announce } from '@atrium/contract';
import { Chip } from '@mui/material';
import { FunctionField, SelectInput, TextInput, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { useSessionData } from '../../app/SessionContext';
import { STATUS_COLORS } from './poll';
import { ANNOUNCE_ROUTES } from './routes';

const typeChoices = ['info', 'poll'].map((id) => ({ id, name: `announces.types.${id}` }));
const statusChoices = ['new', 'scheduled', 'sending', 'sent', 'stopped'].map((id) => ({ id, name: `announces.statuses.${id}` }));
const filters = [
  <TextInput key="search" source="search" label="resources.announces.fields.search" resettable alwaysOn />,
  <SelectInput key="type" source="type" label="resources.announces.fields.type" choices={typeChoices} />,
  <SelectInput key="status" source="status" label="resources.announces.fields.status" choices={statusChoices} />,
];

/** A status as a coloured chip. */
export function AnnounceStatusChip({ status }: { status: Announce['status'] }) {
  const translate = useTranslate();
  return (
    <Chip
      size="small"
      color={STATUS_COLORS[status]}
      variant={status === 'new' ? 'outlined' : 'filled'}
      label={translate(`announces.statuses.${status}`)}
    />
  );
}

export function AnnounceList() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={ANNOUNCE_ROUTES}>
      <ListPage
        title={translate('announces.title')}
        sort={{ field: 'id', order: 'DESC' }}
        filters={filters}
        canCreate={can('can_create_announces')}
        canDelete={can('can_delete_announces')}
        addRoute
        omit={['id', 'subject']}
      >
        <EllipsisField source="id" />
        <EllipsisField source="name" />
        <EllipsisField source="subject" />
        <FunctionField source="type" render={(a: Announce) => translate(`announces.types.${a.type}`)} />
        <FunctionField source="status" render={(a: Announce) => <AnnounceStatusChip status={a.status} />} />
        <FunctionField
          source="recipients"
          label="resources.announces.fields.recipients"
          sortable={false}
          render={(a: Announce) => (a.stats.recipients ? `${a.stats.delivered} / ${a.stats.recipients}` : '—')}
        />
        <FunctionField
          source="answered"
          label="resources.announces.fields.answered"
          sortable={false}
          render={(a: Announce) => (a.type === 'poll' ? String(a.stats.answered) : '')}
        />
        <DateTimeField source="created_at" />
      </ListPage>
    </ApiRoutes>
  );
}
