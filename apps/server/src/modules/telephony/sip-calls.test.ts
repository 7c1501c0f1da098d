// The whole of telephony on real parts: Atrium's SIP server on its tables (the directory and the
// call recorder), SIPp as a door panel and a concierge's phone, the device simulator as the panel's
// lock. The panel calls the concierge; the concierge answers and presses #; the panel's door opens;
// the call is live for the concierge, stopped from the console, and ends in the history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { registerContact, runSipp, type SippRun } from '../../sip/testing.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let devices: DeviceHarness;
let sip: SipRuntime;
const running: SippRun[] = [];
const PANEL_PW = 'PanelPass123';
const CONCIERGE_PW = 'Concierge123';
/** The concierge's console (set by the first test). */
let conciergeConsole: ReturnType<typeof client>;
let conciergeToken: string;
/** The app's realtime address (it listens once). */
let sockets: string;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  devices = await deviceHarness(t);
  sip = await startSip(t.app, {
    ...t.app.config,
    sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
  });
});
afterAll(async () => {
  for (const r of running) r.kill();
  await sip.close();
  await devices.close();
  await t.close();
});

async function sipp(scenario: string, args: string[] = []) {
  const run = await runSipp(scenario, sip.server.ports.udp, args);
  running.push(run);
  return run;
}

