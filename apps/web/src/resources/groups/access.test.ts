import { describe, expect, it } from 'vitest';
import { groupAccess, type Me } from '../../app/action-rules';
import { recordGroupAccess } from './access';

const me: Me = { userId: 1, roleId: 10, groupIds: [100] };
const mine = { id: 100, path: [1, 100] };

describe('the actions on one group follow its can_edit and can_delete', () => {
  const perms = ['can_edit_all_domains', 'can_delete_all_domains', 'can_edit_all_domain_license_counts'];

  it('keeps what the rules allow when the server allows it too', () => {
    const rules = groupAccess(perms, me, { id: 200, path: [1, 200] });
    expect(recordGroupAccess(rules, { can_edit: true, can_delete: true })).toEqual(rules);
  });

  it('without can_edit no tab, licence or logo changes; adding a group below stays with the rules', () => {
    const access = recordGroupAccess(groupAccess(perms, me, { id: 200, path: [1, 200] }), { can_edit: false, can_delete: true });
    expect(access).toEqual({
      edit: false,
      sections: { general: false, white_label: false, notifications: false, guest_access: false },
      licenses: false,
      logo: false,
      delete: true,
      createChild: true,
    });
  });

  it('without can_delete there is no delete', () => {
    const access = recordGroupAccess(groupAccess(perms, me, { id: 200, path: [1, 200] }), { can_edit: true, can_delete: false });
    expect(access).toMatchObject({ edit: true, delete: false });
  });

  it('a member with a self-domain permission keeps only that section', () => {
    const access = recordGroupAccess(groupAccess(['can_manage_self_domain_white_label'], me, mine), { can_edit: true, can_delete: false });
    expect(access.sections).toEqual({ general: false, white_label: true, notifications: false, guest_access: false });
    expect(access).toMatchObject({ edit: false, logo: true, delete: false });
  });

  it('never widens what the rules refuse', () => {
    expect(recordGroupAccess(groupAccess([], me, mine), { can_edit: true, can_delete: true })).toEqual(groupAccess([], me, mine));
  });
});
