/**
 * The permission catalogue: every `can_*` code of spec core §6, grouped by family, with English and
 * Russian labels. The server enforces these codes; the console only hides what they forbid.
 */
export type Scope = 'own' | 'domain' | 'descendants' | 'all';

export interface PermissionDef {
  code: string;
  family: PermissionFamily;
  /** For scoped permissions: the resource, action and scope this code grants. */
  resource?: string;
  action?: string;
  scope?: Scope;
  en: string;
  ru: string;
}

export const PERMISSION_FAMILIES = {
  settings: { en: 'Project and group settings', ru: 'Настройки проекта и групп' },
  roles: { en: 'Roles', ru: 'Роли' },
  users: { en: 'Users', ru: 'Пользователи' },
  devices: { en: 'Devices', ru: 'Устройства' },
  elevators: { en: 'Elevators', ru: 'Лифты' },
  schedules: { en: 'Schedules, access and forward rules', ru: 'Расписания, правила доступа и переадресации' },
  communications: { en: 'Conversations and announces', ru: 'Обращения и объявления' },
  identifiers: { en: 'Identifiers and UKEY2', ru: 'Идентификаторы и UKEY2' },
  backups: { en: 'Backups', ru: 'Резервные копии' },
  telephony: { en: 'Virtual numbers and SIP trunks', ru: 'Виртуальные номера и SIP-транки' },
  emergency: { en: 'Emergency alerts and markers', ru: 'Экстренные оповещения и метки' },
  licenses: { en: 'Licences', ru: 'Лицензии' },
  amenities: { en: 'Amenities and reservations', ru: 'Удобства и бронирования' },
  other: { en: 'Other', ru: 'Прочее' },
} as const;
export type PermissionFamily = keyof typeof PERMISSION_FAMILIES;

type Label = readonly [en: string, ru: string];
const SCOPE_LABEL: Record<Scope, Label> = {
  own: ['created by me', 'созданные мной'],
  domain: ['in my groups', 'в моих группах'],
  descendants: ['in my groups and below', 'в моих группах и ниже'],
  all: ['all', 'все'],
};

const list: PermissionDef[] = [];
const plain = (family: PermissionFamily, code: string, en: string, ru: string) => {
  list.push({ code, family, en, ru });
};
/** A permission that grants `action` on `resource` within `scope`. */
const scoped = (family: PermissionFamily, code: string, resource: string, action: string, scope: Scope, [en, ru]: Label) => {
  list.push({ code, family, resource, action, scope, en, ru });
};
/** view/edit/delete at the four scopes plus create, as amenities and SIP trunks have them. */
const fourScopes = (family: PermissionFamily, resource: string, plural: string, what: Label) => {
  plain(family, `can_create_${resource}`, `Create ${what[0]}`, `Создание: ${what[1]}`);
  const verbs: Record<string, Label> = { view: ['View', 'Просмотр'], edit: ['Edit', 'Изменение'], delete: ['Delete', 'Удаление'] };
  for (const action of ['view', 'edit', 'delete'] as const) {
    for (const scope of ['all', 'domain', 'descendants', 'own'] as const) {
      const [ven, vru] = verbs[action] as Label;
      scoped(family, `can_${action}_${scope}_${plural}`, resource, action, scope, [
        `${ven} ${what[0]}: ${SCOPE_LABEL[scope][0]}`,
        `${vru}: ${what[1]} — ${SCOPE_LABEL[scope][1]}`,
      ]);
    }
  }
};
/** The five-code family (view, view all, create, edit, delete) of schedules, rules and elevators. */
// Scoped to the holder's groups and those below them: a building's operator keeps the schedules
// and rules of its entrances, and a project administrator (root group) those of every building.
const fiveCodes = (family: PermissionFamily, resource: string, plural: string, what: Label) => {
  scoped(family, `can_view_${plural}`, resource, 'view', 'descendants', [
    `View ${what[0]} of my groups and below`,
    `Просмотр: ${what[1]} моих групп и ниже`,
  ]);
  scoped(family, `can_view_all_${plural}`, resource, 'view', 'all', [`View all ${what[0]}`, `Просмотр всех: ${what[1]}`]);
  plain(family, `can_create_${plural}`, `Create ${what[0]}`, `Создание: ${what[1]}`);
  scoped(family, `can_edit_${plural}`, resource, 'edit', 'descendants', [`Edit ${what[0]}`, `Изменение: ${what[1]}`]);
  scoped(family, `can_delete_${plural}`, resource, 'delete', 'descendants', [`Delete ${what[0]}`, `Удаление: ${what[1]}`]);
};

