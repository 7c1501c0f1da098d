import { APP_CHANGES_TOPIC, CONVERSATION_EVENTS, REALTIME_EVENTS, topics, UNREAD_DEBOUNCE_MS } from '@atrium/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { http } from '../app/http';
import { attachLiveChannel, dispatchLive } from '../app/live';
import { NOTIFICATIONS_KEY } from '../app/notifications';
import { debounce, RealtimeClient, realtimeUrl } from '../app/realtime';
import { useSessionData } from '../app/SessionContext';
import { sessionStore } from '../app/session';
import { CONVERSATIONS_UNREAD_KEY } from '../resources/conversations/unread';

const CONVERSATION_EVENT_NAMES = new Set<string>(Object.values(CONVERSATION_EVENTS));
/** A burst of messages refreshes the Conversations badge once. */
const CONVERSATIONS_DEBOUNCE_MS = 300;

/**
 * Keeps the realtime channel open while signed in: a notification refreshes the unread list
 * (debounced 1 s), a role change of the user's role reloads the profile at once.
 */
export function RealtimeBridge() {
  const queryClient = useQueryClient();
  const { profile, reloadProfile } = useSessionData();
  const roleId = useRef(profile.role?.id ?? null);
  roleId.current = profile.role?.id ?? null;
  const reload = useRef(reloadProfile);
  reload.current = reloadProfile;

  useEffect(() => {
    const refreshUnread = debounce(() => void queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }), UNREAD_DEBOUNCE_MS);
    // The Conversations menu badge: a message written or read, or a conversation deleted, on the user's topic.
    const refreshConversations = debounce(
      () => void queryClient.invalidateQueries({ queryKey: CONVERSATIONS_UNREAD_KEY }),
      CONVERSATIONS_DEBOUNCE_MS,
    );
    const client = new RealtimeClient({
      url: () => {
        const token = sessionStore.token();
        return token ? realtimeUrl(token) : null;
      },
      onMessage: (m) => {
        dispatchLive(m);
        if (m.event === REALTIME_EVENTS.notification) refreshUnread();
        if (m.topic === topics.user(profile.id) && CONVERSATION_EVENT_NAMES.has(m.event)) {
          refreshConversations();
          // Reading a conversation read its bell notifications too.
          if (m.event === CONVERSATION_EVENTS.read) refreshUnread();
        }
        if (m.event === REALTIME_EVENTS.roleChanged) {
          // On the user's own topic the change is theirs (another role given); on app-changes, only
          // a change of the role they hold (or of an unnamed one) concerns them.
          const changed = (m.data as { roleId?: unknown } | null)?.roleId;
          if (m.topic === topics.user(profile.id) || changed === undefined || changed === roleId.current) void reload.current();
        }
      },
      // A refused upgrade usually means an expired token, and the server ends a socket when its
      // token expires or its sign-in ends: renew it (a sign-in that is over ends the session here).
      onRejected: () => http.refresh(),
      // Notifications may have arrived while the channel was down.
      onReconnected: () => {
        refreshUnread();
        refreshConversations();
      },
    });
    client.subscribe(topics.user(profile.id));
    client.subscribe(APP_CHANGES_TOPIC);
    client.start();
    const detach = attachLiveChannel(client);
    return () => {
      detach();
      refreshUnread.cancel();
      refreshConversations.cancel();
      client.stop();
    };
  }, [profile.id, queryClient]);

  return null;
}
