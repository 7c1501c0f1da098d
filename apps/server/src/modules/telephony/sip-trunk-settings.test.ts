// Atrium's SIP server on its tables with real SIP user agents (SIPp): the project's SIP tab applied
// to the running server (addresses by network, early media), and calls coming in from a SIP trunk
// trusted by its address and port (SIPp as the trunk, on 127.0.0.2), routed by Atrium's tables and
// recorded as incoming; an INVITE from any other sender is challenged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { tcpPortFree } from '../../core/ports.js';
import { freeUdpPort, registerContact, runSipp, type SippRun } from '../../sip/testing.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let sip: SipRuntime;
const running: SippRun[] = [];
const PANEL_PW = 'PanelPass123';
const PHONE_PW = 'PhonePass123';
let phoneUser: { login: string; password: string };

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  sip = await startSip(t.app, {
    ...t.app.config,
    sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
  });
  const roleId = await makeRole(t.database.db, t.project.projectId, ['can_receive_calls_as_concierge', 'can_call_all']);
  const user = await makeUser(t.database.db, {
    projectId: t.project.projectId,
    roleId,
    groupIds: [t.project.rootGroupId],
    name: 'Olga Operator',
  });
  phoneUser = user;
  const put = async (body: Record<string, unknown>) => {
    const res = await admin.put('/sip-numbers', { domain_id: t.project.rootGroupId, ...body });
    expect(res.statusCode, res.body).toBe(200);
  };
  await put({ number: '5001', password: PANEL_PW });
  await put({ number: '5100', password: PHONE_PW, user_id: user.id, purpose: 'master_sip_number' });
});
afterAll(async () => {
  for (const r of running) r.kill();
  await sip?.close();
  await t?.close();
});

async function sipp(scenario: string, args: string[] = [], localIp = '127.0.0.1', localPort?: number) {
  const run = await runSipp(scenario, sip.server.ports.udp, args, localIp, localPort);
  running.push(run);
  return run;
}

async function phone(scenario: string, host = '127.0.0.1') {
  const run = await sipp(scenario, [], host);
  expect(await registerContact(sip.server.ports.udp, '5100', PHONE_PW, run.port, host)).toBe(200);
  return run;
}

const panel = (scenario: string) => sipp(scenario, ['-s', '5100', '-key', 'caller', '5001', '-au', '5001', '-ap', PANEL_PW]);

async function succeeded(...runs: SippRun[]) {
  for (const r of await Promise.all(runs.map((x) => x.done))) expect(r.code, r.errors).toBe(0);
}

const historyCount = async () => ((await admin.get('/calls/history/items')).json().data as unknown[]).length;

/** Whether a SIPp phone is still waiting for its INVITE after a while (nobody rang it). */
async function stillWaiting(run: SippRun): Promise<boolean> {
  return Promise.race([run.done.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 500))]);
}

