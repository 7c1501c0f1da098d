import { emptyLicenseInfo, isPermissionCode, type LicenseFeature, type LicenseInfo } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { isAvailable } from './areas';
import { evaluate, findMenuEntry, MENU, type MenuItem, type RuleContext, SECTION_CODES, visibleMenu } from './menu-rules';

const licenseWith = (...features: LicenseFeature[]): LicenseInfo => {
  const info = emptyLicenseInfo();
  for (const f of features) {
    if (f === 'sip') info.sip.is_enabled = true;
    if (f === 'sip_trunks') info.sip.is_sip_trunks_enabled = true;
    if (f === 'ukey2') info.ukey2.is_enabled = true;
    if (f === 'elevator') info.elevator.is_enabled = true;
    if (f === 'amenity') info.amenity.is_enabled = true;
    if (f === 'guest_access') info.identifier.is_guest_enabled = true;
  }
  return info;
};

const ctx = (
  permissions: string[],
  user: LicenseFeature[] = [],
  server: LicenseFeature[] = [],
  restrictors: string[] = [],
): RuleContext => ({
  permissions,
  userLicense: licenseWith(...user),
  serverLicense: licenseWith(...server),
  restrictors,
});

const entry = (path: string): MenuItem => {
  const found = MENU.flatMap((s) => s.items).find((i) => i.path === path);
  if (!found) throw new Error(`no menu entry ${path}`);
  return found;
};
const shown = (path: string, c: RuleContext) => evaluate(entry(path).rule, c);

/**
 * Each ruled entry: the least that shows it (permissions, licence features), and what hides it.
 * A licensed entry is shown when either the user's or the server's feature is on.
 */
const cases: { path: string; permissions: string[][]; features?: LicenseFeature[] }[] = [
  { path: '/reports/licenses', permissions: [['can_view_licenses_used_report']] },
  // backups (issue 14)
  { path: '/backups', permissions: [['can_view_backups']] },
  // licences (issue 14)
  { path: '/licenses', permissions: [['can_view_licenses'], ['can_manage_licenses']] },
  { path: '/roles', permissions: [['can_view_roles'], ['can_view_users_roles'], ['can_view_all_roles']] },
  { path: '/guest-access', permissions: [['can_create_guest_identifiers']], features: ['guest_access'] },
  { path: '/schedules', permissions: [['can_view_time_rules']] },
  { path: '/access-rules', permissions: [['can_view_access_rules']] },
  { path: '/ukey2', permissions: [['can_view_ukey2']], features: ['ukey2'] },
  { path: '/access-control/events', permissions: [['can_view_access_control_events']] },
  {
    path: '/access-control/explain',
    permissions: [['can_view_access_rules'], ['can_view_all_access_rules'], ['can_view_access_control_events']],
  },
  { path: '/announces', permissions: [['can_view_announces']] },
  { path: '/announces/response', permissions: [['can_view_announces']] },
  {
    path: '/amenities',
    permissions: [
      ['can_view_all_amenities'],
      ['can_view_domain_amenities'],
      ['can_view_descendants_amenities'],
      ['can_view_own_amenities'],
    ],
    features: ['amenity'],
  },
  {
    path: '/amenities/reservations',
    permissions: [
      ['can_view_all_amenity_reservations'],
      ['can_view_domain_amenity_reservations'],
      ['can_view_descendants_amenity_reservations'],
      ['can_view_own_amenity_reservations'],
    ],
    features: ['amenity'],
  },
  { path: '/devices/alarms', permissions: [['can_view_device_alarms']] },
  { path: '/devices/alarms-calls', permissions: [['can_view_device_alarms']] },
  // emergency lockdown and muster (issue 13)
  { path: '/emergency-alerts', permissions: [['can_view_emergency_alerts']] },
  { path: '/emergency-lockdown', permissions: [['can_view_emergency_alerts']] },
  { path: '/emergency-muster', permissions: [['can_view_emergency_alerts', 'can_view_access_control_events']] },
  { path: '/forward-rules', permissions: [['can_view_forward_rules']], features: ['sip'] },
  { path: '/call-history', permissions: [['can_view_call_history']], features: ['sip'] },
  { path: '/audit-events', permissions: [['can_view_audit']] },
  { path: '/access-matrix', permissions: [['can_view_access_matrix']] }, // access matrix
  { path: '/system-info', permissions: [['can_view_system_info']] },
  { path: '/ip-blocking', permissions: [['can_view_system_info']] }, // IP blocking (issue 14)
  // API keys and webhooks (issue 14)
  { path: '/api-keys', permissions: [['can_change_project_settings']] },
  { path: '/webhooks', permissions: [['can_change_project_settings']] },
  // single sign-on (issue 14)
  { path: '/sso-providers', permissions: [['can_view_project_settings'], ['can_change_project_settings']] },
  // mail templates (issue 14)
  { path: '/mail-templates', permissions: [['can_view_project_settings'], ['can_change_project_settings']] },
  // integrations with Axxon One (issue 14)
  {
    path: '/integrations',
    permissions: [
      ['can_view_project_settings'],
      ['can_change_project_settings'],
      ['can_edit_all_domains'],
      ['can_edit_descendant_domains'],
      ['can_manage_self_domain_integrations'],
    ],
  },
  {
    path: '/sip-trunks',
    permissions: [
      ['can_view_all_sip_trunks'],
      ['can_view_domain_sip_trunks'],
      ['can_view_descendants_sip_trunks'],
      ['can_view_own_sip_trunks'],
    ],
    features: ['sip', 'sip_trunks'],
  },
  { path: '/devices', permissions: [['can_view_devices'], ['can_view_descendant_devices'], ['can_view_all_devices']] },
  { path: '/devices/events', permissions: [['can_view_device_events']] },
  { path: '/devices/tasks', permissions: [['can_view_device_tasks']] },
  { path: '/elevators', permissions: [['can_view_elevators']], features: ['elevator'] },
  { path: '/elevators/events', permissions: [['can_view_elevators']], features: ['elevator'] },
  {
    path: '/elevators/access-rules',
    permissions: [['can_view_elevator_access_rules'], ['can_view_all_elevator_access_rules']],
    features: ['elevator'],
  },
  {
    path: '/general-settings',
    permissions: [
      ['can_view_project_settings'],
      ['can_change_project_settings'],
      ['can_view_management_company_info'],
      ['can_view_markers'],
      ['can_import_device_backup'],
    ],
  },
  { path: '/outbox', permissions: [['can_change_project_settings']] },
];

