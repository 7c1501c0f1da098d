import { hasPermission, type Scope, scopeCodes } from '@atrium/contract';
import { evaluate, type Rule, type RuleContext } from './menu-rules';

/**
 * Which actions of groups, domain types, users and roles a user may take, as data (ARCHITECTURE §5:
 * the server enforces, the console hides). Like menu-rules.ts for the menu: components only evaluate
 * these rules; no condition about who may do what lives anywhere else. Each rule mirrors the check
 * of the server's service (apps/server/src/modules/<area>/*.service.ts).
 *
 * Two levels:
 * - `ACTION_RULES`: what the role allows at all (toolbar buttons, bulk actions, create pages);
 * - the `…Access` functions: what it allows on one record, from the scope of the permission (all,
 *   descendants, domain, own) and what the console knows of the record and of the signed-in user.
 *   Where the console cannot tell (a user's groups below mine, roles held by users I see) they allow,
 *   and the server decides.
 */

const p = (permission: string): Rule => ({ permission });
const any = (...codes: string[]): Rule => ({ anyPermission: codes });
/** Every scope variant of an action on a resource (`can_edit_users`, `can_edit_descendant_users`, …). */
const scoped = (resource: string, action: string): string[] => Object.values(scopeCodes(resource, action)) as string[];

const USERS_VIEW = scoped('users', 'view');
const USERS_EDIT = scoped('users', 'edit');
const USERS_DELETE = scoped('users', 'delete');
/** Role edit: the scoped codes plus "roles I may assign" (roles.repository rolePredicate). */
const ROLES_EDIT = [...scoped('roles', 'edit'), 'can_edit_available_roles'];
const ROLES_DELETE = [...scoped('roles', 'delete'), 'can_delete_available_roles'];
const GROUPS_EDIT = scoped('groups', 'edit');
const GROUPS_DELETE = scoped('groups', 'delete');
/** groups.service assertMayCreate: a child needs one of these (and, for descendants, a parent below my groups). */
const GROUPS_CREATE_CHILD = ['can_create_descendant_domains', 'can_create_root_domains', 'can_edit_all_domains'];
/** The fields a member of a group may change without an edit-groups permission (groups.service SELF_DOMAIN_FIELD). */
export const SELF_DOMAIN_SECTIONS = ['general', 'white_label', 'notifications', 'guest_access'] as const;
export type SelfDomainSection = (typeof SELF_DOMAIN_SECTIONS)[number];
const selfDomain = (section: string) => `can_manage_self_domain_${section}`;

export const ACTION_RULES = {
  // Users (users.service, structure.service)
  'users.create': p('can_create_users'),
  'users.edit': any(...USERS_EDIT),
  'users.edit_own_profile': p('can_edit_own_profile'),
  'users.delete': any(...USERS_DELETE),
  /** Bulk delete goes through the same per-user delete check. */
  'users.bulk_delete': any(...USERS_DELETE),
  /** An administrator sets another user's password: an edit scope (self is refused there). */
  'users.change_password': any(...USERS_EDIT),
  /** Registration link and avatar: an edit scope, or one's own record with edit-own-profile. */
  'users.send_registration_link': any(...USERS_EDIT, 'can_edit_own_profile'),
  /** Structure import attaches users (an edit scope) or creates them (create). */
  'users.import': any('can_create_users', ...USERS_EDIT),
  'users.export': any(...USERS_VIEW),
  // Roles (roles.service, roles.repository)
  'roles.create': p('can_create_roles'),
  'roles.edit': any(...ROLES_EDIT),
  'roles.delete': any(...ROLES_DELETE),
  'roles.bulk_delete': any(...ROLES_DELETE),
  // Groups (groups.service, structure.service)
  'groups.create_root': p('can_create_root_domains'),
  'groups.create_child': any(...GROUPS_CREATE_CHILD),
  'groups.create': any(...GROUPS_CREATE_CHILD),
  'groups.edit': any(...GROUPS_EDIT, ...SELF_DOMAIN_SECTIONS.map(selfDomain)),
  'groups.delete': any(...GROUPS_DELETE),
  'groups.generate': any(...GROUPS_CREATE_CHILD),
  'groups.import_structure': any('can_create_users', ...USERS_EDIT),
  'groups.export_structure': any(...USERS_VIEW),
  'groups.white_label': any(...GROUPS_EDIT, selfDomain('white_label')),
  // Domain types (domain-types.service): changing the catalogue is a project setting.
  'domain_types.create': p('can_change_project_settings'),
  'domain_types.edit': p('can_change_project_settings'),
  'domain_types.delete': p('can_change_project_settings'),
  // Devices (devices.service): the record's can_edit / can_delete answer for one device.
  'devices.create': p('can_create_devices'),
  'devices.edit': any(...scoped('devices', 'edit')),
  'devices.delete': any(...scoped('devices', 'delete')),
  'devices.tasks': p('can_view_device_tasks'),
  'devices.events': p('can_view_device_events'),
} as const satisfies Record<string, Rule>;