describe('calls through Atrium’s SIP server', () => {
  it('a panel rings the concierge, who answers and opens the door with #; live for the concierge, and in the history', async () => {
    const panel = await devices.device({ serial: 'SIP-PANEL-1', type: 'panel', model: 'AP-100' });
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_receive_calls_as_concierge', 'can_call_all', 'can_call_panel']);
    const concierge = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId,
      groupIds: [t.project.rootGroupId],
      name: 'Connie Concierge',
    });
    const put = async (body: Record<string, unknown>) => {
      const res = await admin.put('/sip-numbers', { domain_id: t.project.rootGroupId, ...body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { id: number; number: string };
    };
    await put({ number: '3001', password: PANEL_PW, device_id: panel.id });
    await put({ number: '3100', password: CONCIERGE_PW, user_id: concierge.id, purpose: 'master_sip_number' });

    // The concierge's console hears the call on calls-management.3100.
    const token = await login(t.app, concierge.login, concierge.password);
    conciergeToken = token;
    sockets = await listenForSockets(t.app);
    const ws = await connectSocket(sockets, token);
    expect(await ws.subscribe('calls-management.3100')).toMatchObject({ event: 'subscribed' });

    // Wrong password: the registrar refuses; the right one registers the concierge's phone.
    const phone = await sipp('uas-answer-send-dtmf.xml', ['-s', '3100']);
    expect(await registerContact(sip.server.ports.udp, '3100', 'Wrong123abc', phone.port)).toBe(403);
    expect(await registerContact(sip.server.ports.udp, '3100', CONCIERGE_PW, phone.port)).toBe(200);
    expect(sip.server.contacts('3100')).toHaveLength(1);

    const call = await sipp('uac-call-recv-dtmf.xml', ['-s', '3100', '-key', 'caller', '3001', '-au', '3001', '-ap', PANEL_PW]);
    const [callerDone, phoneDone] = await Promise.all([call.done, phone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);

    // The # reached the panel as an open-lock task.
    await expect.poll(() => panel.sim.opened.map((o) => o.by), { timeout: 10_000 }).toContain('task');

    // CallUpdated arrived live, from calling through answered to destroyed.
    const status = (m: { event: string; data?: unknown }) => (m.event === 'CallUpdated' ? (m.data as { status?: string }).status : null);
    const ringing = await ws.next((m) => status(m) === 'calling' || status(m) === 'new');
    expect(ringing.data).toMatchObject({ answered_at: null });
    const answered = await ws.next((m) => status(m) === 'answered');
    const answeredAt = (answered.data as { answered_at: number }).answered_at;
    expect(Math.abs(answeredAt - Date.now() / 1000)).toBeLessThan(60);
    const ended = await ws.next((m) => status(m) === 'destroyed');
    expect(ended.data).toMatchObject({ caller: '3001', callee: '3100', answered_by: '3100', answered_at: answeredAt });
    ws.close();

    // The history: answered, from the panel to the concierge.
    const c = client(t.app, token);
    conciergeConsole = c;
    await expect
      .poll(async () => (await admin.get('/calls/history/items')).json().data, { timeout: 5000 })
      .toEqual(
        expect.arrayContaining([expect.objectContaining({ status: 'answered', from: expect.objectContaining({ number: '3001' }) })]),
      );
    const mine = (await c.get('/calls/history/dialer/3100')).json().data;
    expect(mine[0]).toMatchObject({ status: 'answered', direction: 'incoming' });
  });

  it('stops an answered call from the console: both sides get a BYE and the call leaves the list', async () => {
    const phone = await sipp('uas-answer.xml', ['-s', '3100']);
    expect(await registerContact(sip.server.ports.udp, '3100', CONCIERGE_PW, phone.port)).toBe(200);
    const call = await sipp('uac-wait-bye.xml', ['-s', '3100', '-key', 'caller', '3001', '-au', '3001', '-ap', PANEL_PW]);
    // The concierge's list: calls of their numbers (the administrator has none, and sees none).
    const listed = async () => (await conciergeConsole.get('/calls/management/list')).json().data as { id: string; status: string }[];
    await expect.poll(async () => (await listed()).map((c) => c.status), { timeout: 10_000 }).toContain('answered');
    const [active] = await listed();
    expect((await admin.post(`/calls/management/${active!.id}/stop`)).statusCode).toBe(404);
    expect((await conciergeConsole.post(`/calls/management/${active!.id}/stop`)).statusCode).toBe(200);
    const [callerDone, phoneDone] = await Promise.all([call.done, phone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);
    await expect.poll(listed, { timeout: 5000 }).toEqual([]);
  });

  it('a concierge holds the queued call and resumes it: answered_waiting, then answered, live', async () => {
    const ws = await connectSocket(sockets, conciergeToken);
    expect(await ws.subscribe('calls-management.3100')).toMatchObject({ event: 'subscribed' });
    const phone = await sipp('uas-answer-hold-resume.xml', ['-s', '3100']);
    expect(await registerContact(sip.server.ports.udp, '3100', CONCIERGE_PW, phone.port)).toBe(200);
    const call = await sipp('uac-call-held-resumed.xml', ['-s', '3100', '-key', 'caller', '3001', '-au', '3001', '-ap', PANEL_PW]);
    const [callerDone, phoneDone] = await Promise.all([call.done, phone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);
    // CallUpdated in order: answered, put back to wait by the concierge, taken again, ended.
    const status = (m: { event: string; data?: unknown }) => (m.event === 'CallUpdated' ? (m.data as { status?: string }).status : null);
    await ws.next((m) => status(m) === 'answered');
    const held = await ws.next((m) => status(m) === 'answered_waiting');
    expect(held.data).toMatchObject({ type: 'awaiting', answered_by: '3100' });
    await ws.next((m) => status(m) === 'answered');
    await ws.next((m) => status(m) === 'destroyed');
    ws.close();
    const mine = (await conciergeConsole.get('/calls/history/dialer/3100')).json().data;
    expect(mine[0]).toMatchObject({ status: 'answered', type: 'awaiting' });
  });

  it('a normal call held by its callee stays answered: only a queued call waits', async () => {
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_call_all']);
    const resident = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const res = await admin.put('/sip-numbers', {
      domain_id: t.project.rootGroupId,
      number: '3200',
      password: 'Resident123',
      user_id: resident.id,
      purpose: 'master_sip_number',
    });
    expect(res.statusCode, res.body).toBe(200);
    const ws = await connectSocket(sockets, await login(t.app, resident.login, resident.password));
    expect(await ws.subscribe('calls-management.3200')).toMatchObject({ event: 'subscribed' });
    const phone = await sipp('uas-answer-hold-resume.xml', ['-s', '3200']);
    expect(await registerContact(sip.server.ports.udp, '3200', 'Resident123', phone.port)).toBe(200);
    const call = await sipp('uac-call-held-resumed.xml', ['-s', '3200', '-key', 'caller', '3001', '-au', '3001', '-ap', PANEL_PW]);
    const [callerDone, phoneDone] = await Promise.all([call.done, phone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);
    const status = (m: { event: string; data?: unknown }) => (m.event === 'CallUpdated' ? (m.data as { status?: string }).status : null);
    const ended = await ws.next((m) => status(m) === 'destroyed');
    expect(ended.data).toMatchObject({ type: 'normal', answered_by: '3200' });
    expect(ws.inbox.filter((m) => status(m) === 'answered_waiting')).toEqual([]);
    ws.close();
  });

  it('says it is running, with its registrations', async () => {
    const status = (await admin.get('/sip/status')).json().data;
    expect(status).toMatchObject({ is_running: true, instances: [{ type: 'embedded', status: 'running' }] });
    expect(status.instances[0].registrations).toBeGreaterThanOrEqual(1);
  });
});
