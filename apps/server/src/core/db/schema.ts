// Every table, for drizzle's typed queries and for drizzle-kit's migration generator.
export * from '../../modules/access/access.table.js';
export * from '../../modules/audit/audit.table.js';
export * from '../../modules/auth/auth.table.js';
export * from '../../modules/devices/devices.table.js';
export * from '../../modules/elevators/elevators.table.js';
export * from '../../modules/groups/groups.table.js';
export * from '../../modules/markers/markers.table.js';
export * from '../../modules/notifications/notifications.table.js';
export * from '../../modules/projects/projects.table.js';
export * from '../../modules/registration/registration.table.js';
export * from '../../modules/roles/roles.table.js';
export * from '../../modules/system/instances.table.js';
export * from '../../modules/telephony/telephony.table.js';
export * from '../../modules/users/users.table.js';
