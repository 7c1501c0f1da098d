import { describe, expect, it } from 'vitest';
import { mayEditOwnRecord, type ProfileForm, profileBody } from './profileForm';

const me = { userId: 7, roleId: 3, groupIds: [1] };
const form: ProfileForm = {
  name: ' Pat Doe ',
  locale: 'ru',
  address: ' Flat 2 ',
  phone: '+371 2000-0000',
  time_zone: 'Europe/Riga',
  time_format: '',
  identifier_format: 'hex',
};

describe('who may change their own name, address and phone (profile.service mayEditOwnRecord)', () => {
  it.each([
    [['can_edit_own_profile'], true],
    [['can_edit_all_users'], true],
    [['can_edit_descendant_users'], true],
    [['can_edit_users'], true],
    [['can_view_all_users', 'can_create_users'], false],
    [[], false],
  ])('%j: %s', (permissions, allowed) => {
    expect(mayEditOwnRecord(permissions, me)).toBe(allowed);
  });

  it('an edit scope of one’s groups needs groups', () => {
    expect(mayEditOwnRecord(['can_edit_users'], { ...me, groupIds: [] })).toBe(false);
  });
});

describe('the body the profile page saves', () => {
  it('sends the record’s fields, cleaned, when the user may change them', () => {
    expect(profileBody(form, true)).toEqual({
      name: 'Pat Doe',
      locale: 'ru',
      profile: { address: 'Flat 2', phone: '+37120000000', time_zone: 'Europe/Riga', time_format: null, identifier_format: 'hex' },
    });
  });

  it('leaves name, address and phone out when they are read-only', () => {
    expect(profileBody(form, false)).toEqual({
      locale: 'ru',
      profile: { time_zone: 'Europe/Riga', time_format: null, identifier_format: 'hex' },
    });
  });
});
