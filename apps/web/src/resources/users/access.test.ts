import { describe, expect, it } from 'vitest';
import { type Me, userAccess } from '../../app/action-rules';
import { recordUserAccess } from './access';

const me: Me = { userId: 1, roleId: 10, groupIds: [100] };
/** A user of a group below mine: the rules cannot tell, so they allow and the record's flags decide. */
const below = { id: 2, domains: [101], activated: false };
const DESCENDANTS = ['can_edit_descendant_users', 'can_delete_descendant_users'];

describe('the actions on one user follow its can_edit and can_delete', () => {
  it('keeps what the rules allow when the server allows it too', () => {
    const access = recordUserAccess(userAccess(DESCENDANTS, me, below), { can_edit: true, can_delete: true });
    expect(access).toEqual({ edit: 'all', delete: true, changePassword: true, sendRegistrationLink: true, avatar: true });
  });

  it('without can_edit the record is read-only: no password, link or avatar', () => {
    const access = recordUserAccess(userAccess(DESCENDANTS, me, below), { can_edit: false, can_delete: true });
    expect(access).toEqual({ edit: 'none', delete: true, changePassword: false, sendRegistrationLink: false, avatar: false });
  });

  it('without can_delete there is no delete, the edit stays', () => {
    const access = recordUserAccess(userAccess(DESCENDANTS, me, below), { can_edit: true, can_delete: false });
    expect(access).toMatchObject({ edit: 'all', delete: false, changePassword: true });
  });

  it('one’s own record with edit-own-profile stays limited to the own profile', () => {
    const self = { id: me.userId, domains: [100], activated: true };
    const access = recordUserAccess(userAccess(['can_edit_own_profile'], me, self), { can_edit: true, can_delete: false });
    expect(access).toEqual({ edit: 'own_profile', delete: false, changePassword: false, sendRegistrationLink: false, avatar: true });
  });

  it('never widens what the rules refuse', () => {
    const access = recordUserAccess(userAccess([], me, below), { can_edit: true, can_delete: true });
    expect(access).toEqual({ edit: 'none', delete: false, changePassword: false, sendRegistrationLink: false, avatar: false });
  });

  it('a record without the flags (a form’s initial values) keeps the rules', () => {
    expect(recordUserAccess(userAccess(DESCENDANTS, me, below), {})).toEqual(userAccess(DESCENDANTS, me, below));
  });
});
