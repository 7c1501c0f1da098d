// The SIP seam without SIP traffic: where the directory sends a call (call rules, forward modes,
// forward rule groups with their schedule, trunks, interception, SOS) and what the recorder makes
// of the proxy's events (records, history, CallUpdated, the door opened by '#').
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import type { SipInviteInfo, SipRoute } from '../../sip/types.js';
import { CallRecorder } from './call-recorder.js';
import { TelephonyDirectory, zonedDayAndSecond } from './sip-directory.js';
import { telephonyOf } from './telephony.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
const PW = 'Secret123abc';
const n = {} as Record<'resident' | 'resident2' | 'concierge' | 'stranger' | 'panel' | 'neighbour' | 'operator', string>;
const ids = {} as Record<'resident' | 'concierge' | 'panelDevice' | 'building' | 'flat' | 'other', number>;
const numberIds = {} as Record<'resident' | 'neighbour', number>;

async function user(permissions: string[], groupIds: number[], name: string) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  return makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds, name });
}
async function number(value: string, body: Record<string, unknown>) {
  const res = await admin.put('/sip-numbers', { number: value, password: PW, domain_id: t.project.rootGroupId, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { id: number; number: string };
}

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  const root = t.project.rootGroupId;
  ids.building = await makeGroup(t.database.db, t.project.projectId, root, 'Building');
  ids.flat = await makeGroup(t.database.db, t.project.projectId, ids.building, 'Flat 12');
  ids.other = await makeGroup(t.database.db, t.project.projectId, root, 'Other building');
  const resident = await user(['can_call_own_group'], [ids.flat], 'Rita Resident');
  const neighbour = await user(['can_call_own_group'], [ids.flat], 'Ned Neighbour');
  const concierge = await user(['can_receive_calls_as_concierge', 'can_call_all', 'can_call_panel'], [ids.building], 'Connie Concierge');
  const stranger = await user(['can_call_own_group'], [ids.other], 'Sam Stranger');
  const operator = await user(['can_intercept_calls'], [ids.building], 'Oscar Operator');
  ids.resident = resident.id;
  ids.concierge = concierge.id;
  const panel = (
    await admin.put('/devices', { name: 'Entrance', model: 'AP-100', serial_number: 'DIR-PANEL', domain_id: ids.building })
  ).json().data;
  ids.panelDevice = panel.id;
  const r = await number('2001', { user_id: resident.id, domain_id: ids.flat });
  numberIds.resident = r.id;
  n.resident = r.number;
  n.resident2 = (await number('2002', { user_id: resident.id, domain_id: ids.flat })).number;
  const nb = await number('2003', { user_id: neighbour.id, domain_id: ids.flat });
  numberIds.neighbour = nb.id;
  n.neighbour = nb.number;
  n.concierge = (await number('2100', { user_id: concierge.id, domain_id: ids.building })).number;
  n.stranger = (await number('2200', { user_id: stranger.id, domain_id: ids.other })).number;
  n.panel = (await number('2300', { device_id: panel.id, domain_id: ids.building })).number;
  n.operator = (await number('2400', { user_id: operator.id, domain_id: ids.building })).number;
});
afterAll(async () => {
  await t.close();
});

const invite = (caller: string, callee: string, headers: Record<string, string> = {}): SipInviteInfo => ({
  caller,
  callee,
  headers,
  callId: `call-${caller}-${callee}`,
});
const route = (caller: string, callee: string, headers: Record<string, string> = {}) =>
  telephonyOf(t.app).directory.route(invite(caller, callee, headers));
const stagesOf = (r: SipRoute) => {
  if (r.kind !== 'fork') throw new Error(`expected a fork, got ${JSON.stringify(r)}`);
  return r.stages.map((s) => ({
    reason: s.reason,
    timeout: s.timeoutSeconds,
    targets: s.targets.map((x) => (x.kind === 'number' ? x.number : `trunk:${x.number}@${x.trunk.terminationUri}`)),
  }));
};