async function patchSip(body: Record<string, unknown>) {
  const res = await admin.patch('/settings/sip', body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('the project’s SIP tab applied to the running SIP server', () => {
  it('starts from the stored settings and takes every change at once (no restart)', async () => {
    expect(sip.server.network).toMatchObject({ internalIp: null, externalIp: null, localNetworks: [], earlyMedia: false });
    await patchSip({ server: { internal_ip: '127.0.0.1', external_ip: '203.0.113.7' }, local_networks: ['127.0.0.1/32'] });
    expect(sip.server.network).toMatchObject({ internalIp: '127.0.0.1', externalIp: '203.0.113.7', localNetworks: ['127.0.0.1/32'] });
  });

  it('a phone outside the local networks is told the external IP, a panel inside the internal one (SIPp)', async () => {
    const callee = await phone('uas-answer-external.xml', '127.0.0.2');
    const caller = await panel('uac-call-split-network.xml');
    await succeeded(caller, callee);
    await patchSip({ server: { internal_ip: null, external_ip: null }, local_networks: [] });
  });

  it('early media off (the default): the phone’s 183 with SDP reaches the panel as 180 without a body (SIPp)', async () => {
    const callee = await phone('uas-answer-early-media.xml');
    const caller = await panel('uac-call-no-early-media.xml');
    await succeeded(caller, callee);
  });

  it('early media on: the 183 and its SDP are relayed (SIPp)', async () => {
    expect((await patchSip({ is_early_media_enabled: true })).is_early_media_enabled).toBe(true);
    expect(sip.server.network.earlyMedia).toBe(true);
    const callee = await phone('uas-answer-early-media.xml');
    const caller = await panel('uac-call-early-media.xml');
    await succeeded(caller, callee);
    await patchSip({ is_early_media_enabled: false });
  });

  it('a change of ports rebinds the listeners, and registrations go to the new port', async () => {
    const before = sip.server.ports.udp;
    // Free on UDP and TCP (the listeners take both).
    let port = await freeUdpPort();
    while (port === before || !(await tcpPortFree(port, '127.0.0.1'))) port = await freeUdpPort();
    const res = await admin.patch('/settings/sip', { port });
    expect(res.statusCode, res.body).toBe(200);
    expect(sip.server.ports.udp).toBe(port);
    const callee = await sipp('uas-answer.xml');
    expect(await registerContact(port, '5100', PHONE_PW, callee.port)).toBe(200);
    callee.kill();
  });
});

describe('calls in from a SIP trunk', () => {
  let trunkId: number;
  let trunkPort: number;

  it('a trunk’s peer (its termination URI) calls a virtual number without digest; the call is recorded as incoming', async () => {
    // The peer is known by transport, address and port: SIPp sends from the URI's very port.
    trunkPort = await freeUdpPort();
    const created = await admin.put('/sip-trunks', {
      name: 'City line',
      outgoing_number: '+74950000000',
      termination_uri: `sip:127.0.0.2:${trunkPort}`,
      domains: [t.project.rootGroupId],
    });
    expect(created.statusCode, created.body).toBe(200);
    trunkId = created.json().data.id;

    const callee = await phone('uas-answer.xml');
    const trunk = await sipp('uac-trunk-call.xml', ['-s', '5100', '-key', 'caller', '+74951234567'], '127.0.0.2', trunkPort);
    await succeeded(trunk, callee);

    await expect
      .poll(async () => (await admin.get('/calls/history/items')).json().data, { timeout: 5000 })
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ status: 'answered', from: expect.objectContaining({ number: '+74951234567' }) }),
        ]),
      );
    const operator = client(t.app, await login(t.app, phoneUser.login, phoneUser.password));
    const mine = (await operator.get('/calls/history/dialer/5100')).json().data;
    expect(mine[0]).toMatchObject({ status: 'answered', direction: 'incoming' });
  });

  it('a number that is not one of the trunk’s groups’ numbers is not found, and nothing is recorded', async () => {
    const before = await historyCount();
    const trunk = await sipp('uac-trunk-refused.xml', ['-s', '5999', '-key', 'caller', '+74951234567'], '127.0.0.2', trunkPort);
    await succeeded(trunk);
    expect(await historyCount()).toBe(before);
  });

  it('another port of the trunk’s address is not the trunk: challenged, nobody rings, its From is not believed', async () => {
    const before = await historyCount();
    const callee = await phone('uas-answer.xml');
    const impostor = await sipp('uac-trunk-challenged.xml', ['-s', '5100', '-key', 'caller', '+74951234567'], '127.0.0.2');
    await succeeded(impostor);
    expect(await stillWaiting(callee)).toBe(true);
    expect(sip.server.activeCalls()).toEqual([]);
    expect(await historyCount()).toBe(before);
    callee.kill();
  });

  it('an address no trunk names is challenged: nobody rings and no call is recorded', async () => {
    const before = await historyCount();
    const callee = await phone('uas-answer.xml');
    const stranger = await sipp('uac-trunk-challenged.xml', ['-s', '5100', '-key', 'caller', '+74951234567'], '127.0.0.3', trunkPort);
    await succeeded(stranger);
    expect(await stillWaiting(callee)).toBe(true);
    expect(sip.server.activeCalls()).toEqual([]);
    expect(await historyCount()).toBe(before);
    callee.kill();
  });

  it('the trunk is trusted no more once deleted', async () => {
    expect((await admin.delete(`/sip-trunks/${trunkId}`)).statusCode).toBe(200);
    const callee = await phone('uas-answer.xml');
    const trunk = await sipp('uac-trunk-challenged.xml', ['-s', '5100', '-key', 'caller', '+74951234567'], '127.0.0.2', trunkPort);
    await succeeded(trunk);
    expect(await stillWaiting(callee)).toBe(true);
    callee.kill();
  });
});

describe('the caller’s identity (RFC 3325)', () => {
  it('a phone claiming another identity reaches the callee as its own number and its owner’s name (SIPp)', async () => {
    const callee = await sipp('uas-answer-identity.xml');
    expect(await registerContact(sip.server.ports.udp, '5001', PANEL_PW, callee.port)).toBe(200);
    const caller = await sipp('uac-call-spoofed.xml', ['-s', '5001', '-key', 'caller', '5100', '-au', '5100', '-ap', PHONE_PW]);
    await succeeded(caller, callee);
  });
});
