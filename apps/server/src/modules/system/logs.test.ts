import { SYSTEM_LOG_CAPACITY } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { LogRing } from './log-ring.js';

// Recent logs of System info: the last lines this instance logged, filtered by level and text.
let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  // Warnings and above only: the test's own output stays short.
  t = await buildTestApp({ env: { LOG_LEVEL: 'warn' } });
  admin = await adminClient(t);
});
afterAll(() => t.close());

type Entry = { time: string; level: string; msg: string; request_id: string | null; fields: Record<string, unknown> };
const logs = async (query = '') => {
  const res = await admin.get(`/system/logs${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { items: Entry[]; held: number; capacity: number };
};

describe('GET /system/logs', () => {
  it('answers the lines logged, newest first, with level, message, request id and fields', async () => {
    const failed = await t.app.inject({
      method: 'POST',
      url: '/api/v0/login',
      payload: { login: 'log-probe-user', password: 'not-it' },
      headers: { 'x-forwarded-for': '198.51.100.61' },
    });
    expect(failed.statusCode).toBe(401);
    t.app.log.error({ component: 'probe' }, 'probe error line');
    const { items, held, capacity } = await logs();
    expect(capacity).toBe(SYSTEM_LOG_CAPACITY);
    expect(held).toBeGreaterThanOrEqual(2);
    expect(items[0]).toMatchObject({ level: 'error', msg: 'probe error line', fields: { component: 'probe' } });
    const signIn = items.find((e) => e.msg === 'sign-in failed');
    expect(signIn).toMatchObject({
      level: 'warn',
      request_id: failed.headers['x-request-id'],
      fields: { login: 'log-probe-user', ip: '198.51.100.61', reason: 'invalid_credentials' },
    });
    expect(Number.isNaN(Date.parse(items[0]!.time))).toBe(false);
  });

  it('filters by level (and above), by text in any case, and keeps to the limit', async () => {
    for (let i = 0; i < 5; i++) t.app.log.warn({ n: i }, `limit probe ${i}`);
    expect((await logs('?level=error')).items.every((e) => e.level === 'error' || e.level === 'fatal')).toBe(true);
    expect((await logs('?level=error')).items.length).toBeGreaterThan(0);
    const found = (await logs('?q=LIMIT%20PROBE')).items;
    expect(found.map((e) => e.msg)).toEqual(['limit probe 4', 'limit probe 3', 'limit probe 2', 'limit probe 1', 'limit probe 0']);
    expect((await logs('?q=limit%20probe&limit=2')).items.map((e) => e.msg)).toEqual(['limit probe 4', 'limit probe 3']);
    expect((await logs('?q=nothing-like-this')).items).toEqual([]);
  });

  it('never holds a secret: redacted before the line is written', async () => {
    t.app.log.warn({ user: { password: 'hunter2-secret' }, headers: { authorization: 'Bearer abc.def.ghi' } }, 'secret probe');
    const [entry] = (await logs('?q=secret%20probe')).items;
    expect(entry?.fields).toEqual({ user: { password: '[redacted]' }, headers: { authorization: '[redacted]' } });
    expect(JSON.stringify((await logs('?limit=2000')).items)).not.toContain('hunter2-secret');
  });

  it('refuses bad queries and callers without system info', async () => {
    for (const q of ['?level=loud', '?limit=0', `?limit=${SYSTEM_LOG_CAPACITY + 1}`, `?q=${'x'.repeat(201)}`]) {
      expect((await admin.get(`/system/logs${q}`)).statusCode, q).toBe(400);
    }
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_change_project_settings']);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    expect((await client(t.app, await login(t.app, u.login, u.password)).get('/system/logs')).statusCode).toBe(403);
  });
});

describe('LogRing', () => {
  it('keeps the last lines only, in order, and skips what is not a log line', () => {
    const ring = new LogRing(3, null);
    for (let i = 1; i <= 5; i++) ring.write(`${JSON.stringify({ level: 30, time: i, msg: `line ${i}` })}\n`);
    ring.write('not json\n');
    expect(ring.held).toBe(3);
    expect(ring.read({ limit: 10 }).map((e) => [e.seq, e.msg])).toEqual([
      [5, 'line 5'],
      [4, 'line 4'],
    ]);
    expect(ring.read({ limit: 10, level: 'warn' })).toEqual([]);
  });
});
