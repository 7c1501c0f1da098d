import type { ConversationUnread } from '@atrium/contract';
import { Badge } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { useTranslate } from 'react-admin';
import { http } from '../../app/http';

/** The caller's unread conversations (GET /conversations/unread), kept live by layout/RealtimeBridge. */
export const CONVERSATIONS_UNREAD_KEY = ['conversations', 'unread'] as const;

/** How many conversations have messages the caller has not read, and how many messages; null until known. */
export function useConversationsUnread(enabled: boolean): ConversationUnread | null {
  const query = useQuery({
    queryKey: CONVERSATIONS_UNREAD_KEY,
    queryFn: ({ signal }) => http.request<{ data: ConversationUnread }>('/conversations/unread', { signal }),
    enabled,
    staleTime: 60_000,
  });
  return query.data?.data ?? null;
}

/** The Conversations menu entry's icon with the number of unread conversations on it (none: the bare icon). */
export function ConversationsMenuIcon({ Icon }: { Icon: ComponentType }) {
  const translate = useTranslate();
  const unread = useConversationsUnread(true);
  const n = unread?.conversations ?? 0;
  // Nothing unread: the bare icon (a hidden badge would still put its "0" into the entry's text).
  if (n === 0) return <Icon />;
  return (
    <Badge
      badgeContent={n}
      color="error"
      max={99}
      data-testid="conversations-unread-badge"
      // The menu entry's accessible name stays "Conversations"; the count shows, and its words on hover.
      aria-hidden
      title={n ? translate('conversations.menu_unread', { smart_count: n }) : undefined}
    >
      <Icon />
    </Badge>
  );
}
