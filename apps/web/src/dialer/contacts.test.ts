import { describe, expect, it } from 'vitest';
import { contactCount, contactLetter, contactTitle, groupContacts, highlightRanges, splitHighlights } from './contacts';
import type { Contact } from './types';

const contact = (number: string, userName: string | null, name: string | null = null, description: string | null = null): Contact => ({
  id: Number(number),
  number,
  name,
  description,
  user: userName === null ? null : { id: 1, name: userName },
  device: null,
  domain: null,
  owner_info: null,
});

describe('contacts', () => {
  it('builds the title from user name, name, number and description, trimmed', () => {
    expect(contactTitle(contact('101', '  Anna ', 'Desk', ' lobby '))).toBe('Anna Desk 101 lobby');
    expect(contactTitle(contact('102', null))).toBe('102');
  });

  it('groups by first letter of the user name, else "?", sorted with "?" last', () => {
    const groups = groupContacts([
      contact('3', 'boris'),
      contact('1', 'Anna'),
      contact('2', null, 'Gate'),
      contact('4', 'alex'),
      contact('5', '7even'),
    ]);
    expect(groups.map((g) => g.letter)).toEqual(['A', 'B', 'G', '?']);
    expect(groups[0]?.contacts.map((c) => c.contact.number)).toEqual(['4', '1']);
    expect(contactLetter(contact('9', 'Юлия'))).toBe('Ю');
    expect(contactCount(groups)).toBe(5);
  });

  it('leaves out the current user', () => {
    const groups = groupContacts([contact('100', 'Me'), contact('101', 'Other')], { ownNumber: '100' });
    expect(groups.flatMap((g) => g.contacts.map((c) => c.contact.number))).toEqual(['101']);
  });

  it('searches the combined title case-insensitively, trimmed', () => {
    const all = [contact('101', 'Anna', null, 'Lobby'), contact('202', 'Boris', 'Gate')];
    expect(contactCount(groupContacts(all, { query: '  LOBBY ' }))).toBe(1);
    expect(contactCount(groupContacts(all, { query: '20' }))).toBe(1);
    expect(contactCount(groupContacts(all, { query: 'boris gate' }))).toBe(1);
    expect(contactCount(groupContacts(all, { query: 'nobody' }))).toBe(0);
    expect(contactCount(groupContacts(all, { query: '   ' }))).toBe(2);
  });

  it('marks every match for highlighting', () => {
    expect(highlightRanges('Anna Banana', 'AN')).toEqual([
      [0, 2],
      [6, 8],
      [8, 10],
    ]);
    expect(highlightRanges('Anna', ' ')).toEqual([]);
    expect(splitHighlights('Gate 101', '10')).toEqual([
      { text: 'Gate ', match: false },
      { text: '10', match: true },
      { text: '1', match: false },
    ]);
  });
});