describe('the SIP directory', () => {
  it('refuses unknown callers, one’s own number, oneself and callees the call rules forbid', async () => {
    expect(await route('9999', n.concierge)).toEqual({ kind: 'reject', status: 403, reason: 'Forbidden' });
    expect(await route(n.resident, n.resident)).toEqual({ kind: 'reject', status: 403, reason: 'Unable to call your number' });
    expect(await route(n.resident, n.resident2)).toEqual({ kind: 'reject', status: 403, reason: 'User cannot communicate with himself' });
    expect(await route(n.resident, n.stranger)).toEqual({ kind: 'reject', status: 403, reason: 'Forbidden' });
    expect(await route(n.resident, n.panel)).toEqual({ kind: 'reject', status: 403, reason: 'Forbidden' });
    expect(await route(n.stranger, n.resident)).toEqual({ kind: 'reject', status: 403, reason: 'Forbidden' });
    expect(await route(n.resident, '555')).toEqual({ kind: 'reject', status: 404, reason: 'Not Found' });
  });

  it('lets a resident call their group and a concierge above it, a panel call its building, a concierge call panels', async () => {
    expect(stagesOf(await route(n.resident, n.neighbour))).toEqual([{ reason: 'initial', timeout: null, targets: [n.neighbour] }]);
    expect(stagesOf(await route(n.resident, n.concierge))).toEqual([{ reason: 'initial', timeout: null, targets: [n.concierge] }]);
    expect(stagesOf(await route(n.panel, n.resident))).toEqual([{ reason: 'initial', timeout: null, targets: [n.resident] }]);
    expect(stagesOf(await route(n.panel, n.concierge))).toEqual([{ reason: 'initial', timeout: null, targets: [n.concierge] }]);
    expect(stagesOf(await route(n.concierge, n.panel))).toEqual([{ reason: 'initial', timeout: null, targets: [n.panel] }]);
    expect(await route(n.panel, n.stranger)).toMatchObject({ kind: 'reject', status: 403 });
  });

  it('marks SOS calls from the X-Sos-Call header', async () => {
    expect(await route(n.panel, n.concierge, { 'x-sos-call': '1' })).toMatchObject({ kind: 'fork', sos: true, callee: n.concierge });
    expect(await route(n.panel, n.concierge, { 'x-sos-call': 'false' })).toMatchObject({ kind: 'fork', sos: false });
  });

  it('forwards by the number’s own rules: no answer after 10 s by default, and on error', async () => {
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, {
      forward_mode: 'manual',
      forward_rules: { redirect_if_no_answer: { numbers: [n.concierge] }, redirect_if_error: { numbers: [n.operator] } },
    });
    expect(stagesOf(await route(n.resident, n.neighbour))).toEqual([
      { reason: 'initial', timeout: 10, targets: [n.neighbour] },
      { reason: 'no_answer', timeout: null, targets: [n.concierge] },
      { reason: 'error', timeout: null, targets: [n.operator] },
    ]);
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, {
      forward_rules: { redirect_if_no_answer: { timeout: 25, numbers: [n.concierge, n.resident] }, redirect_if_error: null },
    });
    // The caller is never rung by its own forward.
    expect(stagesOf(await route(n.resident, n.neighbour))).toEqual([
      { reason: 'initial', timeout: 25, targets: [n.neighbour] },
      { reason: 'no_answer', timeout: null, targets: [n.concierge] },
    ]);
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, { forward_mode: 'disabled' });
    expect(stagesOf(await route(n.resident, n.neighbour))).toEqual([{ reason: 'initial', timeout: null, targets: [n.neighbour] }]);
  });

  it('rings a forward rule group in parallel within its days and hours, its outside numbers through its trunk', async () => {
    const trunk = (
      await admin.put('/sip-trunks', {
        name: 'City',
        outgoing_number: '+442079460958',
        termination_uri: 'sip:trunk.example.net',
        domains: [ids.building],
      })
    ).json().data;
    const group = await admin.put('/forward-rules', {
      name: 'Weekday desk',
      domain_id: ids.building,
      params: {
        numbers: [n.concierge, n.operator],
        days: ['mon', 'tue', 'wed', 'thu', 'fri'],
        period: { from: 9 * 3600, to: 18 * 3600 },
        trunk_numbers: ['+442079460959'],
        trunk_id: trunk.id,
      },
      forward_rules: { redirect_if_no_answer: { numbers: ['+442079460960'] } },
    });
    expect(group.statusCode, group.body).toBe(200);
    await admin.patch(`/sip-numbers/${numberIds.resident}`, { forward_mode: 'picked', forward_group_id: group.json().data.id });
    const at = (iso: string) => new TelephonyDirectory(t.database.db, () => new Date(iso));
    // Wednesday 10:00 UTC: inside; the group's 60 s give way to the no-answer rule's 10 s.
    expect(stagesOf(await at('2026-11-25T10:00:00Z').route(invite(n.neighbour, n.resident)))).toEqual([
      {
        reason: 'initial',
        timeout: 10,
        targets: [n.resident, n.concierge, n.operator, 'trunk:+442079460959@sip:trunk.example.net'],
      },
      { reason: 'no_answer', timeout: null, targets: ['trunk:+442079460960@sip:trunk.example.net'] },
    ]);
    // Saturday, and Wednesday evening: outside, the number rings alone.
    for (const when of ['2026-11-28T10:00:00Z', '2026-11-25T19:00:00Z']) {
      expect(stagesOf(await at(when).route(invite(n.neighbour, n.resident)))).toEqual([
        { reason: 'initial', timeout: null, targets: [n.resident] },
      ]);
    }
    // Without its own rules the group rings for its timeout (default 60 s).
    await admin.patch(`/forward-rules/${group.json().data.id}`, { forward_rules: { redirect_if_no_answer: null } });
    expect(stagesOf(await at('2026-11-25T10:00:00Z').route(invite(n.neighbour, n.resident)))[0]?.timeout).toBe(60);
    // The project's time zone decides the day and hour.
    await t.database.db.execute(
      sql`UPDATE projects SET settings = settings || '{"time_zone": "Asia/Tokyo"}'::jsonb WHERE id = ${t.project.projectId}`,
    );
    expect(stagesOf(await at('2026-11-25T10:00:00Z').route(invite(n.neighbour, n.resident)))[0]?.targets).toEqual([n.resident]);
    await t.database.db.execute(sql`UPDATE projects SET settings = settings - 'time_zone' WHERE id = ${t.project.projectId}`);
    await admin.patch(`/sip-numbers/${numberIds.resident}`, { forward_mode: 'disabled' });

    // A dialled outside number goes through a trunk of the caller's groups; a caller with none reaches nobody.
    expect(stagesOf(await route(n.resident, '+442079460961'))).toEqual([
      { reason: 'initial', timeout: null, targets: ['trunk:+442079460961@sip:trunk.example.net'] },
    ]);
    const r = await route(n.resident, '+442079460961');
    expect(r.kind === 'fork' && r.stages[0]?.targets[0]).toMatchObject({ trunk: { id: trunk.id, outgoingNumber: '+442079460958' } });
    expect(await route(n.stranger, '+442079460961')).toEqual({ kind: 'reject', status: 404, reason: 'Not Found' });
  });

  it('rings an intercepting operator with the callee, and nobody once interception is off', async () => {
    const [op] = await queryRows<{ id: number }>(t.database.db, sql`SELECT user_id AS id FROM sip_numbers WHERE number = ${n.operator}`);
    const set = (active: boolean) =>
      t.database.db.execute(sql`INSERT INTO call_interceptions (user_id, project_id, is_active, group_ids)
        VALUES (${op!.id}, ${t.project.projectId}, ${active}, ${`{${ids.flat}}`}::int[])
        ON CONFLICT (user_id) DO UPDATE SET is_active = EXCLUDED.is_active`);
    await set(true);
    // A write outside the API reaches the directory's kept routes through the change feed: on
    // PostgreSQL a moment after it commits.
    await expect
      .poll(async () => stagesOf(await route(n.panel, n.resident)))
      .toEqual([{ reason: 'initial', timeout: null, targets: [n.resident, n.operator] }]);
    // Not for calls to the other groups.
    expect(stagesOf(await route(n.panel, n.concierge))).toEqual([{ reason: 'initial', timeout: null, targets: [n.concierge] }]);
    await set(false);
    await expect
      .poll(async () => stagesOf(await route(n.panel, n.resident)))
      .toEqual([{ reason: 'initial', timeout: null, targets: [n.resident] }]);
  });

  it('sends an inactive number’s callers away', async () => {
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, { is_active: false });
    expect(await route(n.resident, n.neighbour)).toEqual({ kind: 'reject', status: 480, reason: 'Temporarily Unavailable' });
    expect(await route(n.neighbour, n.resident)).toEqual({ kind: 'reject', status: 403, reason: 'Forbidden' });
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, { is_active: true });
  });

  it('keeps secrets and routes in memory until something changes, and hands each call its own copy', async () => {
    const directory = telephonyOf(t.app).directory;
    expect(await directory.credentials(n.neighbour)).toEqual({ password: PW });
    expect(await directory.credentials(n.neighbour)).toEqual({ password: PW });
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, { password: 'Changed123abc' });
    expect(await directory.credentials(n.neighbour)).toEqual({ password: 'Changed123abc' });
    await admin.patch(`/sip-numbers/${numberIds.neighbour}`, { password: PW });
    const first = await route(n.panel, n.concierge, { 'x-sos-call': '1' });
    if (first.kind === 'fork') first.stages.length = 0;
    expect(await route(n.panel, n.concierge)).toMatchObject({ kind: 'fork', sos: false, stages: [{ targets: [{ number: n.concierge }] }] });
  });

  it('names a number by its owner: the user, the device, else nobody', async () => {
    const directory = telephonyOf(t.app).directory;
    expect(await directory.callerName(n.resident)).toBe('Rita Resident');
    expect(await directory.callerName(n.panel)).toBe('Entrance');
    expect(await directory.callerName('9999')).toBeNull();
  });

  it('knows a trunk’s peer by the transport, address and port of its termination URI', async () => {
    const directory = telephonyOf(t.app).directory;
    const made: number[] = [];
    for (const [name, uri] of [
      ['Plain', 'sip:192.0.2.5'],
      ['Over TLS', 'sips:192.0.2.6'],
      ['Over TCP', 'sip:192.0.2.7:5080;transport=tcp'],
    ] as const) {
      const res = await admin.put('/sip-trunks', { name, outgoing_number: '+442079460900', termination_uri: uri, domains: [ids.other] });
      expect(res.statusCode, res.body).toBe(200);
      made.push(res.json().data.id);
    }
    const [plain, tls, tcp] = made;
    expect(await directory.trunkPeer({ transport: 'udp', address: '192.0.2.5', port: 5060 })).toBe(plain);
    expect(await directory.trunkPeer({ transport: 'udp', address: '::ffff:192.0.2.5', port: 5060 })).toBe(plain);
    // The same host from another port, or over another transport, is someone else.
    expect(await directory.trunkPeer({ transport: 'udp', address: '192.0.2.5', port: 5062 })).toBeNull();
    expect(await directory.trunkPeer({ transport: 'tcp', address: '192.0.2.5', port: 5060 })).toBeNull();
    expect(await directory.trunkPeer({ transport: 'tls', address: '192.0.2.6', port: 5061 })).toBe(tls);
    expect(await directory.trunkPeer({ transport: 'udp', address: '192.0.2.6', port: 5060 })).toBeNull();
    expect(await directory.trunkPeer({ transport: 'tcp', address: '192.0.2.7', port: 5080 })).toBe(tcp);
    expect(await directory.trunkPeer({ transport: 'udp', address: '192.0.2.7', port: 5080 })).toBeNull();
    for (const id of made) expect((await admin.delete(`/sip-trunks/${id}`)).statusCode).toBe(200);
  });

  it('reads the secrets of numbers registering at once in one query, and their callers in one more', async () => {
    let queries = 0;
    const db = t.database.db;
    const counting = {
      execute: (q: Parameters<typeof db.execute>[0]) => {
        queries++;
        return db.execute(q);
      },
    } as unknown as typeof db;
    // A read cache that never changes: what was read stays kept.
    const directory = new TelephonyDirectory(counting, undefined, { begin: () => 0 });
    const asked = [n.resident, n.resident2, n.neighbour, n.concierge, n.stranger, n.panel, n.operator, '9999', n.resident];
    const secrets = await Promise.all(asked.map((number) => directory.credentials(number)));
    expect(secrets).toEqual(asked.map((number) => (number === '9999' ? null : { password: PW })));
    expect(queries).toBe(1);
    // Each number that registered has its caller row read too, off the REGISTER's path.
    const end = Date.now() + 5000;
    while (queries < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    expect(queries).toBe(2);
    // The callers are kept: a call between them reads the callee and its interceptors only.
    expect(stagesOf(await directory.route(invite(n.resident, n.neighbour)))).toEqual([
      { reason: 'initial', timeout: null, targets: [n.neighbour] },
    ]);
    expect(queries).toBe(4);
  });

  it('reads the day and second in a time zone', () => {
    expect(zonedDayAndSecond(new Date('2026-11-23T00:00:30Z'), null)).toEqual({ day: 'mon', second: 30 });
    expect(zonedDayAndSecond(new Date('2026-11-23T00:00:30Z'), 'America/New_York')).toEqual({ day: 'sun', second: 19 * 3600 + 30 });
    expect(zonedDayAndSecond(new Date('2026-11-23T00:00:30Z'), 'Not/AZone')).toEqual({ day: 'mon', second: 30 });
  });
});

