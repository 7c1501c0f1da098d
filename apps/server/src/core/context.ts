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
  /**
   * Set when the call is made with an API key (issue 14, modules/api-keys): the key acts as its
   * creator, with the key's role and groups; audit rows name the key.
   */
  apiKeyId?: number;
}

/** What every service call needs to know about the request it serves. */
export interface RequestContext {
  actor: Actor;
  ip: string;
  requestId: string;
}

export const can = (actor: Actor, code: string): boolean => actor.permissions.has(code);

export type { Db };
