import { CONVERSATION_EVENTS, type Conversation, topics } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Chip, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { BooleanInput, FunctionField, TextInput, useRefresh, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EllipsisField, ListPage } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { useLiveTopic } from '../../app/live';
import { debounce } from '../../app/realtime';
import { useSessionData } from '../../app/SessionContext';
import { StartConversationDialog } from './StartConversationDialog';
import { otherParty } from './thread';

// Subject or participant name contains the text; "unread only" is a plain query parameter too.
const ROUTES = { conversations: { queryParams: ['search', 'unread'] } };
const filters = [
  <TextInput key="search" source="search" label="resources.conversations.fields.search" resettable alwaysOn />,
  <BooleanInput
    key="unread"
    source="unread"
    label="resources.conversations.fields.unread"
    alwaysOn
    // Off means every conversation, not only the read ones.
    parse={(v: boolean) => (v ? true : undefined)}
  />,
];

/** Whom the conversation is with, as the caller sees it: the other side, or both sides for a supervisor. */
function Counterpart({ conversation, me }: { conversation: Conversation; me: number }) {
  const translate = useTranslate();
  const name = (u: Conversation['author']) => u?.name ?? translate('conversations.deleted_user');
  const other = otherParty(conversation, me);
  const text =
    other === undefined
      ? translate('conversations.between', { author: name(conversation.author), interlocutor: name(conversation.interlocutor) })
      : name(other);
  return (
    <Typography component="span" variant="body2" noWrap title={text} sx={{ display: 'block' }}>
      {text}
    </Typography>
  );
}

function Subject({ conversation }: { conversation: Conversation }) {
  const translate = useTranslate();
  const unread = conversation.unread_count;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
      <Typography component="span" variant="body2" noWrap title={conversation.subject} sx={{ fontWeight: unread > 0 ? 700 : 400 }}>
        {conversation.subject}
      </Typography>
      {unread > 0 ? (
        <Chip
          size="small"
          color="primary"
          label={unread}
          aria-label={translate('conversations.unread', { smart_count: unread })}
          title={translate('conversations.unread', { smart_count: unread })}
          data-testid="unread-count"
        />
      ) : null}
    </Box>
  );
}

/** The conversations list (/conversations): newest activity first, unread counts, search, start and bulk delete. */
export function ConversationList() {
  const translate = useTranslate();
  const { can, profile } = useSessionData();
  const refresh = useRefresh();
  const [starting, setStarting] = useState(false);
  // A message, a read elsewhere or a deletion changes the list: refreshed at most twice a second.
  const later = useMemo(() => debounce(refresh, 500), [refresh]);
  useLiveTopic(topics.user(profile.id), (m) => {
    if (Object.values(CONVERSATION_EVENTS).includes(m.event as never)) later();
  });
  return (
    <ApiRoutes routes={ROUTES}>
      <ListPage
        resource="conversations"
        title={translate('conversations.title')}
        sort={{ field: 'last_message_at', order: 'DESC' }}
        filters={filters}
        canDelete={can('can_delete_conversations')}
        rowClick={(id) => `/conversation/${id}`}
        extraActions={
          can('can_create_conversations') ? (
            <Button size="small" startIcon={<AddIcon />} onClick={() => setStarting(true)}>
              {translate('conversations.start')}
            </Button>
          ) : null
        }
        omit={['id', 'created_at']}
      >
        <EllipsisField source="id" />
        <FunctionField source="subject" render={(c: Conversation) => <Subject conversation={c} />} />
        <FunctionField
          source="interlocutor"
          sortable={false}
          render={(c: Conversation) => <Counterpart conversation={c} me={profile.id} />}
        />
        <EllipsisField
          source="last_message"
          sortable={false}
          render={(r) => {
            const m = (r as unknown as Conversation).last_message;
            if (!m) return null;
            const who =
              m.author?.id === profile.id ? translate('conversations.you') : (m.author?.name ?? translate('conversations.deleted_user'));
            return `${who}: ${m.message.replace(/\s+/g, ' ')}`;
          }}
        />
        <DateTimeField source="last_message_at" />
        <LocaleNumberField source="messages_count" emptyText="—" />
        <DateTimeField source="created_at" />
      </ListPage>
      {starting ? <StartConversationDialog onClose={() => setStarting(false)} /> : null}
    </ApiRoutes>
  );
}