export type ActionCode = keyof typeof ACTION_RULES;

/** May the user take this action at all? */
export function canDo(action: ActionCode, ctx: RuleContext): boolean {
  return evaluate(ACTION_RULES[action], ctx);
}

/** Who is signed in, as the server's actor knows them. */
export interface Me {
  userId: number;
  roleId: number | null;
  /** Ids of the user's own groups (the profile's domains). */
  groupIds: readonly number[];
}

const ORDER: Scope[] = ['all', 'descendants', 'domain', 'own'];

/** The widest scope the permissions grant for `action` on `resource`, or null (as the server's acl.scopeOf). */
export function scopeOf(permissions: readonly string[] | null | undefined, resource: string, action: string): Scope | null {
  const codes = scopeCodes(resource, action);
  for (const scope of ORDER) {
    const code = codes[scope];
    if (code && hasPermission(permissions, code)) return scope;
  }
  return null;
}

const intersects = (a: readonly number[], b: readonly number[]) => a.some((x) => b.includes(x));

// --- users --------------------------------------------------------------------------------------

export interface UserAccess {
  /** 'all': the whole form; 'own_profile': one's own record without the administrator's fields; 'none': read-only. */
  edit: 'all' | 'own_profile' | 'none';
  delete: boolean;
  changePassword: boolean;
  sendRegistrationLink: boolean;
  avatar: boolean;
}

/** Fields only an edit permission over the user may change (users.service ADMIN_FIELDS). */
export const USER_ADMIN_FIELDS = ['login', 'role', 'domains', 'is_group_admin', 'license_info', 'elevator_access_disabled'] as const;

/** Does a users scope cover this user? Descendants cannot be told without group paths: allowed, the server decides. */
function userInScope(scope: Scope | null, me: Me, user: { domains: readonly number[] }): boolean {
  if (scope === 'all' || scope === 'descendants') return true;
  if (scope === 'domain') return intersects(user.domains, me.groupIds);
  return false;
}

/** What the signed-in user may do with one user record (users.service update, delete, editable). */
export function userAccess(
  permissions: readonly string[] | null | undefined,
  me: Me,
  user: { id: number; domains: readonly number[]; activated?: boolean },
): UserAccess {
  const self = user.id === me.userId;
  const canEdit = userInScope(scopeOf(permissions, 'users', 'edit'), me, user);
  const ownProfile = self && hasPermission(permissions, 'can_edit_own_profile');
  const editable = canEdit || ownProfile;
  return {
    edit: canEdit ? 'all' : ownProfile ? 'own_profile' : 'none',
    delete: !self && userInScope(scopeOf(permissions, 'users', 'delete'), me, user),
    changePassword: canEdit,
    sendRegistrationLink: editable && !user.activated,
    avatar: editable,
  };
}

