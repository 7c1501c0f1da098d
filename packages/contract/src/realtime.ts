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

/** Largest `data` a client may publish, in bytes of its JSON text. */
export const CLIENT_PUBLISH_MAX_BYTES = 4096;

/**
 * Topics a client may publish on. The spec names the publish command but no topic the console
 * publishes to, and every topic it does name is the server's (a user's notifications, app changes,
 * CallUpdated on calls-management): so none yet, and any publish is answered `action prohibited`.
 */
export const CLIENT_PUBLISH_TOPICS: readonly RegExp[] = [];

/** Whether a client may publish on `topic` (see CLIENT_PUBLISH_TOPICS). */
export const mayClientPublish = (topic: string): boolean => CLIENT_PUBLISH_TOPICS.some((pattern) => pattern.test(topic));

const jsonBytes = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value) ?? '').length;

export const ClientCommandSchema = z.object({
  command: z.enum(['subscribe', 'unsubscribe', 'publish', 'ping']),
  topic: z.string().max(200).optional(),
  event: z.string().max(100).optional(),
  data: z
    .unknown()
    .optional()
    .refine((data) => data === undefined || jsonBytes(data) <= CLIENT_PUBLISH_MAX_BYTES, {
      message: `at most ${CLIENT_PUBLISH_MAX_BYTES} bytes`,
    }),
});
export type ClientCommand = z.infer<typeof ClientCommandSchema>;

export interface ServerMessage {
  topic: string;
  event: string;
  data: unknown;
}

export const HEARTBEAT_MS = 25_000;

/**
 * Close codes of a socket whose sign-in ended: the token expired (connect again with a fresh one),
 * or the session did (the user was deleted or signed out).
 */
export const REALTIME_CLOSE = {
  tokenExpired: { code: 4001, reason: 'token expired' },
  sessionEnded: { code: 4003, reason: 'session ended' },
} as const;

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