// Project and domain (group) settings
plain('settings', 'can_view_project_settings', 'View project settings', 'Просмотр настроек проекта');
plain('settings', 'can_change_project_settings', 'Change project settings', 'Изменение настроек проекта');
plain('settings', 'can_view_management_company_info', 'View management company information', 'Просмотр информации об управляющей компании');
plain('settings', 'can_import_device_backup', 'Import device backup', 'Импорт резервной копии устройств');
plain('settings', 'can_create_root_domains', 'Create root groups', 'Создание корневых групп');
plain('settings', 'can_create_descendant_domains', 'Create groups below my groups', 'Создание дочерних групп');
scoped('settings', 'can_edit_all_domains', 'groups', 'edit', 'all', ['Edit all groups', 'Изменение всех групп']);
scoped('settings', 'can_edit_descendant_domains', 'groups', 'edit', 'descendants', [
  'Edit my groups and below',
  'Изменение моих и дочерних групп',
]);
scoped('settings', 'can_delete_all_domains', 'groups', 'delete', 'all', ['Delete all groups', 'Удаление всех групп']);
scoped('settings', 'can_delete_own_domains', 'groups', 'delete', 'domain', ['Delete my groups', 'Удаление моих групп']);
scoped('settings', 'can_delete_descendant_domains', 'groups', 'delete', 'descendants', [
  'Delete groups below my groups',
  'Удаление дочерних групп',
]);
const selfDomain: [string, string, string][] = [
  ['general', 'general parameters', 'общие параметры'],
  ['users', 'users', 'пользователи'],
  ['access_rules', 'access rules', 'правила доступа'],
  ['devices', 'devices', 'устройства'],
  ['notifications', 'notifications', 'уведомления'],
  ['white_label', 'white label', 'white label'],
  ['mail_templates', 'mail templates', 'почтовые шаблоны'],
  ['forward_settings', 'forward settings', 'настройки переадресации'],
  ['guest_access', 'guest access', 'гостевой доступ'],
  ['sip_trunks', 'SIP trunks', 'SIP-транки'],
  ['integrations', 'integrations', 'интеграции'],
];
for (const [key, en, ru] of selfDomain) {
  plain('settings', `can_manage_self_domain_${key}`, `Manage own group: ${en}`, `Управление своей группой: ${ru}`);
}

// Roles
scoped('roles', 'can_view_roles', 'roles', 'view', 'own', ['View roles I created', 'Просмотр созданных мной ролей']);
scoped('roles', 'can_view_users_roles', 'roles', 'view', 'descendants', [
  'View roles of users I see',
  'Просмотр ролей видимых пользователей',
]);
scoped('roles', 'can_view_all_roles', 'roles', 'view', 'all', ['View all roles', 'Просмотр всех ролей']);
plain('roles', 'can_create_roles', 'Create roles', 'Создание ролей');
scoped('roles', 'can_edit_own_roles', 'roles', 'edit', 'own', ['Edit roles I created', 'Изменение созданных мной ролей']);
plain('roles', 'can_edit_available_roles', 'Edit roles I may assign', 'Изменение доступных мне ролей');
scoped('roles', 'can_edit_users_roles', 'roles', 'edit', 'descendants', [
  'Edit roles of users I see',
  'Изменение ролей видимых пользователей',
]);
scoped('roles', 'can_edit_all_roles', 'roles', 'edit', 'all', ['Edit all roles', 'Изменение всех ролей']);
scoped('roles', 'can_delete_own_roles', 'roles', 'delete', 'own', ['Delete roles I created', 'Удаление созданных мной ролей']);
plain('roles', 'can_delete_available_roles', 'Delete roles I may assign', 'Удаление доступных мне ролей');
scoped('roles', 'can_delete_all_roles', 'roles', 'delete', 'all', ['Delete all roles', 'Удаление всех ролей']);
plain('roles', 'can_grant_more_permissions', 'Grant more permissions than my own', 'Выдача прав сверх собственных');

