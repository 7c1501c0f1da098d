import { z } from 'zod';

/** Realtime topics (ARCHITECTURE §6). */
export const topics = {
  user: (userId: number) => `private-user.${userId}`,
  appChanges: (projectId: number) => `private-app-changes.${projectId}`,
  callsManagement: (number: string) => `calls-management.${number}`,
};
/** The console subscribes `private-app-changes`; the server scopes it to the caller's project. */
export const APP_CHANGES_TOPIC = 'private-app-changes';

export const REALTIME_EVENTS = { notification: 'notification', roleChanged: 'role-changed', callUpdated: 'CallUpdated' } as const;

export const ClientCommandSchema = z.object({
  command: z.enum(['subscribe', 'unsubscribe', 'publish', 'ping']),
  topic: z.string().max(200).optional(),
  event: z.string().max(100).optional(),
  data: z.unknown().optional(),
});
export type ClientCommand = z.infer<typeof ClientCommandSchema>;

export interface ServerMessage {
  topic: string;
  event: string;
  data: unknown;
}

export const HEARTBEAT_MS = 25_000;

/**
 * Data of `role-changed` (REALTIME_EVENTS.roleChanged) on a user's private topic (`topics.user(id)`):
 * that user holds another role now, or none. It names no `roleId` on purpose: a console reloads its
 * profile on a role-changed without one, whatever role it holds; on the app-changes topic
 * `{ roleId }` names the role whose permissions changed, and only its holders reload.
 */
export const UserRoleChangedSchema = z.object({
  userId: z.number().int(),
  previousRoleId: z.number().int().nullable(),
  newRoleId: z.number().int().nullable(),
});
export type UserRoleChanged = z.infer<typeof UserRoleChangedSchema>;
