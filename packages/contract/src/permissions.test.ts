import { describe, expect, it } from 'vitest';
import { hasPermission, PERMISSION_CODES, PERMISSION_FAMILIES, PERMISSIONS, scopeCodes } from './permissions.js';

describe('permission catalogue', () => {
  it('has about two hundred unique can_* codes', () => {
    expect(PERMISSION_CODES.length).toBeGreaterThanOrEqual(180);
    expect(new Set(PERMISSION_CODES).size).toBe(PERMISSION_CODES.length);
    for (const c of PERMISSION_CODES) expect(c).toMatch(/^can_[a-z0-9_]+$/);
  });

  it('labels every code in English and Russian, in a known family', () => {
    for (const p of PERMISSIONS) {
      expect(p.en.length, p.code).toBeGreaterThan(3);
      expect(p.ru, p.code).toMatch(/[а-яё]/i);
      expect(Object.keys(PERMISSION_FAMILIES)).toContain(p.family);
    }
  });

  it.each([
    ['users', 'view', { domain: 'can_view_users', descendants: 'can_view_descendant_users', all: 'can_view_all_users' }],
    ['users', 'edit', { domain: 'can_edit_users', descendants: 'can_edit_descendant_users', all: 'can_edit_all_users' }],
    ['groups', 'delete', { domain: 'can_delete_own_domains', descendants: 'can_delete_descendant_domains', all: 'can_delete_all_domains' }],
    ['devices', 'view', { domain: 'can_view_devices', descendants: 'can_view_descendant_devices', all: 'can_view_all_devices' }],
    [
      'amenities',
      'view',
      {
        own: 'can_view_own_amenities',
        domain: 'can_view_domain_amenities',
        descendants: 'can_view_descendants_amenities',
        all: 'can_view_all_amenities',
      },
    ],
    [
      'sip_trunks',
      'delete',
      {
        own: 'can_delete_own_sip_trunks',
        domain: 'can_delete_domain_sip_trunks',
        descendants: 'can_delete_descendants_sip_trunks',
        all: 'can_delete_all_sip_trunks',
      },
    ],
  ])('scope variants of %s %s', (resource, action, expected) => {
    expect(scopeCodes(resource, action)).toEqual(expected);
  });

  it('a check is true only for an existing user whose list holds the code', () => {
    expect(hasPermission(['can_view_users'], 'can_view_users')).toBe(true);
    expect(hasPermission(['can_view_users'], 'can_view_all_users')).toBe(false);
    expect(hasPermission(null, 'can_view_users')).toBe(false);
    expect(hasPermission(undefined, 'can_view_users')).toBe(false);
  });
});
