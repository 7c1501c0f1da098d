import {
  hasPermission,
  IP_BLOCKING_VIEW_PERMISSION,
  type LicenseFeature,
  type LicenseInfo,
  licensed,
  OUTBOX_PERMISSION,
} from '@atrium/contract';

/**
 * The side menu of spec core §2 as data: eleven sections in the spec's order, each entry with its
 * visibility rule. Components only evaluate these rules; no condition about who sees what lives
 * anywhere else.
 */

/** A visibility rule. An entry without a rule is visible to every signed-in user (as the spec lists it). */
export type Rule =
  | { permission: string }
  | { anyPermission: readonly string[] }
  /** Hidden when both the server's and the user's licence feature are off. */
  | { license: LicenseFeature }
  /** SIP enabled, or disabled only because the licence count is exceeded (a *_qty restrictor). */
  | { sipUsableOrOverLimit: true }
  | { all: readonly Rule[] }
  | { any: readonly Rule[] };

/** What a rule is evaluated against: the profile's role and licences, and the server's licences. */
export interface RuleContext {
  permissions: readonly string[] | null | undefined;
  userLicense: LicenseInfo | null | undefined;
  serverLicense: LicenseInfo | null | undefined;
  /** Restrictor types of the user's licence state (spec core §4: over-limit when a type contains _qty). */
  restrictors: readonly string[];
}

export interface MenuItem {
  path: string;
  /** Translation key of the entry. */
  label: string;
  rule?: Rule;
}

export interface MenuSection {
  code: SectionCode;
  label: string;
  items: readonly MenuItem[];
}

export const SECTION_CODES = [
  'common',
  'reports',
  'users_management',
  'access_management',
  'communications',
  'amenities_reservation',
  'emergency',
  'phone_settings',
  'device_management',
  'elevator_management',
  'settings',
] as const;
export type SectionCode = (typeof SECTION_CODES)[number];

const p = (permission: string): Rule => ({ permission });
const any = (...codes: string[]): Rule => ({ anyPermission: codes });
const lic = (license: LicenseFeature): Rule => ({ license });
const all = (...rules: Rule[]): Rule => ({ all: rules });
const scopes = (action: string, plural: string) => ['all', 'domain', 'descendants', 'own'].map((s) => `can_${action}_${s}_${plural}`);
const item = (path: string, key: string, rule?: Rule): MenuItem =>
  rule ? { path, label: `menu.items.${key}`, rule } : { path, label: `menu.items.${key}` };
const section = (code: SectionCode, items: MenuItem[]): MenuSection => ({ code, label: `menu.sections.${code}`, items });

const elevatorLicensedViewer = all(lic('elevator'), p('can_view_elevators'));

