import type { Db } from './db/client.js';

/** Who is calling: loaded per request from the access token, the user row and the role. */
export interface Actor {
  userId: number;
  projectId: number;
  login: string;
  roleId: number | null;
  permissions: ReadonlySet<string>;
  /** The groups the user belongs to directly. */
  groupIds: readonly number[];
  /** The sign-in (refresh token family) the access token was issued for, when the token names one. */
  sessionId?: string;
}

/** What every service call needs to know about the request it serves. */
export interface RequestContext {
  actor: Actor;
  ip: string;
  requestId: string;
}

export const can = (actor: Actor, code: string): boolean => actor.permissions.has(code);

export type { Db };