// Users
plain('users', 'can_create_users', 'Create users', 'Создание пользователей');
scoped('users', 'can_view_users', 'users', 'view', 'domain', ['View users of my groups', 'Просмотр пользователей моих групп']);
scoped('users', 'can_view_descendant_users', 'users', 'view', 'descendants', [
  'View users of my groups and below',
  'Просмотр пользователей моих и дочерних групп',
]);
scoped('users', 'can_view_all_users', 'users', 'view', 'all', ['View all users', 'Просмотр всех пользователей']);
plain('users', 'can_edit_own_profile', 'Edit own profile', 'Изменение своего профиля');
scoped('users', 'can_edit_users', 'users', 'edit', 'domain', ['Edit users of my groups', 'Изменение пользователей моих групп']);
scoped('users', 'can_edit_descendant_users', 'users', 'edit', 'descendants', [
  'Edit users of my groups and below',
  'Изменение пользователей моих и дочерних групп',
]);
scoped('users', 'can_edit_all_users', 'users', 'edit', 'all', ['Edit all users', 'Изменение всех пользователей']);
scoped('users', 'can_delete_users', 'users', 'delete', 'domain', ['Delete users of my groups', 'Удаление пользователей моих групп']);
scoped('users', 'can_delete_descendant_users', 'users', 'delete', 'descendants', [
  'Delete users of my groups and below',
  'Удаление пользователей моих и дочерних групп',
]);
scoped('users', 'can_delete_all_users', 'users', 'delete', 'all', ['Delete all users', 'Удаление всех пользователей']);

// Devices
plain('devices', 'can_create_devices', 'Create devices', 'Создание устройств');
scoped('devices', 'can_edit_devices', 'devices', 'edit', 'descendants', ['Edit devices', 'Изменение устройств']);
scoped('devices', 'can_delete_devices', 'devices', 'delete', 'descendants', ['Delete devices', 'Удаление устройств']);
scoped('devices', 'can_view_devices', 'devices', 'view', 'domain', ['View devices of my groups', 'Просмотр устройств моих групп']);
scoped('devices', 'can_view_descendant_devices', 'devices', 'view', 'descendants', [
  'View devices of my groups and below',
  'Просмотр устройств моих и дочерних групп',
]);
scoped('devices', 'can_view_all_devices', 'devices', 'view', 'all', ['View all devices', 'Просмотр всех устройств']);
plain('devices', 'can_view_device_tasks', 'View device tasks', 'Просмотр задач устройств');
plain('devices', 'can_view_device_events', 'View device events', 'Просмотр событий устройств');
plain('devices', 'can_view_device_alarms', 'View device alarms', 'Просмотр тревог устройств');
plain('devices', 'can_process_device_alarms', 'Process device alarms', 'Обработка тревог устройств');
plain('devices', 'can_delete_device_alarms', 'Delete device alarms', 'Удаление тревог устройств');

// Elevators, elevator access rules
fiveCodes('elevators', 'elevators', 'elevators', ['elevators', 'лифты']);
fiveCodes('elevators', 'elevator_access_rules', 'elevator_access_rules', ['elevator access rules', 'правила доступа к лифтам']);

