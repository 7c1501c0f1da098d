import type { Contact } from './types';

/** A contact's title (spec comms §2): user name, name, number and description, trimmed. */
export function contactTitle(c: Contact): string {
  return [c.user?.name, c.name, c.number, c.description]
    .map((part) => (part ?? '').trim())
    .filter(Boolean)
    .join(' ')
    .trim();
}

/** [start, end) ranges of `query` in `text`, case-insensitive and not overlapping. */
export function highlightRanges(text: string, query: string): [number, number][] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hay = text.toLowerCase();
  const out: [number, number][] = [];
  for (let i = hay.indexOf(q); i !== -1; i = hay.indexOf(q, i + q.length)) out.push([i, i + q.length]);
  return out;
}

/** Text cut into plain and matching parts, for rendering highlights. */
export function splitHighlights(text: string, query: string): { text: string; match: boolean }[] {
  const parts: { text: string; match: boolean }[] = [];
  let at = 0;
  for (const [start, end] of highlightRanges(text, query)) {
    if (start > at) parts.push({ text: text.slice(at, start), match: false });
    parts.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  if (at < text.length) parts.push({ text: text.slice(at), match: false });
  return parts;
}

/** The group letter: first letter of the user's name (else the title), upper-cased, or '?'. */
export function contactLetter(c: Contact): string {
  const source = (c.user?.name ?? '').trim() || contactTitle(c);
  const first = [...source][0];
  return first && /\p{L}/u.test(first) ? first.toLocaleUpperCase() : '?';
}

export interface ContactGroup {
  letter: string;
  contacts: { contact: Contact; title: string }[];
}

/**
 * Contacts of spec comms §2: the current user's own number left out, filtered by the search
 * (case-insensitive, trimmed, on the title), grouped by first letter with '?' last, sorted.
 */
export function groupContacts(contacts: readonly Contact[], options: { query?: string; ownNumber?: string | null } = {}): ContactGroup[] {
  const q = (options.query ?? '').trim().toLowerCase();
  const groups = new Map<string, ContactGroup>();
  for (const contact of contacts) {
    if (options.ownNumber && contact.number === options.ownNumber) continue;
    const title = contactTitle(contact);
    if (q && !title.toLowerCase().includes(q)) continue;
    const letter = contactLetter(contact);
    let group = groups.get(letter);
    if (!group) {
      group = { letter, contacts: [] };
      groups.set(letter, group);
    }
    group.contacts.push({ contact, title });
  }
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  const list = [...groups.values()];
  for (const g of list) g.contacts.sort((a, b) => collator.compare(a.title, b.title));
  return list.sort((a, b) => (a.letter === '?' ? 1 : b.letter === '?' ? -1 : collator.compare(a.letter, b.letter)));
}

/** How many contacts the groups hold. */
export const contactCount = (groups: readonly ContactGroup[]): number => groups.reduce((n, g) => n + g.contacts.length, 0);
