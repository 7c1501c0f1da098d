// A held queued call survives the concierge's page reload (sip/park.ts) on Atrium's tables: SIPp
// is the door panel, a WebSocket SIP client the concierge's browser. The record stays
// answered_waiting and listed while parked, becomes answered when the new page resumes it, the
// door still opens with #, and the call ends in the history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';
import { callerArgs, runSipp, type SippRun } from '../../sip/testing.js';
import { WsPhone } from '../../sip/ws-phone.testing.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

let t: TestApp;
let devices: DeviceHarness;
let sip: SipRuntime;
const running: SippRun[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  devices = await deviceHarness(t);
  sip = await startSip(t.app, {
    ...t.app.config,
    sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
  });
});
afterAll(async () => {
  for (const r of running) r.kill();
  WsPhone.closeAll();
  await sip.close();
  await devices.close();
  await t.close();
});

describe('a parked call on Atrium’s tables', () => {
  it('stays answered_waiting and listed after the concierge’s connection closes, and is answered again once resumed', async () => {
    const admin = await adminClient(t);
    const panel = await devices.device({ serial: 'SIP-PARK-1', type: 'panel', model: 'AP-100' });
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_receive_calls_as_concierge', 'can_call_all', 'can_call_panel']);
    const concierge = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    for (const body of [
      { number: '3301', password: 'PanelPark123', device_id: panel.id },
      { number: '3300', password: 'Concierge123', user_id: concierge.id, purpose: 'master_sip_number' },
    ]) {
      const res = await admin.put('/sip-numbers', { domain_id: t.project.rootGroupId, ...body });
      expect(res.statusCode, res.body).toBe(200);
    }
    const token = await login(t.app, concierge.login, concierge.password);
    const ws = await connectSocket(await listenForSockets(t.app), token);
    expect(await ws.subscribe('calls-management.3300')).toMatchObject({ event: 'subscribed' });
    const status = (m: { event: string; data?: unknown }) => (m.event === 'CallUpdated' ? (m.data as { status?: string }).status : null);

    const browser = await WsPhone.open(sip.server.ports.ws, '3300');
    await browser.register('Concierge123');
    const call = await runSipp('uac-call-parked.xml', sip.server.ports.udp, [...callerArgs('3300', '3301', 'PanelPark123')]);
    running.push(call);
    await browser.answerAndHold();
    const held = await ws.next((m) => status(m) === 'answered_waiting');
    expect(held.data).toMatchObject({ type: 'awaiting', answered_by: '3300' });
    const id = (held.data as { id: string }).id;

    // The page reloads: the call stays, held, in the concierge's list.
    browser.close();
    await new Promise((r) => setTimeout(r, 2500));
    const listed = (await client(t.app, token).get('/calls/management/list')).json().data as { id: string; status: string }[];
    expect(listed).toMatchObject([{ id, status: 'answered_waiting' }]);

    const again = await WsPhone.open(sip.server.ports.ws, '3300');
    const { res, dialog } = await again.resume(id, 'Concierge123', '3301');
    expect(res.status).toBe(200);
    await ws.next((m) => status(m) === 'answered');

    const info = again.build('INFO', 'sip:127.0.0.1', { ...dialog, cseq: 3 });
    info.headers.add('Content-Type', 'application/dtmf-relay');
    info.body = Buffer.from('Signal=#\r\nDuration=160\r\n');
    again.send(info);
    expect((await again.response()).status).toBe(200);
    await expect.poll(() => panel.sim.opened.map((o) => o.by), { timeout: 10_000 }).toContain('task');

    again.send(again.build('BYE', 'sip:127.0.0.1', { ...dialog, cseq: 4 }));
    expect((await again.response()).status).toBe(200);
    const done = await call.done;
    expect(done.code, done.errors).toBe(0);
    await ws.next((m) => status(m) === 'destroyed');
    ws.close();
    const mine = (await client(t.app, token).get('/calls/history/dialer/3300')).json().data;
    expect(mine[0]).toMatchObject({ status: 'answered', type: 'awaiting' });
  }, 40_000);
});
