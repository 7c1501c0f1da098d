import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { type AppInstance, buildApp, partsStopping } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Database, openDatabase } from '../src/core/db/client.js';
import { makeRole, makeUser } from './factories/user.factory.js';

/** A fresh database for one test file: in-memory PGlite, or a clone of the migrated PostgreSQL template. */
export async function freshDatabase(timeouts: { statementTimeoutMs?: number; acquireTimeoutMs?: number } = {}): Promise<Database> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const dump = inject('pgliteDump');
    return openDatabase({ dataDir: 'memory://', ...(dump ? { pgliteDump: new Blob([readFileSync(dump)]) } : {}) });
  }
  const base = new URL(url);
  const template = base.pathname.slice(1);
  const name = `${template}_f${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  base.pathname = `/${name}`;
  return openDatabase({ databaseUrl: base.toString(), poolSize: 5, ...timeouts });
}

export interface TestApp {
  app: AppInstance;
  database: Database;
  /** The first project, made with an administrator holding every permission. */
  project: { projectId: number; adminId: number; roleId: number; rootGroupId: number };
  adminLogin: string;
  adminPassword: string;
  close(): Promise<void>;
}

export async function buildTestApp(opts: { database?: Database; env?: Record<string, string> } = {}): Promise<TestApp> {
  const database = opts.database ?? (await freshDatabase());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    JWT_SECRET: 'test-secret-test-secret-test-secret-42',
    // Tests vary the caller's IP with X-Forwarded-For; TRUST_PROXY: '' gives the production default.
    TRUST_PROXY: 'true',
    ...opts.env,
  });
  const app = await buildApp({ config, database, serveWeb: false });
  await app.ready();
  const adminLogin = 'admin';
  const adminPassword = 'admin-password-1';
  const project = await app.services.projects.createProject({ name: 'Test project', adminLogin, adminName: 'Admin', adminPassword });
  return {
    app,
    database,
    project,
    adminLogin,
    adminPassword,
    async close() {
      const slow = setTimeout(() => {
        const handles = (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles().map((h) => h.constructor.name);
        const parts = [...(partsStopping.get(app) ?? [])].join(', ') || 'none (the HTTP server itself)';
        console.warn(`test app: still closing after 15 s; stopping: ${parts}; open handles: ${handles.join(', ')}`);
      }, 15_000);
      await app.close().finally(() => clearTimeout(slow));
      if (!opts.database) await database.close();
    },
  };
}

/** Signs in and answers the first session's access token. */
export async function login(app: AppInstance, loginName: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: loginName, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json().data.sessions[0].token as string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A client signed in as the test project's administrator (every permission). */
export async function adminClient(t: TestApp): Promise<ReturnType<typeof client>> {
  return client(t.app, await login(t.app, t.adminLogin, t.adminPassword));
}

/** A client signed in as a new member of the test project with exactly these permissions, in these groups. */
export async function memberClient(t: TestApp, permissions: string[], groupIds: number[]): Promise<ReturnType<typeof client>> {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds });
  return client(t.app, await login(t.app, u.login, u.password));
}

/** A small client bound to one token: `await api.get('/profile')`. */
export function client(app: AppInstance, token?: string) {
  const call = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    app.inject({
      method,
      url: `/api/v0${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  return {
    get: (url: string) => call('GET', url),
    post: (url: string, body?: unknown) => call('POST', url, body ?? {}),
    put: (url: string, body?: unknown) => call('PUT', url, body ?? {}),
    patch: (url: string, body?: unknown) => call('PATCH', url, body ?? {}),
    delete: (url: string) => call('DELETE', url),
    raw: call,
  };
}
