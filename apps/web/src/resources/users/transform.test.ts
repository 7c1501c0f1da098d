import { describe, expect, it } from 'vitest';
import { changesOwnEmail, profileBody, userBody, userPatch } from './transform';

describe('user form transform', () => {
  const record = {
    id: 7,
    login: ' ann ',
    name: '',
    description: '  ',
    email: '',
    role: '3',
    domains: [4, { id: 5, name: 'B' }],
    activated: true,
    activated_at: '2026-01-01T00:00:00Z',
    avatar_url: '/files/a.png',
    mobile_clients: [],
    role_info: { id: 3, name: 'R' },
    can_edit: true,
    can_delete: false,
    is_group_admin: 1,
    profile: { address: ' ', phone: '+12345678', identifier_format: 'hex', time_format: 'bad', use_phone_in_forward: 0 },
  };

  it('drops read-only parts (the record flags among them) and sends blanks as null', () => {
    const body = userBody(record, 'edit');
    expect(body).toEqual({
      login: 'ann',
      name: 'ann',
      description: null,
      email: null,
      role: 3,
      domains: [4, 5],
      is_group_admin: true,
      elevator_access_disabled: false,
      profile: { address: null, phone: '+12345678', identifier_format: 'hex', time_format: null, use_phone_in_forward: false },
    });
  });

  it('sends the registration link by default on create, and a password only when given', () => {
    expect(userBody({ login: 'a', domains: [1] }, 'create')).toMatchObject({ send_registration_link: true });
    expect(userBody({ login: 'a', domains: [1] }, 'create')).not.toHaveProperty('password');
    expect(userBody({ login: 'a', domains: [1], send_registration_link: false, password: 'secret-12' }, 'create')).toMatchObject({
      send_registration_link: false,
      password: 'secret-12',
    });
    expect(userBody({ login: 'a', domains: [1], password: 'x' }, 'edit')).not.toHaveProperty('send_registration_link');
  });

  it('a missing role is null', () => {
    expect(userBody({ login: 'a', role: '' }, 'edit').role).toBeNull();
  });

  it('keeps only the profile keys the form had', () => {
    expect(profileBody({ time_zone: 'Europe/Paris' })).toEqual({ time_zone: 'Europe/Paris' });
    expect(profileBody(null)).toEqual({});
  });

  describe('the current password of an e-mail change', () => {
    const ME = 7;
    const mine = { id: ME, login: 'ann', name: 'Ann', email: 'ann@example.com', domains: [4] };
    const theirs = { ...mine, id: 8, login: 'bob', name: 'Bob' };

    it('goes with a change of one’s own e-mail, as typed', () => {
      expect(userPatch({ ...mine, email: ' new@example.com ', password: ' secret ' }, mine, ME)).toEqual({
        email: 'new@example.com',
        password: ' secret ',
      });
      expect(userPatch({ ...mine, email: '', password: 'secret' }, mine, ME)).toEqual({ email: null, password: 'secret' });
    });

    it('never goes with someone else’s e-mail', () => {
      expect(userPatch({ ...theirs, email: 'moved@example.com', password: 'secret' }, theirs, ME)).toEqual({ email: 'moved@example.com' });
    });

    it('never goes when one’s own e-mail stays the same', () => {
      expect(userPatch({ ...mine, name: 'Ann B', email: ' ann@example.com ', password: 'secret' }, mine, ME)).toEqual({ name: 'Ann B' });
      expect(userPatch({ ...mine, email: null, password: 'secret' }, { ...mine, email: '' }, ME)).toEqual({});
    });

    it('is not sent empty: the field asks for it first, the server answers "required" otherwise', () => {
      expect(userPatch({ ...mine, email: 'new@example.com', password: '' }, mine, ME)).toEqual({ email: 'new@example.com' });
    });

    it('is asked for only on one’s own record with a changed e-mail', () => {
      expect(changesOwnEmail('new@example.com', mine, ME)).toBe(true);
      expect(changesOwnEmail('new@example.com', theirs, ME)).toBe(false);
      expect(changesOwnEmail(' ann@example.com', mine, ME)).toBe(false);
      expect(changesOwnEmail('', { id: ME, email: null }, ME)).toBe(false);
      expect(changesOwnEmail('new@example.com', undefined, ME)).toBe(false);
    });
  });
});
