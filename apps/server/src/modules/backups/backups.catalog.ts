import type { BackupEntity } from '@atrium/contract';

/** One table of a backup entity and how the project's rows of it are found. */
export interface BackupTable {
  name: string;
  /**
   * The project's rows: the table's own `project_id`, or (for a link table) the parent column whose
   * row carries it.
   */
  scope: { projectColumn: true } | { column: string; parent: string };
  /** Columns written after every table is in (they point forwards, to a table restored later). */
  deferred?: readonly string[];
  /** Columns holding a file store key: the files travel in the backup too. */
  files?: readonly string[];
}

const own = (name: string, extra: Pick<BackupTable, 'deferred' | 'files'> = {}): BackupTable => ({
  name,
  scope: { projectColumn: true },
  ...extra,
});
const link = (name: string, column: string, parent: string): BackupTable => ({ name, scope: { column, parent } });

/**
 * The tables of each entity, parents first; the first is the entity's own (its rows are counted). The entities run in BACKUP_ENTITIES order, which is an
 * order where every reference points to an earlier table (or a deferred column). A link between two
 * entities travels with the later one: user groups with users, a user's markers with markers.
 * Runtime state (device status, tasks, events, sessions, reservations) is never part of a backup.
 */
export const BACKUP_CATALOG: Record<BackupEntity, readonly BackupTable[]> = {
  groups: [own('groups', { deferred: ['domain_type_id'], files: ['logo_path'] }), own('domain_types')],
  roles: [own('roles'), link('role_available_roles', 'role_id', 'roles')],
  users: [own('users', { files: ['avatar_path'] }), link('user_groups', 'user_id', 'users'), link('user_two_factor', 'user_id', 'users')],
  markers: [own('markers'), link('user_markers', 'marker_id', 'markers')],
  devices: [own('devices')],
  identifiers: [own('identifiers', { files: ['photo_path'] })],
  time_rules: [own('time_rules')],
  access_rules: [
    own('access_rules'),
    link('access_rule_devices', 'rule_id', 'access_rules'),
    link('access_rule_groups', 'rule_id', 'access_rules'),
    link('access_rule_identifiers', 'rule_id', 'access_rules'),
    link('access_rule_time_rules', 'rule_id', 'access_rules'),
    link('access_rule_users', 'rule_id', 'access_rules'),
  ],
  elevators: [own('elevators'), link('elevator_controllers', 'elevator_id', 'elevators')],
  elevator_rules: [
    own('elevator_rules'),
    link('elevator_rule_elevators', 'rule_id', 'elevator_rules'),
    link('elevator_rule_users', 'rule_id', 'elevator_rules'),
  ],
  forward_rules: [own('forward_groups')],
  sip_numbers: [own('sip_numbers')],
  sip_trunks: [own('sip_trunks'), link('sip_trunk_groups', 'trunk_id', 'sip_trunks')],
  mail_templates: [own('mail_templates')],
  amenities: [
    own('amenities'),
    link('amenity_access_rules', 'amenity_id', 'amenities'),
    link('amenity_domains', 'amenity_id', 'amenities'),
  ],
  emergency_alerts: [
    own('emergency_alerts', { files: ['file_key'] }),
    link('emergency_alert_devices', 'alert_id', 'emergency_alerts'),
    link('emergency_alert_groups', 'alert_id', 'emergency_alerts'),
  ],
};

/** The table names of every entity, for the archive's whitelist. */
export const BACKUP_TABLE_NAMES: ReadonlySet<string> = new Set(Object.values(BACKUP_CATALOG).flatMap((ts) => ts.map((t) => t.name)));