export const MENU: readonly MenuSection[] = [
  section('common', [item('/home', 'home'), item('/notifications', 'notifications')]),
  section('reports', [item('/reports/licenses', 'reports_licenses', p('can_view_licenses_used_report'))]),
  section('users_management', [
    item('/users', 'users'),
    item('/roles', 'roles', any('can_view_roles', 'can_view_users_roles', 'can_view_all_roles')),
    item('/groups', 'groups'),
  ]),
  section('access_management', [
    item('/guest-access', 'guest_access', all(lic('guest_access'), p('can_create_guest_identifiers'))),
    item('/schedules', 'schedules', p('can_view_time_rules')),
    item('/access-rules', 'access_rules', p('can_view_access_rules')),
    item('/identifiers', 'identifiers'),
    item('/ukey2', 'ukey2', all(lic('ukey2'), p('can_view_ukey2'))),
    // The API answers the matrix only to those who may view it (can_view_access_matrix).
    item('/access-matrix', 'access_matrix', p('can_view_access_matrix')),
    item('/access-control/events', 'access_control_events', p('can_view_access_control_events')),
    // The server explains to those who may view access rules or access events.
    item('/access-control/explain', 'explain', any('can_view_access_rules', 'can_view_all_access_rules', 'can_view_access_control_events')),
  ]),
  section('communications', [
    item('/conversations', 'conversations'),
    item('/announces', 'announces', p('can_view_announces')),
    item('/announces/response', 'announces_response', p('can_view_announces')),
  ]),
  section('amenities_reservation', [
    item('/amenities', 'amenities', all(lic('amenity'), any(...scopes('view', 'amenities')))),
    item('/amenities/reservations', 'amenity_reservations', all(lic('amenity'), any(...scopes('view', 'amenity_reservations')))),
  ]),
  section('emergency', [
    item('/devices/alarms', 'device_alarms', p('can_view_device_alarms')),
    item('/devices/alarms-calls', 'alarm_calls', p('can_view_device_alarms')),
    // The spec names no rule here; the list answers only to those who may view alerts, so the item asks the same.
    item('/emergency-alerts', 'emergency_alerts', p('can_view_emergency_alerts')),
    // lockdown and muster (issue 13): a group's doors held shut; who is inside, from access events
    item('/emergency-lockdown', 'emergency_lockdown', p('can_view_emergency_alerts')),
    item('/emergency-muster', 'emergency_muster', all(p('can_view_emergency_alerts'), p('can_view_access_control_events'))),
  ]),
  section('phone_settings', [
    // The spec's rules, and the view permission the server answers the list with.
    item(
      '/virtual-numbers',
      'virtual_numbers',
      all(
        { sipUsableOrOverLimit: true },
        any('can_view_own_virtual_numbers', 'can_view_descendant_virtual_numbers', 'can_view_all_virtual_numbers'),
      ),
    ),
    item('/forward-rules', 'forward_rules', all(lic('sip'), p('can_view_forward_rules'))),
    item('/call-history', 'call_history', all(lic('sip'), p('can_view_call_history'))),
    item('/sip-trunks', 'sip_trunks', all(lic('sip'), lic('sip_trunks'), any(...scopes('view', 'sip_trunks')))),
  ]),
  section('device_management', [
    item('/devices', 'devices', any('can_view_devices', 'can_view_descendant_devices', 'can_view_all_devices')),
    // The spec shows these to everyone; the server answers them only with these permissions, so the menu follows the server.
    item('/devices/events', 'device_events', p('can_view_device_events')),
    item('/devices/tasks', 'device_tasks', p('can_view_device_tasks')),
  ]),
  section('elevator_management', [
    item('/elevators', 'elevators', elevatorLicensedViewer),
    item('/elevators/events', 'elevator_events', elevatorLicensedViewer),
    item(
      '/elevators/access-rules',
      'elevator_access_rules',
      all(lic('elevator'), any('can_view_elevator_access_rules', 'can_view_all_elevator_access_rules')),
    ),
  ]),
  section('settings', [
    item('/audit-events', 'audit_events', p('can_view_audit')),
    item('/backups', 'backups', p('can_view_backups')), // backups (issue 14): the list needs view; each action its own permission
    item(
      '/general-settings',
      'general_settings',
      any(
        'can_view_project_settings',
        'can_change_project_settings',
        // project settings (issue 14): the management company tab alone
        'can_view_management_company_info',
        'can_view_markers',
        'can_view_all_markers',
        'can_import_device_backup',
      ),
    ),
    item('/licenses', 'licenses', any('can_view_licenses', 'can_manage_licenses')),
    item('/outbox', 'outbox', p(OUTBOX_PERMISSION)),
    item('/system-info', 'system_info', p('can_view_system_info')),
    item('/ip-blocking', 'ip_blocking', p(IP_BLOCKING_VIEW_PERMISSION)), // IP blocking (issue 14)
    // API keys and webhooks (issue 14): project settings administrators
    item('/api-keys', 'api_keys', p('can_change_project_settings')),
    item('/webhooks', 'webhooks', p('can_change_project_settings')),
    // single sign-on (issue 14)
    item('/sso-providers', 'sso_providers', any('can_view_project_settings', 'can_change_project_settings')),
    // mail templates (issue 14)
    item('/mail-templates', 'mail_templates', any('can_view_project_settings', 'can_change_project_settings')),
    // integrations with Axxon One (issue 14): the project's, or a group's for those who manage groups
    item(
      '/integrations',
      'integrations',
      any(
        'can_view_project_settings',
        'can_change_project_settings',
        'can_edit_all_domains',
        'can_edit_descendant_domains',
        'can_manage_self_domain_integrations',
      ),
    ),
  ]),
];

/** True when the user's SIP licence is off only because a quantity limit is exceeded. */
export function sipOverLimit(restrictors: readonly string[]): boolean {
  return restrictors.some((type) => type.includes('_qty') && type.startsWith('sip'));
}

export function evaluate(rule: Rule | undefined, ctx: RuleContext): boolean {
  if (!rule) return true;
  if ('permission' in rule) return hasPermission(ctx.permissions, rule.permission);
  if ('anyPermission' in rule) return rule.anyPermission.some((code) => hasPermission(ctx.permissions, code));
  if ('license' in rule) return licensed(ctx.serverLicense, ctx.userLicense, rule.license);
  if ('sipUsableOrOverLimit' in rule) return licensed(ctx.serverLicense, ctx.userLicense, 'sip') || sipOverLimit(ctx.restrictors);
  if ('all' in rule) return rule.all.every((r) => evaluate(r, ctx));
  return rule.any.some((r) => evaluate(r, ctx));
}

/**
 * The menu a user sees: entries whose rule holds and whose area is built (`isAvailable`), in
 * sections that keep at least one entry.
 */
export function visibleMenu(ctx: RuleContext, isAvailable: (path: string) => boolean, menu: readonly MenuSection[] = MENU): MenuSection[] {
  return menu
    .map((s) => ({ ...s, items: s.items.filter((i) => isAvailable(i.path) && evaluate(i.rule, ctx)) }))
    .filter((s) => s.items.length > 0);
}

/**
 * Pages whose address is not under their menu entry's (the spec's singular form routes): the
 * prefix, and what it stands for. /integration/add belongs to /integrations (issue 14).
 */
const PATH_ALIASES: readonly [string, string][] = [['/integration/', '/integrations/']];

/** The address as the menu knows it (aliases resolved). */
export function menuPathOf(pathname: string): string {
  const alias = PATH_ALIASES.find(([from]) => pathname.startsWith(from) && !pathname.startsWith(from.replace(/\/$/, 's/')));
  return alias ? `${alias[1]}${pathname.slice(alias[0].length)}` : pathname;
}

/** The menu entry a path belongs to (the longest entry path that prefixes it), with its section. */
export function findMenuEntry(path: string, menu: readonly MenuSection[] = MENU): { section: MenuSection; item: MenuItem } | null {
  const pathname = menuPathOf(path);
  let best: { section: MenuSection; item: MenuItem } | null = null;
  for (const s of menu) {
    for (const i of s.items) {
      if ((pathname === i.path || pathname.startsWith(`${i.path}/`)) && (!best || i.path.length > best.item.path.length)) {
        best = { section: s, item: i };
      }
    }
  }
  return best;
}