describe('the call recorder', () => {
  it('records a panel’s call to a concierge, tells each party, opens the door on #, and keeps the history', async () => {
    const published: { topic: string; data: { status: string; type: string; answered_by: string | null }; audience: unknown }[] = [];
    const opened: number[] = [];
    const recorder = new CallRecorder(t.database.db, {
      publish: async (_p, topic, _e, data, audience) => {
        published.push({ topic, data: data as never, audience });
      },
      openLock: async (deviceId) => {
        opened.push(deviceId);
      },
    });
    const at = Date.parse('2026-11-23T12:00:00Z');
    recorder.onCallEvent({ type: 'created', callId: 'rec-1', caller: n.panel, callee: n.concierge, sos: false, speechId: null, at });
    recorder.onCallEvent({ type: 'ringing', callId: 'rec-1', numbers: [n.concierge, n.operator], at: at + 50 });
    recorder.onCallEvent({ type: 'answered', callId: 'rec-1', by: `${n.concierge}-abc`, at: at + 5000 });
    await recorder.flush();
    // A concierge's calls queue (awaiting); each user party hears it on their own number's topic, the panel on none.
    const last = published.filter((p) => p.topic === `calls-management.${n.concierge}`).at(-1);
    expect(last?.data).toMatchObject({ status: 'answered', type: 'awaiting', answered_by: n.concierge });
    expect(last?.audience).toEqual({ users: [ids.concierge] });
    expect(published.some((p) => p.topic === `calls-management.${n.operator}`)).toBe(true);
    expect(published.some((p) => p.topic === `calls-management.${n.panel}`)).toBe(false);
    // Created and ringing before anything was written: one row, written 'calling' at once.
    expect(published[0]).toMatchObject({ topic: `calls-management.${n.concierge}`, data: { status: 'calling' } });

    recorder.onCallEvent({ type: 'dtmf', callId: 'rec-1', from: n.concierge, digit: '5', at: at + 6000 });
    recorder.onCallEvent({ type: 'dtmf', callId: 'rec-1', from: n.panel, digit: '#', at: at + 6500 });
    recorder.onCallEvent({ type: 'dtmf', callId: 'rec-1', from: n.stranger, digit: '#', at: at + 6600 });
    await recorder.flush();
    expect(opened).toEqual([]);
    recorder.onCallEvent({ type: 'dtmf', callId: 'rec-1', from: n.concierge, digit: '#', at: at + 7000 });
    await recorder.flush();
    expect(opened).toEqual([ids.panelDevice]);

    recorder.onCallEvent({ type: 'ended', callId: 'rec-1', outcome: 'answered', status: null, at: at + 65_000 });
    recorder.onCallEvent({ type: 'created', callId: 'rec-2', caller: n.resident, callee: n.neighbour, sos: true, speechId: 'sp-2', at });
    recorder.onCallEvent({ type: 'ended', callId: 'rec-2', outcome: 'busy', status: 486, at: at + 2000 });
    await recorder.flush();
    const history = await queryRows<{
      call_id: string;
      status: string;
      duration: number;
      from_name: string;
      to_name: string;
      type: string;
      sos: boolean;
    }>(t.database.db, sql`SELECT call_id, status, duration, from_name, to_name, type, sos FROM call_history ORDER BY id`);
    expect(history).toEqual([
      expect.objectContaining({
        status: 'answered',
        duration: 60,
        from_name: 'Entrance',
        to_name: 'Connie Concierge',
        type: 'awaiting',
        sos: false,
      }),
      expect.objectContaining({ call_id: 'sp-2', status: 'busy', duration: 0, from_name: 'Rita Resident', type: 'normal', sos: true }),
    ]);
    const [rec] = await queryRows<{ status: string }>(t.database.db, sql`SELECT status FROM call_records WHERE sip_call_id = 'rec-1'`);
    expect(rec?.status).toBe('destroyed');
    // A speech id used before keeps both calls apart.
    recorder.onCallEvent({ type: 'created', callId: 'rec-4', caller: n.resident, callee: n.neighbour, sos: false, speechId: 'sp-2', at });
    await recorder.flush();
    const [again] = await queryRows<{ id: string }>(t.database.db, sql`SELECT id FROM call_records WHERE sip_call_id = 'rec-4'`);
    expect(again?.id).toBe('sp-2:rec-4');
    // Events of unknown calls and numbers are ignored, not thrown.
    recorder.onCallEvent({ type: 'ringing', callId: 'nope', numbers: ['1'], at });
    recorder.onCallEvent({ type: 'created', callId: 'nope', caller: '1', callee: '2', sos: false, speechId: null, at });
    await recorder.flush();
  });

  it('queues open_lock on the panel through the app’s recorder', async () => {
    const { recorder } = telephonyOf(t.app);
    recorder.onCallEvent({
      type: 'created',
      callId: 'rec-3',
      caller: n.panel,
      callee: n.resident,
      sos: false,
      speechId: null,
      at: Date.now(),
    });
    recorder.onCallEvent({ type: 'answered', callId: 'rec-3', by: n.resident, at: Date.now() });
    recorder.onCallEvent({ type: 'dtmf', callId: 'rec-3', from: n.resident, digit: '#', at: Date.now() });
    await recorder.flush();
    const tasks = await queryRows<{ type: string; payload: { lock: number } }>(
      t.database.db,
      sql`SELECT type, payload FROM device_tasks WHERE device_id = ${ids.panelDevice} AND type = 'open_lock'`,
    );
    expect(tasks).toEqual([{ type: 'open_lock', payload: { lock: 1 } }]);
  });
});