// --- roles --------------------------------------------------------------------------------------

export interface RoleAccess {
  /** Name and description. */
  edit: boolean;
  /** Permissions and assignable roles (never of the built-in role). */
  editPermissions: boolean;
  delete: boolean;
}

/** Does a roles scope (with the "available" permission) cover this role? "Users' roles" cannot be told: allowed. */
function roleInScope(
  permissions: readonly string[] | null | undefined,
  action: 'edit' | 'delete',
  me: Me,
  role: { id: number; created_by_user?: { id: number } | null },
  availableIds: readonly number[] | undefined,
): boolean {
  const scope = scopeOf(permissions, 'roles', action);
  if (scope === 'all' || scope === 'descendants') return true;
  if (scope === 'own' && role.created_by_user?.id === me.userId) return true;
  const available = action === 'edit' ? 'can_edit_available_roles' : 'can_delete_available_roles';
  // Unknown list: allowed, the server decides.
  return hasPermission(permissions, available) && (!availableIds || availableIds.includes(role.id));
}

/**
 * What the signed-in user may do with one role (roles.service update, delete). `availableIds`: the
 * roles my role lists as available (GET /roles/available without my own role), when known.
 */
export function roleAccess(
  permissions: readonly string[] | null | undefined,
  me: Me,
  role: { id: number; is_builtin: boolean; created_by_user?: { id: number } | null },
  availableIds?: readonly number[],
): RoleAccess {
  const edit = roleInScope(permissions, 'edit', me, role, availableIds);
  return {
    edit,
    editPermissions: edit && !role.is_builtin,
    delete: !role.is_builtin && role.id !== me.roleId && roleInScope(permissions, 'delete', me, role, availableIds),
  };
}

// --- groups -------------------------------------------------------------------------------------

export interface GroupAccess {
  /** The edit-groups permission covers the group: every field, moving included. */
  edit: boolean;
  /** Per tab of the form: the edit permission, or membership with the self-domain permission. */
  sections: Record<SelfDomainSection, boolean>;
  /** Licence counts (domain_licenses edit scope). */
  licenses: boolean;
  /** Logo upload and removal. */
  logo: boolean;
  delete: boolean;
  /** Adding a group below this one. */
  createChild: boolean;
}

function groupInScope(scope: Scope | null, me: Me, group: { id: number; path: readonly number[] }): boolean {
  if (scope === 'all') return true;
  if (scope === 'descendants') return intersects(group.path, me.groupIds);
  if (scope === 'domain') return me.groupIds.includes(group.id);
  return false;
}

/** What the signed-in user may do with one group (groups.service update, delete, logo, assertMayCreate). */
export function groupAccess(
  permissions: readonly string[] | null | undefined,
  me: Me,
  group: { id: number; path: readonly number[] },
): GroupAccess {
  const edit = groupInScope(scopeOf(permissions, 'groups', 'edit'), me, group);
  const member = me.groupIds.includes(group.id);
  const sections = Object.fromEntries(
    SELF_DOMAIN_SECTIONS.map((s) => [s, edit || (member && hasPermission(permissions, selfDomain(s)))]),
  ) as Record<SelfDomainSection, boolean>;
  const onlyGroup = me.groupIds.length === 1 && me.groupIds[0] === group.id;
  const createChild =
    hasPermission(permissions, 'can_edit_all_domains') ||
    hasPermission(permissions, 'can_create_root_domains') ||
    (hasPermission(permissions, 'can_create_descendant_domains') && intersects(group.path, me.groupIds));
  return {
    edit,
    sections,
    licenses: groupInScope(scopeOf(permissions, 'domain_licenses', 'edit'), me, group),
    logo: sections.white_label,
    delete: !onlyGroup && groupInScope(scopeOf(permissions, 'groups', 'delete'), me, group),
    createChild,
  };
}