// Schedules (time rules), access rules, forward rules
fiveCodes('schedules', 'time_rules', 'time_rules', ['schedules', 'расписания']);
fiveCodes('schedules', 'access_rules', 'access_rules', ['access rules', 'правила доступа']);
fiveCodes('schedules', 'forward_rules', 'forward_rules', ['forward rules', 'правила переадресации']);

// Conversations and announces
scoped('communications', 'can_view_conversations', 'conversations', 'view', 'domain', [
  'View conversations of my groups',
  'Просмотр обращений моих групп',
]);
scoped('communications', 'can_view_all_conversations', 'conversations', 'view', 'all', [
  'View all conversations',
  'Просмотр всех обращений',
]);
scoped('communications', 'can_view_descendant_conversations', 'conversations', 'view', 'descendants', [
  'View conversations of my groups and below',
  'Просмотр обращений моих и дочерних групп',
]);
plain('communications', 'can_send_conversations_to_all', 'Send conversations to everyone', 'Отправка обращений всем');
plain('communications', 'can_create_conversations', 'Create conversations', 'Создание обращений');
plain('communications', 'can_create_conversation_messages', 'Write conversation messages', 'Создание сообщений в обращениях');
plain('communications', 'can_delete_conversations', 'Delete conversations', 'Удаление обращений');
plain(
  'communications',
  'can_accept_messages_from_descendant_users',
  'Accept messages from users below my groups',
  'Приём сообщений от пользователей дочерних групп',
);
// Announces (area: announces): scoped by their recipient groups; "view all" reaches every announce of the project.
scoped('communications', 'can_view_announces', 'announces', 'view', 'descendants', [
  'View announces to my groups and below',
  'Просмотр объявлений моим группам и ниже',
]);
scoped('communications', 'can_view_all_announces', 'announces', 'view', 'all', ['View all announces', 'Просмотр всех объявлений']);
plain('communications', 'can_create_announces', 'Create announces', 'Создание объявлений');
plain('communications', 'can_edit_announces', 'Edit announces', 'Изменение объявлений');
plain('communications', 'can_send_announces', 'Send announces', 'Отправка объявлений');
plain('communications', 'can_delete_announces', 'Delete announces', 'Удаление объявлений');

// Identifiers and UKEY2
scoped('identifiers', 'can_view_all_identifiers', 'identifiers', 'view', 'all', ['View all identifiers', 'Просмотр всех идентификаторов']);
plain('identifiers', 'can_create_identifiers', 'Create identifiers', 'Создание идентификаторов');
plain('identifiers', 'can_edit_identifiers', 'Edit identifiers', 'Изменение идентификаторов');
plain('identifiers', 'can_delete_identifiers', 'Delete identifiers', 'Удаление идентификаторов');
plain('identifiers', 'can_create_guest_identifiers', 'Create guest identifiers', 'Создание гостевых идентификаторов');
plain('identifiers', 'can_import_identifiers', 'Import identifiers', 'Импорт идентификаторов');
plain('identifiers', 'can_export_identifiers', 'Export identifiers', 'Экспорт идентификаторов');
plain('identifiers', 'can_view_ukey2', 'View UKEY2 keys', 'Просмотр ключей UKEY2');
plain('identifiers', 'can_issue_ukey2', 'Issue UKEY2 keys', 'Выдача ключей UKEY2');
plain('identifiers', 'can_revoke_ukey2', 'Revoke UKEY2 keys', 'Отзыв ключей UKEY2');

// Backups
plain('backups', 'can_create_backups', 'Create backups', 'Создание резервных копий');
plain('backups', 'can_delete_backups', 'Delete backups', 'Удаление резервных копий');
plain('backups', 'can_view_backups', 'View backups', 'Просмотр резервных копий');
plain('backups', 'can_apply_backups', 'Apply backups', 'Применение резервных копий');
plain('backups', 'can_apply_backups_from_file', 'Apply backups from a file', 'Применение резервной копии из файла');
plain('backups', 'can_download_backups', 'Download backups', 'Скачивание резервных копий');

