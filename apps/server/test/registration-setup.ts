import { eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { Actor, RequestContext } from '../src/core/context.js';
import type { RegistrationSettings } from '../src/modules/frontend/settings.service.js';
import { projects } from '../src/modules/projects/projects.table.js';
import { buildTestApp, type TestApp } from './helpers.js';
import { type SmtpPeer, startSmtpPeer } from './smtp-peer.js';

export const PUBLIC_URL = 'https://atrium.example';

export interface RegistrationTestbed {
  t: TestApp;
  peer: SmtpPeer;
  /** A public call from an IP of its own (rate limits are per IP). */
  call(method: 'GET' | 'POST', url: string, payload?: unknown, opts?: { ip?: string; lang?: string }): Promise<LightMyRequestResponse>;
  switches(v: Partial<RegistrationSettings>): Promise<void>;
  useSmtp(on: boolean): Promise<void>;
  adminContext(): RequestContext;
  close(): Promise<void>;
}

let ipSeq = 0;
/** A fresh address for calls that must not share a rate-limit window with others. */
export const freshIp = () => `10.${Math.floor(++ipSeq / 250) % 250}.${ipSeq % 250}.${7 + (process.pid % 200)}`;

/** An app whose first project sends mail to a real SMTP server on loopback. */
export async function registrationTestbed(): Promise<RegistrationTestbed> {
  // Its mail tests sign on through a provider on this machine.
  const t = await buildTestApp({ env: { PUBLIC_URL, SSO_ALLOW_PRIVATE: 'true' } });
  const peer = await startSmtpPeer();
  const db = t.app.database.db;
  const bed: RegistrationTestbed = {
    t,
    peer,
    call: (method, url, payload, opts = {}) =>
      t.app.inject({
        method,
        url: `/api/v0${url}`,
        ...(payload === undefined ? {} : { payload: payload as object }),
        headers: { 'x-forwarded-for': opts.ip ?? freshIp(), ...(opts.lang ? { 'accept-language': opts.lang } : {}) },
      }),
    async switches(v) {
      // The switches are project settings (general tab) of the server's default project.
      const r = { recovery: true, by_token: true, self: false, ...v };
      const value = { can_user_recovery_password: r.recovery, can_user_register_by_token: r.by_token, can_user_register_by_self: r.self };
      await db
        .update(projects)
        .set({ settings: sql`${projects.settings} || ${JSON.stringify(value)}::jsonb` })
        .where(eq(projects.id, t.project.projectId));
    },
    async useSmtp(on) {
      const smtp = {
        host: peer.host,
        port: peer.port,
        secure: false,
        user: peer.user,
        password: peer.password,
        from: 'noreply@atrium.example',
      };
      await db
        .update(projects)
        .set({
          settings: on
            ? sql`jsonb_set(${projects.settings}, '{smtp}', ${JSON.stringify(smtp)}::jsonb)`
            : sql`${projects.settings} - 'smtp'`,
        })
        .where(eq(projects.id, t.project.projectId));
    },
    adminContext() {
      const actor: Actor = {
        userId: t.project.adminId,
        projectId: t.project.projectId,
        login: t.adminLogin,
        roleId: t.project.roleId,
        permissions: new Set(),
        groupIds: [t.project.rootGroupId],
      };
      return { actor, ip: '127.0.0.1', requestId: 'test' };
    },
    async close() {
      await t.close();
      await peer.close();
    },
  };
  await bed.useSmtp(true);
  return bed;
}

/** The confirmation code of a self-registration mail, as written in it (XXXX-XXXX). */
export function codeIn(text: string): string {
  const m = /\b([A-Z2-9]{4}-[A-Z2-9]{4})\b/.exec(text);
  if (!m?.[1]) throw new Error(`no confirmation code in:\n${text}`);
  return m[1];
}

/** The secret at the end of the first link to `path` in a mail. */
export function linkSecret(text: string, path: string): string {
  const m = new RegExp(`${PUBLIC_URL.replaceAll('.', '\\.')}${path}/([A-Za-z0-9_-]+)`).exec(text);
  if (!m?.[1]) throw new Error(`no ${path} link in:\n${text}`);
  return m[1];
}