describe('the call recorder, off the 180 path', () => {
  it('writes nothing of a new call before it rings (the 180 goes out first), then everything in order', async () => {
    const published: string[] = [];
    const recorder = new CallRecorder(
      t.database.db,
      {
        publish: async (_p, _topic, _e, data) => {
          published.push((data as { status: string }).status);
        },
        openLock: async () => undefined,
      },
      5_000,
    );
    const at = Date.now();
    const rows = async () =>
      (await queryRows<{ status: string }>(t.database.db, sql`SELECT status FROM call_records WHERE sip_call_id = 'rec-held'`)).map(
        (r) => r.status,
      );
    recorder.onCallEvent({ type: 'created', callId: 'rec-held', caller: n.panel, callee: n.concierge, sos: false, speechId: null, at });
    await new Promise((r) => setTimeout(r, 100));
    expect(await rows()).toEqual([]);
    recorder.onCallEvent({ type: 'ringing', callId: 'rec-held', numbers: [n.concierge], at: at + 10 });
    await expect.poll(rows).toEqual(['calling']);
    // Written once, already calling (created and ringing in one statement).
    expect(published).toEqual(['calling']);
    recorder.onCallEvent({ type: 'ended', callId: 'rec-held', outcome: 'cancel', status: 487, at: at + 20 });
    await recorder.flush();
    expect(await rows()).toEqual(['destroyed']);
  });
});