// Virtual numbers and SIP trunks
plain('telephony', 'can_create_virtual_numbers', 'Create virtual numbers', 'Создание виртуальных номеров');
plain('telephony', 'can_edit_virtual_numbers', 'Edit virtual numbers', 'Изменение виртуальных номеров');
plain('telephony', 'can_delete_virtual_numbers', 'Delete virtual numbers', 'Удаление виртуальных номеров');
plain('telephony', 'can_activate_virtual_numbers', 'Activate virtual numbers', 'Активация виртуальных номеров');
plain('telephony', 'can_mark_system_virtual_numbers', 'Mark system numbers', 'Пометка системных номеров');
scoped('telephony', 'can_view_own_virtual_numbers', 'virtual_numbers', 'view', 'own', [
  'View own virtual numbers',
  'Просмотр своих виртуальных номеров',
]);
scoped('telephony', 'can_view_all_virtual_numbers', 'virtual_numbers', 'view', 'all', [
  'View all virtual numbers',
  'Просмотр всех виртуальных номеров',
]);
scoped('telephony', 'can_view_descendant_virtual_numbers', 'virtual_numbers', 'view', 'descendants', [
  'View virtual numbers of my groups and below',
  'Просмотр виртуальных номеров моих и дочерних групп',
]);
fourScopes('telephony', 'sip_trunks', 'sip_trunks', ['SIP trunks', 'SIP-транки']);
plain('telephony', 'can_view_call_history', 'View call history', 'Просмотр истории вызовов');

// Emergency alerts and markers
plain('emergency', 'can_view_emergency_alerts', 'View emergency alerts', 'Просмотр экстренных оповещений');
plain('emergency', 'can_create_emergency_alerts', 'Create emergency alerts', 'Создание экстренных оповещений');
plain('emergency', 'can_edit_emergency_alerts', 'Edit emergency alerts', 'Изменение экстренных оповещений');
plain('emergency', 'can_delete_emergency_alerts', 'Delete emergency alerts', 'Удаление экстренных оповещений');
plain('emergency', 'can_playback_emergency_alerts', 'Play emergency alerts', 'Воспроизведение экстренных оповещений');
scoped('emergency', 'can_view_markers', 'markers', 'view', 'descendants', [
  'View markers of my groups and below',
  'Просмотр меток моих групп и ниже',
]);
plain('emergency', 'can_create_markers', 'Create markers', 'Создание меток');
plain('emergency', 'can_edit_markers', 'Edit markers', 'Изменение меток');
plain('emergency', 'can_delete_markers', 'Delete markers', 'Удаление меток');
plain('emergency', 'can_apply_markers', 'Apply markers to users', 'Назначение меток пользователям');
scoped('emergency', 'can_view_all_markers', 'markers', 'view', 'all', ['View all markers', 'Просмотр всех меток']);

// Licences
plain('licenses', 'can_view_licenses', 'View licences', 'Просмотр лицензий');
plain('licenses', 'can_manage_licenses', 'Manage licences', 'Управление лицензиями');
plain('licenses', 'can_view_user_licenses', 'View user licences', 'Просмотр лицензий пользователей');
plain('licenses', 'can_edit_user_licenses', 'Edit user licences', 'Изменение лицензий пользователей');
scoped('licenses', 'can_view_self_domain_licenses', 'domain_licenses', 'view', 'domain', [
  'View licences of my groups',
  'Просмотр лицензий моих групп',
]);
scoped('licenses', 'can_view_descendant_domain_licenses', 'domain_licenses', 'view', 'descendants', [
  'View licences of my groups and below',
  'Просмотр лицензий моих и дочерних групп',
]);
scoped('licenses', 'can_view_all_domain_licenses', 'domain_licenses', 'view', 'all', [
  'View licences of all groups',
  'Просмотр лицензий всех групп',
]);
scoped('licenses', 'can_edit_self_domain_license_counts', 'domain_licenses', 'edit', 'domain', [
  'Edit licence counts of my groups',
  'Изменение количества лицензий моих групп',
]);
scoped('licenses', 'can_edit_descendant_domain_license_counts', 'domain_licenses', 'edit', 'descendants', [
  'Edit licence counts of my groups and below',
  'Изменение количества лицензий моих и дочерних групп',
]);
scoped('licenses', 'can_edit_all_domain_license_counts', 'domain_licenses', 'edit', 'all', [
  'Edit licence counts of all groups',
  'Изменение количества лицензий всех групп',
]);

