import type { Notification, NotificationClass } from '@atrium/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Translate } from './errors';
import { http } from './http';
import { displayValue, type IdentifierFormat, isIdentifierType } from './identifier-value';

export const NOTIFICATIONS_KEY = ['notifications'] as const;
export const UNREAD_KEY = ['notifications', 'unread'] as const;

interface UnreadAnswer {
  data: Notification[];
  meta?: { total?: number };
}

/** Unread notifications (newest first) and their count. */
export function useUnread() {
  const query = useQuery({
    queryKey: UNREAD_KEY,
    queryFn: ({ signal }) => http.request<UnreadAnswer>('/notifications/unread', { query: { limit: 50 }, signal }),
    staleTime: 30_000,
  });
  const items = query.data?.data ?? [];
  return { items, total: query.data?.meta?.total ?? items.length, isLoading: query.isLoading };
}

export interface NotificationPage {
  data: Notification[];
  meta: { total: number; offset: number; limit: number };
}

export const fetchNotifications = (type: NotificationClass, offset: number, limit: number, signal?: AbortSignal) =>
  http.request<NotificationPage>('/notifications', { query: { type, offset, limit }, signal });

/** Marks one notification (by id) or all of them read, then refreshes the bell and the lists. */
export function useMarkRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id?: number) => http.request('/notifications/read', { method: 'POST', query: { id } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }),
  });
}

const text = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).filter(Boolean).join(', ');
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return text(o.name ?? o.sensor ?? o.title ?? o.number ?? o.id);
  }
  return String(value);
};

/**
 * The wording of a notification in the current language, from its type and payload. An identifier's
 * number is carried as stored with its type, and read here as this viewer reads card numbers
 * (`format`, their profile's), as the identifiers list shows it.
 */
export function notificationText(n: Notification, translate: Translate, format: IdentifierFormat): string {
  const data = n.data ?? {};
  if (n.type === 'system' && typeof data.event === 'string') {
    const fallback = typeof data.name === 'string' ? data.name : data.event.replace(/_/g, ' ');
    return translate(`notifications.system_events.${data.event}`, { _: fallback });
  }
  const key = `notifications.types.${n.type}${data.has_error === true && (n.type === 'sip_reboot_completed' || n.type === 'device_broker_settings_sent') ? '_error' : ''}`;
  const values: Record<string, string> = {};
  for (const field of ['author', 'from', 'name', 'status', 'user', 'device', 'group', 'sensors', 'identifier_type', 'identifier_number']) {
    values[field] = text(data[field]) || '—';
  }
  if (typeof data.title === 'string' && values.name === '—') values.name = data.title;
  if (isIdentifierType(data.identifier_type)) {
    values.identifier_type = translate(`notifications.identifier_types.${data.identifier_type}`, { _: data.identifier_type });
    if (typeof data.identifier_number === 'string')
      values.identifier_number = displayValue(data.identifier_type, data.identifier_number, format) || '—';
  }
  return translate(key, { ...values, _: typeof data.text === 'string' ? data.text : n.type.replace(/_/g, ' ') });
}

/** Where a notification leads (its popup_action 'goto:page'), if anywhere. */
export function notificationTarget(n: Notification): string | null {
  const action = n.popup_action;
  if (action?.code !== 'goto:page' || !action.params?.page) return null;
  const page = action.params.page.startsWith('/') ? action.params.page : `/${action.params.page}`;
  const qs = new URLSearchParams(action.params.query ?? {}).toString();
  return qs ? `${page}?${qs}` : page;
}
