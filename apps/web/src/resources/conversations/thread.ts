import { CONVERSATION_MESSAGE_MAX, type Conversation, type ConversationMessage, type ConversationUser } from '@atrium/contract';

/**
 * The messages of an open conversation, oldest first as a chat shows them, each once: pages of
 * older messages, the first page and live messages arrive in any order and may overlap.
 */
export function mergeMessages(current: readonly ConversationMessage[], more: readonly ConversationMessage[]): ConversationMessage[] {
  const byId = new Map<number, ConversationMessage>();
  for (const m of current) byId.set(m.id, m);
  for (const m of more) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id);
}

/** The query for the page before the oldest message shown (the API's before_date, with before_id for ties). */
export function olderQuery(messages: readonly ConversationMessage[], size: number): Record<string, string | number> {
  const oldest = messages[0];
  return oldest ? { before_date: oldest.created_at, before_id: oldest.id, size } : { size };
}

/** The other participant, seen from the user `me`; for one who only oversees it, null. */
export function otherParty(c: Pick<Conversation, 'author' | 'interlocutor'>, me: number): ConversationUser | null | undefined {
  if (c.author?.id === me) return c.interlocutor;
  if (c.interlocutor?.id === me) return c.author;
  return undefined;
}

/** How many characters a message may still take; negative when it is too long (as the server counts, trimmed). */
export const charactersLeft = (text: string): number => CONVERSATION_MESSAGE_MAX - text.trim().length;

/** A message can be sent: something to say, within the size the server takes. */
export const canSend = (text: string): boolean => text.trim().length > 0 && charactersLeft(text) >= 0;

/** The local calendar day of a timestamp (YYYY-MM-DD), to put a day line between messages of different days. */
export function dayOf(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Indexes of the messages that start a new day (the first one always does). */
export function dayStarts(messages: readonly ConversationMessage[]): Set<number> {
  const starts = new Set<number>();
  let last = '';
  messages.forEach((m, i) => {
    const day = dayOf(m.created_at);
    if (day !== last) starts.add(i);
    last = day;
  });
  return starts;
}