// Amenities, reservations, reservation logs
fourScopes('amenities', 'amenities', 'amenities', ['amenities', 'удобства']);
fourScopes('amenities', 'amenity_reservations', 'amenity_reservations', ['reservations', 'бронирования']);
for (const scope of ['all', 'domain', 'descendants', 'own'] as const) {
  scoped('amenities', `can_view_${scope}_amenity_reservation_logs`, 'amenity_reservation_logs', 'view', scope, [
    `View reservation logs: ${SCOPE_LABEL[scope][0]}`,
    `Просмотр журнала бронирований: ${SCOPE_LABEL[scope][1]}`,
  ]);
}

// Other
plain('other', 'can_view_audit', 'View audit log', 'Просмотр журнала аудита');
plain('other', 'can_view_system_info', 'View system information', 'Просмотр информации о системе');
plain('other', 'can_view_access_control_events', 'View access control events', 'Просмотр событий СКУД');
plain('other', 'can_view_access_matrix', 'View access matrix', 'Просмотр матрицы доступа');
plain('other', 'can_view_licenses_used_report', 'View licences used report', 'Просмотр отчёта об использовании лицензий');
plain('other', 'can_call_all', 'Call everyone', 'Звонки всем');
plain('other', 'can_call_own_group', 'Call my groups', 'Звонки в свои группы');
plain('other', 'can_call_descendants', 'Call my groups and below', 'Звонки в свои и дочерние группы');
plain('other', 'can_call_panel', 'Call panels', 'Звонки на панели');
plain('other', 'can_intercept_calls', 'Intercept calls', 'Перехват вызовов');
plain('other', 'can_receive_calls_as_concierge', 'Receive calls as a concierge', 'Приём вызовов как консьерж');

/** Every permission, in catalogue order. */
export const PERMISSIONS: readonly PermissionDef[] = list;
/** Every permission code. */
export const PERMISSION_CODES: readonly string[] = list.map((p) => p.code);
const codeSet = new Set(PERMISSION_CODES);
/** True when `code` is in the catalogue. */
export const isPermissionCode = (code: string): boolean => codeSet.has(code);

/**
 * The scope variants a resource action has, as { scope → code }: frozen, and found once per resource
 * and action (every permission check of every request asks, and the catalogue is long).
 */
export function scopeCodes(resource: string, action: string): Readonly<Partial<Record<Scope, string>>> {
  const key = `${resource}\u0000${action}`;
  let out = scopeCodesByAction.get(key);
  if (!out) {
    const found: Partial<Record<Scope, string>> = {};
    for (const p of list) {
      if (p.resource === resource && p.action === action && p.scope) found[p.scope] = p.code;
    }
    out = Object.freeze(found);
    scopeCodesByAction.set(key, out);
  }
  return out;
}
const scopeCodesByAction = new Map<string, Readonly<Partial<Record<Scope, string>>>>();

/** A permission check is true only when the user exists and the role's list contains the code. */
export function hasPermission(permissions: readonly string[] | null | undefined, code: string): boolean {
  return !!permissions && permissions.includes(code);
}