describe('menu rules', () => {
  it('has the eleven sections in the spec order', () => {
    expect(MENU.map((s) => s.code)).toEqual([...SECTION_CODES]);
    expect(SECTION_CODES).toHaveLength(11);
  });

  it('names only permission codes of the catalogue', () => {
    const codes: string[] = [];
    const collect = (rule: unknown): void => {
      if (!rule || typeof rule !== 'object') return;
      const r = rule as Record<string, unknown>;
      if (typeof r.permission === 'string') codes.push(r.permission);
      if (Array.isArray(r.anyPermission)) codes.push(...(r.anyPermission as string[]));
      for (const nested of [r.all, r.any]) if (Array.isArray(nested)) nested.forEach(collect);
    };
    for (const i of MENU.flatMap((s) => s.items)) collect(i.rule);
    expect(codes.filter((c) => !isPermissionCode(c))).toEqual([]);
  });

  it('shows entries without a rule to everyone', () => {
    const open = ['/home', '/notifications', '/users', '/groups', '/identifiers', '/conversations'];
    for (const path of open) expect(shown(path, ctx([])), path).toBe(true);
  });

  it('covers every ruled entry in this table', () => {
    const ruled = MENU.flatMap((s) => s.items)
      .filter((i) => i.rule && i.path !== '/virtual-numbers')
      .map((i) => i.path);
    expect(cases.map((c) => c.path).sort()).toEqual(ruled.sort());
  });

  for (const c of cases) {
    describe(c.path, () => {
      const features = c.features ?? [];
      it('is shown with a granting permission (and the licence on the user)', () => {
        for (const perms of c.permissions) expect(shown(c.path, ctx(perms, features)), perms.join()).toBe(true);
      });
      if (c.permissions.some((perms) => perms.length > 0)) {
        it('is hidden without the permission', () => {
          expect(shown(c.path, ctx(['can_apply_markers'], features, features))).toBe(false);
        });
      }
      if (features.length > 0) {
        const perms = c.permissions[0] ?? [];
        it("is shown when only the server's licence feature is on", () => {
          expect(shown(c.path, ctx(perms, [], features))).toBe(true);
        });
        for (const f of features) {
          it(`is hidden when both the server's and the user's ${f} feature are off`, () => {
            const rest = features.filter((x) => x !== f);
            expect(shown(c.path, ctx(perms, rest, rest))).toBe(false);
          });
        }
      }
    });
  }

  describe('/virtual-numbers', () => {
    it('is shown when SIP is enabled for the user or the server', () => {
      expect(shown('/virtual-numbers', ctx(['can_view_own_virtual_numbers'], ['sip']))).toBe(true);
      expect(shown('/virtual-numbers', ctx(['can_view_own_virtual_numbers'], [], ['sip']))).toBe(true);
      // …to those who may view some numbers.
      expect(shown('/virtual-numbers', ctx([], ['sip']))).toBe(false);
    });
    it('is shown when SIP is off only because of over-limit', () => {
      expect(shown('/virtual-numbers', ctx(['can_view_own_virtual_numbers'], [], [], ['sip_qty']))).toBe(true);
    });
    it('is hidden when SIP is off for another reason', () => {
      expect(shown('/virtual-numbers', ctx(['can_view_own_virtual_numbers'], [], [], ['sip_period']))).toBe(false);
      expect(shown('/virtual-numbers', ctx(['can_view_own_virtual_numbers']))).toBe(false);
    });
  });
});

describe('visible menu', () => {
  it('keeps only available areas and drops empty sections', () => {
    const menu = visibleMenu(ctx(['can_view_roles']), (path) => ['/home', '/notifications', '/roles', '/schedules'].includes(path));
    expect(menu.map((s) => s.code)).toEqual(['common', 'users_management']);
    expect(menu[1]?.items.map((i) => i.path)).toEqual(['/roles']);
  });
});

describe('menu entry of a path', () => {
  it('finds the longest matching entry', () => {
    expect(findMenuEntry('/devices/alarms/5/edit')?.item.path).toBe('/devices/alarms');
    expect(findMenuEntry('/devices/12/edit')?.item.path).toBe('/devices');
    expect(findMenuEntry('/notifications/settings')?.section.code).toBe('common');
    expect(findMenuEntry('/nowhere')).toBeNull();
  });

  it('places "Why was I refused?" in access management, where its breadcrumb comes from', () => {
    const found = findMenuEntry('/access-control/explain');
    expect([found?.section.code, found?.item.label]).toEqual(['access_management', 'menu.items.explain']);
    expect(isAvailable('/access-control/explain')).toBe(true);
  });
});
