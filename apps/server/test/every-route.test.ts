// Every route of the API, as its OpenAPI document lists it: a signed-out caller is refused wherever
// a token is needed, a bad token too, and a foreign-project id is never found. New routes are
// covered without editing this file.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../src/modules/audit/audit.table.js';
import { makeUser } from './factories/user.factory.js';
import { buildTestApp, type TestApp } from './helpers.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Route {
  method: Method;
  path: string;
  isPublic: boolean;
}

let t: TestApp;
let routes: Route[];
beforeAll(async () => {
  t = await buildTestApp();
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase() as Method,
      // Any path parameter: an id, a code, a file.
      path: `/api/v0${path.replace(/\{\*\}/g, 'x/y.png').replace(/\{[^}]+\}/g, '1')}`,
      isPublic: Array.isArray(op.security) && op.security.length === 0,
    })),
  );
});
afterAll(() => t?.close());

const call = (r: Route, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: r.method,
    url: r.path,
    headers: { 'content-type': 'application/json', ...headers },
    payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : '{}',
  });

// Each case calls every route (hundreds, and for odd queries thousands of requests): minutes on a busy machine, not seconds.
describe('every API route', { timeout: 240_000 }, () => {
  it('is listed in the OpenAPI document, signed-in and public ones alike', () => {
    expect(routes.length).toBeGreaterThan(50);
    expect(routes.filter((r) => r.isPublic).map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /api/v0/login', 'GET /api/v0/info', 'GET /api/v0/countries', 'POST /api/v0/password/recovery']),
    );
    expect(routes.find((r) => r.path === '/api/v0/profile' && r.method === 'GET')?.isPublic).toBe(false);
  });

  it('answers 401 "unauthenticated" to a caller without a token, and with a forged one, unless it is public', async () => {
    const forged = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwicHJqIjoxLCJleHAiOjk5OTk5OTk5OTl9.c2lnbmF0dXJlLW9mLW5vYm9keQ';
    const wrong: string[] = [];
    for (const r of routes.filter((x) => !x.isPublic)) {
      const variants: Record<string, string>[] = [{}, { authorization: `Bearer ${forged}` }, { authorization: 'Basic YWRtaW46YWRtaW4=' }];
      for (const headers of variants) {
        const res = await call(r, headers);
        if (res.statusCode !== 401 || res.json().message !== 'unauthenticated') wrong.push(`${r.method} ${r.path} → ${res.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('lets a signed-out caller reach the public routes (never 401 or 500)', async () => {
    const wrong: string[] = [];
    for (const r of routes.filter((x) => x.isPublic)) {
      const res = await call(r);
      if (res.statusCode === 401 || res.statusCode >= 500) wrong.push(`${r.method} ${r.path} → ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    ['the administrator', 'admin'],
    ['a member without any permission', 'member'],
  ])('never answers a 500 to %s sending an empty or malformed body, and audits every change that succeeds', async (_who, who) => {
    const member =
      who === 'member' ? await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] }) : null;
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v0/login',
      payload: member ? { login: member.login, password: member.password } : { login: t.adminLogin, password: t.adminPassword },
    });
    const token = login.json().data.sessions[0].token as string;
    const wrong: string[] = [];
    // Not the calls that end the caller's own session or account.
    const skip = new Set(['POST /api/v0/logout', 'DELETE /api/v0/account']);
    for (const r of routes.filter((x) => !skip.has(`${x.method} ${x.path}`))) {
      for (const payload of ['{}', '[]', '{"name":{"$gt":""},"id":"1; DROP TABLE users"}', 'not json']) {
        const res = await t.app.inject({
          method: r.method,
          url: r.path,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : payload,
        });
        if (res.statusCode >= 500) wrong.push(`${r.method} ${r.path} ${payload} → ${res.statusCode} ${res.body.slice(0, 120)}`);
        // Every call that changed something (a 2xx to anything but a read) leaves an audit row.
        if (r.method !== 'GET' && res.statusCode < 300) {
          const rows = await t.app.database.db
            .select({ id: auditEvents.id })
            .from(auditEvents)
            .where(eq(auditEvents.requestId, String(res.headers['x-request-id'])));
          if (!rows.length) wrong.push(`${r.method} ${r.path} ${payload} → ${res.statusCode} without an audit row`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('never answers a 500 to odd query strings on any read', async () => {
    const token = (
      await t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login: t.adminLogin, password: t.adminPassword } })
    ).json().data.sessions[0].token as string;
    const queries = [
      'page=0',
      'page=-1',
      'page=abc',
      'page=99999999999',
      'size=0',
      'size=100000',
      'sort=%3BDROP%20TABLE%20users',
      'sort=-,-',
      'sort=__proto__',
      'filters=%7Bbad',
      'filters=%5B%5D',
      `filters=${encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'id', operator: 'above', value: 'x' }] }))}`,
      `filters=${encodeURIComponent(JSON.stringify({ match: 'nope', rules: [{ field: 'name', operator: 'like', value: 1 }] }))}`,
      'with=nope',
      'with=__proto__,constructor',
      'id=abc',
      'search=%25_%5C',
      'branch=-5',
      'offset=-1&limit=100000',
      'page=1&page=2',
    ];
    const wrong: string[] = [];
    for (const r of routes.filter((x) => x.method === 'GET')) {
      for (const q of queries) {
        const res = await t.app.inject({ method: 'GET', url: `${r.path}?${q}`, headers: { authorization: `Bearer ${token}` } });
        if (res.statusCode >= 500) wrong.push(`GET ${r.path}?${q} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
