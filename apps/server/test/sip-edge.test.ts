// Kamailio at the SIP edge (deploy/kamailio/kamailio.cfg, as an operator runs it) in front of two
// Atrium processes (src/main.ts with SIP_EDGE=kamailio) on one PostgreSQL database: phones register
// with Kamailio against the numbers made through Atrium's API, a call between them is routed by
// asking Atrium and connects both ways, Atrium records it, an unreachable callee gets 480 and a
// `failed` record (not `noanswer`), and when the instance Kamailio asks first is killed (-9) while a
// call rings and another is up, both go on and are recorded, and new calls route through the
// survivor (a forward rule's no-answer stage included). A browser-like phone registers over
// WebSocket and takes a call; a second Kamailio, with rtpengine, reaches a phone registered through
// the first. A call out through a SIP trunk that asks for digest is sent again with the trunk's login;
// the console's stop call ends a call between two phones (a BYE to each, through Kamailio).

import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BaresipUa, baresipInstalled, startBaresip } from '../src/sip/baresip.testing.js';
import { authorize, parseAuthHeader } from '../src/sip/digest.js';
import { type KamailioProcess, kamailioInstalled, startKamailio as startEdge } from '../src/sip/kamailio.testing.js';
import { type RtpengineProcess, rtpengineInstalled, startRtpengine } from '../src/sip/media-relay.testing.js';
import type { SipMessage, SipRequest } from '../src/sip/message.js';
import { createResponse } from '../src/sip/message.js';
import { freeUdpPort, makeRequest, runSipp, type SippRun, UdpPeer } from '../src/sip/testing.js';
import { sdp, WsPhone } from '../src/sip/ws-phone.testing.js';
import { type Api, freePort, type Instance, InstanceRig, kill9, waitFor } from './instances.js';

// Debian's kamailio-websocket-modules: SIP over WebSocket for browsers (WITH_WEBSOCKET).
const haveWebSocket = existsSync('/usr/lib/x86_64-linux-gnu/kamailio/modules/websocket.so');
const PG = process.env.TEST_DATABASE_URL;

const haveKamailio = kamailioInstalled();
if (!haveKamailio) console.warn('SIP edge test skipped: /usr/sbin/kamailio (Debian package kamailio) is missing');
if (haveKamailio && !baresipInstalled()) console.warn('SIP edge test skipped: baresip (with its aufile module) is missing');
if (haveKamailio && !PG) console.warn('SIP edge test skipped: it needs PostgreSQL (TEST_DATABASE_URL), which Kamailio reads too');

const rig = new InstanceRig(
  PG ?? '',
  'sipedge',
  { login: 'admin', password: 'sip-edge-admin-pass-1' },
  'sip-edge-test-secret-sip-edge-test-1',
);
// Kamailio's JSON-RPC port (RPC_PORT), named to both instances (SIP_EDGE_RPC) before they start.
let rpcPort = 0;
const edgeEnv = () => ({ SIP_EDGE: 'kamailio', SIP_EDGE_FROM: 'loopback', SIP_EDGE_RPC: `http://127.0.0.1:${rpcPort}/RPC` });

/** Kamailio on a UDP port with the rig's database, ended (with its run directory) after the tests. */
async function startKamailio(port: number, atriumUrls: string, defines: string[] = [], args: string[] = []): Promise<KamailioProcess> {
  const k = await startEdge({
    port,
    databaseUrl: rig.databaseUrl,
    atriumUrls,
    defines,
    args,
    spawn: (cmd, argv) => rig.spawnLogged(cmd, argv, {}),
  });
  kamailios.push(k);
  return k;
}

let a: Instance;
let b: Instance;
let api: Api;
let sipPort = 0;
let wsPort = 0;
let kamailio: KamailioProcess;
const kamailios: KamailioProcess[] = [];
const phones: BaresipUa[] = [];
const numberIds = new Map<string, number>();
let rtpengine: RtpengineProcess | null = null;
const sipps: SippRun[] = [];
let rootDomain = 0;

const PASSWORD = (n: string) => `Edge${n}pass`;

async function phone(number: string, answerMode: 'auto' | 'manual' = 'auto', port = sipPort): Promise<BaresipUa> {
  const ua = await startBaresip({ number, password: PASSWORD(number), server: { host: '127.0.0.1', port }, answerMode });
  phones.push(ua);
  await ua.waitFor(new RegExp(`${number}@127\\.0\\.0\\.1: \\{0/UDP/v4\\} 200 OK`), 15_000);
  return ua;
}

/** The history row of the latest call from `from` to `to` (call_history, written by whichever instance heard the end). */
async function historyOf(from: string, to: string): Promise<{ status: string; answered_by: string }> {
  let row = '';
  await waitFor(
    () => {
      row = rig.psql(
        `SELECT status || '|' || coalesce(answered_by, '') FROM call_history WHERE from_number = '${from}' AND to_number = '${to}' ORDER BY id DESC LIMIT 1`,
      );
      return row !== '';
    },
    () => `history of ${from} -> ${to}\n${kamailio.output().slice(-3000)}`,
    15_000,
  );
  const [status = '', answered_by = ''] = row.split('|');
  return { status, answered_by };
}

const historyCount = () => Number(rig.psql('SELECT count(*) FROM call_history'));

async function talk(caller: BaresipUa, callee: BaresipUa, number: string) {
  caller.command(`/dial sip:${number}@127.0.0.1:${sipPort}`);
  await caller.waitFor(/Call established/, 15_000);
  await callee.waitFor(/Call established/, 15_000);
  // Hold and resume: re-INVITEs Kamailio relays and reports to Atrium.
  callee.command('/hold');
  await new Promise((r) => setTimeout(r, 300));
  callee.command('/resume');
  await new Promise((r) => setTimeout(r, 1200));
  caller.command('/hangup');
  await caller.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
  await callee.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
}

describe.runIf(PG && haveKamailio && baresipInstalled())('Kamailio at the SIP edge, two Atrium instances', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    rig.createDatabase();
    rpcPort = await freePort();
    // One after the other: the first creates the schema, the project and Kamailio's tables.
    a = await rig.start('edge-a', { env: edgeEnv(), timeoutMs: 120_000 });
    b = await rig.start('edge-b', { env: edgeEnv(), timeoutMs: 120_000 });
    ({ api } = await rig.signIn(a.base));
    const domains = await api('GET', '/domains');
    rootDomain = (domains.data as unknown as { id: number }[])[0]!.id;
    for (const n of [
      '7101',
      '7102',
      '7103',
      '7104',
      '7105',
      '7106',
      '7107',
      '7108',
      '7109',
      '7110',
      '7111',
      '7112',
      '7113',
      '7114',
      '7115',
      '7116',
    ]) {
      const res = await api('PUT', '/sip-numbers', { number: n, password: PASSWORD(n), domain_id: rootDomain });
      expect(res.status, JSON.stringify(res.data)).toBe(200);
      numberIds.set(n, Number(res.data.id));
    }
    sipPort = await freePort();
    wsPort = await freePort();
    // The instance killed below is the one asked first.
    kamailio = await startKamailio(
      sipPort,
      `${a.base},${b.base}`,
      [...(haveWebSocket ? ['WITH_WEBSOCKET'] : []), `RPC_PORT=${rpcPort}`],
      [...(haveWebSocket ? ['-l', `tcp:127.0.0.1:${wsPort}`] : []), '-l', `tcp:127.0.0.1:${rpcPort}`],
    );
  }, 360_000);

  afterAll(async () => {
    // SIP_EDGE_TEST_LOG=<file>: Kamailio's and the instances' output, to see why a call went wrong.
    if (process.env.SIP_EDGE_TEST_LOG)
      writeFileSync(process.env.SIP_EDGE_TEST_LOG, `${kamailio?.output()}\n--- a\n${a?.output()}\n--- b\n${b?.output()}`);
    for (const p of phones.splice(0)) await p.stop();
    for (const s of sipps.splice(0)) s.kill();
    WsPhone.closeAll();
    await rig.close();
    await rtpengine?.stop();
    for (const k of kamailios.splice(0)) await k.stop();
  }, 60_000);

  it('registers phones in PostgreSQL with digest against the numbers made through the API', async () => {
    await phone('7101');
    await phone('7102');
    const rows = rig.psql("SELECT username FROM kamailio_location WHERE username IN ('7101', '7102') ORDER BY username");
    expect(rows.split('\n')).toEqual(['7101', '7102']);
  });

  it('refuses a phone with a wrong password', async () => {
    const ua = await startBaresip({ number: '7103', password: 'Wrong7103pw', server: { host: '127.0.0.1', port: sipPort } });
    phones.push(ua);
    await ua.waitFor(/sip:7103@127\.0\.0\.1:\d+: 40[13] /, 15_000);
    await ua.stop();
    phones.splice(phones.indexOf(ua), 1);
    expect(rig.psql("SELECT count(*) FROM kamailio_location WHERE username = '7103'")).toBe('0');
  });

  it('connects a call asked of Atrium, audio both ways, and Atrium records it', async () => {
    const [caller, callee] = phones as [BaresipUa, BaresipUa];
    await talk(caller, callee, '7102');
    expect(caller.rtpStats()?.received).toBeGreaterThan(30);
    expect(callee.rtpStats()?.received).toBeGreaterThan(30);
    expect(await historyOf('7101', '7102')).toEqual({ status: 'answered', answered_by: '7102' });
    // The console's call history (the API of either instance) shows it.
    const { api: viaB } = await rig.signIn(b.base);
    const history = await viaB('GET', '/calls/history/items');
    expect(JSON.stringify(history.data)).toContain('7102');
  });

  it.skipIf(!haveWebSocket)('a browser-like phone registers over WebSocket and takes a call from a UDP phone, then holds it', async () => {
    const browser = await WsPhone.open(wsPort, '7107');
    await browser.register(PASSWORD('7107'));
    expect(rig.psql("SELECT count(*) FROM kamailio_location WHERE username = '7107'")).toBe('1');
    const caller = phones[0]!;
    caller.command(`/dial sip:7107@127.0.0.1:${sipPort}`);
    await browser.answerAndHold();
    await caller.waitFor(/Call established/, 15_000);
    caller.command('/hangup');
    const bye = await browser.request('BYE');
    browser.send(createResponse(bye, 200, 'OK'));
    expect(await historyOf('7101', '7107')).toEqual({ status: 'answered', answered_by: '7107' });
  });

  it('an unreachable callee: 480 to the caller, recorded as failed, not as no answer', async () => {
    const caller = phones[0]!;
    const before = historyCount();
    caller.command(`/dial sip:7103@127.0.0.1:${sipPort}`);
    await caller.waitFor(/480 Temporarily Unavailable/, 15_000);
    await waitFor(
      () => historyCount() > before,
      () => 'history of the unreachable call',
      15_000,
    );
    expect((await historyOf('7101', '7103')).status).toBe('failed');
  });

  it('kill -9 of the instance asked first while one call rings and another is up: both go on and are recorded, new calls route via the survivor', async () => {
    const [caller, other] = phones as [BaresipUa, BaresipUa];
    const ringing = await phone('7104', 'manual');
    const talker = await phone('7105');
    // A call up before the kill.
    talker.command(`/dial sip:7102@127.0.0.1:${sipPort}`);
    await talker.waitFor(/Call established/, 15_000);
    await other.waitFor(/Call established/, 15_000);
    // A call ringing at the kill.
    caller.command(`/dial sip:7104@127.0.0.1:${sipPort}`);
    await ringing.waitFor(/Incoming call/i, 15_000);
    await kill9(a);
    ringing.command('/accept');
    await caller.waitFor(/Call established/, 15_000);
    await ringing.waitFor(/Call established/, 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    // The call up since before the kill still carries audio both ways.
    talker.command('/hangup');
    await talker.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
    await other.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
    expect(talker.rtpStats()?.received).toBeGreaterThan(50);
    expect(other.rtpStats()?.received).toBeGreaterThan(50);
    expect(await historyOf('7105', '7102')).toEqual({ status: 'answered', answered_by: '7102' });
    caller.command('/hangup');
    await ringing.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
    expect(await historyOf('7101', '7104')).toEqual({ status: 'answered', answered_by: '7104' });

    const before = historyCount();
    await talk(caller, other, '7102');
    await waitFor(
      () => historyCount() > before,
      () => 'history of the call after the kill',
      15_000,
    );
    expect(await historyOf('7101', '7102')).toEqual({ status: 'answered', answered_by: '7102' });
  });

  it("rings a number's forward target when it does not answer in its rule's time (the survivor decides)", async () => {
    const { api: viaB } = await rig.signIn(b.base);
    const rules = { redirect_if_no_answer: { timeout: 2, numbers: ['7102'] } };
    const res = await viaB('PATCH', `/sip-numbers/${numberIds.get('7104')}`, { forward_mode: 'manual', forward_rules: rules });
    expect(res.status, JSON.stringify(res.data)).toBe(200);
    const [caller, other, ringing] = phones as [BaresipUa, BaresipUa, BaresipUa];
    const rang = ringing.output().match(/Incoming call/gi)?.length ?? 0;
    const answers = other.output().match(/Call established/g)?.length ?? 0;
    const at = Date.now();
    caller.command(`/dial sip:7104@127.0.0.1:${sipPort}`);
    await waitFor(
      () => (ringing.output().match(/Incoming call/gi)?.length ?? 0) > rang,
      () => '7104 ringing',
      15_000,
    );
    // 7104 never answers: after 2 s, 7102 rings and answers.
    await waitFor(
      () => (other.output().match(/Call established/g)?.length ?? 0) > answers,
      () => `7102 answering the forwarded call\n${kamailio.output().slice(-3000)}`,
      15_000,
    );
    expect(Date.now() - at).toBeGreaterThanOrEqual(1900);
    caller.command('/hangup');
    await waitFor(
      () => rig.psql("SELECT count(*) FROM call_history WHERE from_number = '7101' AND to_number = '7104'") === '2',
      () => 'history of the forwarded call',
      15_000,
    );
    expect(await historyOf('7101', '7104')).toEqual({ status: 'answered', answered_by: '7102' });
  });

  it.skipIf(!rtpengineInstalled())(
    'a second Kamailio, with rtpengine, calls a phone registered through the first: registrations are shared, media relayed',
    async () => {
      rtpengine = await startRtpengine();
      const port = await freePort();
      await startKamailio(port, b.base, ['WITH_RTPENGINE', `RTPENGINE_SOCK="${rtpengine.url}"`]);
      const caller = await phone('7106', 'auto', port);
      const callee = phones[1]!;
      caller.command(`/dial sip:7102@127.0.0.1:${port}`);
      await caller.waitFor(/Call established/, 15_000);
      await callee.waitFor(/Call established/, 15_000);
      await new Promise((r) => setTimeout(r, 1500));
      caller.command('/hangup');
      await caller.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
      await callee.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
      expect(caller.rtpStats()?.received).toBeGreaterThan(30);
      // The caller's RTP came from rtpengine's port range, not from the other phone.
      const from = Number(/incoming rtp for 'audio' established, receiving from [\d.]+:(\d+)/.exec(caller.output())?.[1]);
      expect(from).toBeGreaterThanOrEqual(rtpengine.ports.min);
      expect(from).toBeLessThanOrEqual(rtpengine.ports.max);
      expect(await historyOf('7106', '7102')).toEqual({ status: 'answered', answered_by: '7102' });
    },
  );

  it('a call out through a SIP trunk that asks for digest: sent again once with the trunk’s login, connected and recorded', async () => {
    const trunkPort = await freeUdpPort();
    const { api: viaB } = await rig.signIn(b.base);
    const created = await viaB('PUT', '/sip-trunks', {
      name: 'Carrier',
      outgoing_number: '+74950000000',
      termination_uri: `sip:127.0.0.1:${trunkPort}`,
      login: 'atrium-trunk',
      password: 'Trunk-secret-1',
      domains: [rootDomain],
    });
    expect(created.status, JSON.stringify(created.data)).toBe(200);
    // The trunk (SIPp): 401 to the first INVITE; the second must carry atrium-trunk's digest (else 403).
    const trunk = await runSipp('uas-trunk-auth.xml', sipPort, [], '127.0.0.1', trunkPort);
    sipps.push(trunk);
    const caller = await phone('7108');
    caller.command(`/dial sip:84951234567@127.0.0.1:${sipPort}`);
    await caller.waitFor(/Call established/, 15_000);
    await new Promise((r) => setTimeout(r, 500));
    caller.command('/hangup');
    const done = await trunk.done;
    expect(done.code, done.errors).toBe(0);
    expect(kamailio.output()).toMatch(/the trunk asked for credentials \(401\), sent again as atrium-trunk/);
    expect((await historyOf('7108', '84951234567')).status).toBe('answered');
  });

  it("the console's stop call ends the real call: both phones get a BYE, Kamailio's dialog and the record end", async () => {
    // Fresh phones: their output holds this call only. The console lists (and stops) the calls of
    // the signed-in user's numbers: 7109 becomes the admin's.
    const caller = await phone('7109');
    const callee = await phone('7110');
    const { api: viaB } = await rig.signIn(b.base);
    const adminId = Number(rig.psql(`SELECT id FROM users WHERE login = '${rig.admin.login}'`));
    const owned = await viaB('PATCH', `/sip-numbers/${numberIds.get('7109')}`, { user_id: adminId });
    expect(owned.status, JSON.stringify(owned.data)).toBe(200);
    caller.command(`/dial sip:7110@127.0.0.1:${sipPort}`);
    await caller.waitFor(/Call established/, 15_000);
    await callee.waitFor(/Call established/, 15_000);
    let id = '';
    await waitFor(
      async () => {
        const list = await viaB('GET', '/calls/management/list');
        const call = (list.data as unknown as { id: string; callee: string; status: string }[]).find(
          (c) => c.callee === '7110' && c.status === 'answered',
        );
        id = call?.id ?? '';
        return id !== '';
      },
      () => 'the call in the console',
      10_000,
    );
    const callId = rig.psql(`SELECT sip_call_id FROM call_records WHERE id = '${id}'`);
    const stop = await viaB('POST', `/calls/management/${id}/stop`);
    expect(stop.status, JSON.stringify(stop.data)).toBe(200);
    // Neither phone hung up: each call ends because a BYE came (baresip prints the call's RTP counts at its end).
    await caller.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
    await callee.waitFor(/^packets:\s+\d+\s+\d+/m, 10_000);
    for (const ua of [caller, callee]) expect(ua.output()).toMatch(/terminated|session closed/i);
    expect(rig.psql(`SELECT status FROM call_records WHERE id = '${id}'`)).toBe('destroyed');
    expect(await historyOf('7109', '7110')).toEqual({ status: 'answered', answered_by: '7110' });
    // Kamailio's dialog ended too (the BYEs passed its dialog module): none of the call is left up.
    await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${rpcPort}/RPC`, {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', method: 'dlg.dlg_list', params: [callId], id: 1 }),
        });
        const body = (await res.json()) as { result?: { state: number } | { state: number }[] };
        const dialogs = body.result === undefined ? [] : Array.isArray(body.result) ? body.result : [body.result];
        return dialogs.every((d) => d.state === 5);
      },
      () => `Kamailio's dialog of ${callId}\n${kamailio.output().slice(-3000)}`,
      10_000,
    );
    const list = await viaB('GET', '/calls/management/list');
    expect((list.data as unknown as { id: string }[]).some((c) => c.id === id)).toBe(false);
    expect(kamailio.output()).not.toMatch(/terminating non-confirmed dialogs/);
  });

  it("the console's stop of a call still ringing: CANCEL to the phone, 487 to the caller, no next stage rung, the record ended", async () => {
    const { api: viaB } = await rig.signIn(b.base);
    const adminId = Number(rig.psql(`SELECT id FROM users WHERE login = '${rig.admin.login}'`));
    const owned = await viaB('PATCH', `/sip-numbers/${numberIds.get('7111')}`, { user_id: adminId });
    expect(owned.status, JSON.stringify(owned.data)).toBe(200);
    // A failure of 7112 would ring 7113: a stopped call must not.
    const rules = { redirect_if_error: { numbers: ['7113'] } };
    const forward = await viaB('PATCH', `/sip-numbers/${numberIds.get('7112')}`, { forward_mode: 'manual', forward_rules: rules });
    expect(forward.status, JSON.stringify(forward.data)).toBe(200);
    const caller = await phone('7111');
    const callee = await phone('7112', 'manual');
    const next = await phone('7113', 'manual');
    caller.command(`/dial sip:7112@127.0.0.1:${sipPort}`);
    await callee.waitFor(/Incoming call/i, 15_000);
    let id = '';
    await waitFor(
      async () => {
        const list = await viaB('GET', '/calls/management/list');
        const call = (list.data as unknown as { id: string; callee: string }[]).find((c) => c.callee === '7112');
        id = call?.id ?? '';
        return id !== '';
      },
      () => 'the ringing call in the console',
      10_000,
    );
    const stop = await viaB('POST', `/calls/management/${id}/stop`);
    expect(stop.status, JSON.stringify(stop.data)).toBe(200);
    // The caller hears 487 from the edge; the ringing phone's call closes (its CANCEL came).
    await caller.waitFor(/487 Request Terminated/i, 10_000);
    await callee.waitFor(/session closed|terminated|cancel/i, 10_000);
    expect(rig.psql(`SELECT status FROM call_records WHERE id = '${id}'`)).toBe('destroyed');
    expect(await historyOf('7111', '7112')).toEqual({ status: 'cancel', answered_by: '' });
    await new Promise((r) => setTimeout(r, 2000));
    expect(next.output()).not.toMatch(/Incoming call/i);
    expect(caller.output()).not.toMatch(/Call established/);
  });

  it.skipIf(!haveWebSocket)(
    'a held call whose page went away is taken back from a new page through another instance: the panel swaps dialogs (Replaces), one record, one history row',
    async () => {
      const { api: viaB } = await rig.signIn(b.base);
      const adminId = Number(rig.psql(`SELECT id FROM users WHERE login = '${rig.admin.login}'`));
      // 7115 is the admin's: a concierge's number, so a call to it is an awaiting call the dialer may hold and resume.
      const owned = await viaB('PATCH', `/sip-numbers/${numberIds.get('7115')}`, { user_id: adminId });
      expect(owned.status, JSON.stringify(owned.data)).toBe(200);

      // The panel, scripted over UDP: Debian's baresip (1.0) has no Replaces, and a SIPp scenario
      // follows one Call-ID where a swap brings a second.
      const panel = await UdpPeer.open({ absorbRepeatedResponses: true });
      const contact = `<sip:7114@127.0.0.1:${panel.port}>`;
      const next = async (want: (m: SipMessage) => boolean, what: string) => {
        // (what else arrives meanwhile — a retransmission, a provisional answer — is passed over)
        for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
          const m = await panel.next(15_000);
          if (want(m)) return m;
        }
        throw new Error(`the panel got no ${what}`);
      };
      const request = async (method: string) => (await next((m) => m.kind === 'request' && m.method === method, method)) as SipRequest;
      const final = async (method: string) => {
        const m = await next(
          (x) => x.kind === 'response' && x.status >= 200 && !!x.headers.get('cseq')?.endsWith(method),
          `answer to ${method}`,
        );
        return m.kind === 'response' ? m : Promise.reject(new Error('not a response'));
      };
      const send = (m: SipMessage) => panel.send(m, sipPort);
      const answer = (req: SipRequest, toTag: string, direction: string) => {
        const ok = createResponse(req, 200, 'OK', toTag);
        for (const r of req.headers.getAll('record-route')) ok.headers.add('Record-Route', r);
        ok.headers.add('Contact', contact);
        ok.headers.add('Content-Type', 'application/sdp');
        ok.body = Buffer.from(sdp(direction));
        return ok;
      };
      const challenged = async (make: (cseq: number, auth?: string) => SipRequest, method: string, uri: string) => {
        send(make(1));
        const challenge = await final(method);
        expect([401, 407]).toContain(challenge.status);
        const params = parseAuthHeader(challenge.headers.get('proxy-authenticate') ?? challenge.headers.get('www-authenticate') ?? '');
        if (!params) throw new Error('no challenge');
        send(make(2, authorize(params, { username: '7114', password: PASSWORD('7114') }, method, uri)));
      };

      // The panel registers, as panels do: its contact is where the resume finds it.
      const reg = { from: '<sip:7114@atrium.test>;tag=reg7114', to: '<sip:7114@atrium.test>', callId: `reg-7114-${Date.now()}` };
      await challenged(
        (cseq, auth) =>
          makeRequest('REGISTER', 'sip:atrium.test', {
            port: panel.port,
            ...reg,
            cseq,
            extra: [['Contact', contact], ['Expires', '600'], ...(auth ? [['Authorization', auth] as [string, string]] : [])],
          }),
        'REGISTER',
        'sip:atrium.test',
      );
      expect((await final('REGISTER')).status).toBe(200);

      // The panel calls the concierge; the concierge's page answers and holds the call.
      const page = await WsPhone.open(wsPort, '7115');
      await page.register(PASSWORD('7115'));
      const uri = 'sip:7115@atrium.test';
      const held = { from: '<sip:7114@atrium.test>;tag=panel1', callId: `panel-7114-${Date.now()}` };
      const answered = page.answerAndHold();
      await challenged(
        (cseq, auth) =>
          makeRequest('INVITE', uri, {
            port: panel.port,
            ...held,
            to: `<${uri}>`,
            cseq,
            extra: [
              ['Contact', contact],
              ['Content-Type', 'application/sdp'],
              ...(auth ? [['Proxy-Authorization', auth] as [string, string]] : []),
            ],
            body: sdp('sendrecv'),
          }),
        'INVITE',
        uri,
      );
      const ok = await final('INVITE');
      expect(ok.status).toBe(200);
      const oldRoutes = ok.headers.getAll('record-route').reverse();
      const oldTarget = /<([^>]+)>/.exec(ok.headers.get('contact') ?? '')?.[1] ?? '';
      const inDialog = (method: string, cseq: number) =>
        makeRequest(method, oldTarget, {
          port: panel.port,
          ...held,
          to: ok.headers.get('to') ?? '',
          cseq,
          extra: oldRoutes.map((r) => ['Route', r] as [string, string]),
        });
      send(inDialog('ACK', 2));
      const hold = await request('INVITE');
      send(answer(hold, 'panel1', 'recvonly'));
      await request('ACK');
      await answered;
      let speechId = '';
      await waitFor(
        () => {
          const [id = '', status = ''] = rig
            .psql(`SELECT id || '|' || status FROM call_records WHERE sip_call_id = '${held.callId}'`)
            .split('|');
          speechId = id;
          return status === 'answered_waiting';
        },
        () => `the held call's record
${kamailio.output().slice(-3000)}`,
        10_000,
      );

      // The page reloads (its SIP WebSocket closes); the instance that recorded the hold dies and
      // another one, started meanwhile, is left to answer the resume.
      page.close();
      a = await rig.start('edge-a2', { port: a.port, env: edgeEnv(), timeoutMs: 120_000 });
      await kill9(b);

      // Another number may not take the call.
      const stranger = await WsPhone.open(wsPort, '7116');
      await stranger.register(PASSWORD('7116'));
      expect((await stranger.resume(speechId, PASSWORD('7116'), '7114')).res.status).toBe(403);

      // The new page takes it back: the panel is asked to swap the held dialog for the new one.
      const again = await WsPhone.open(wsPort, '7115');
      await again.register(PASSWORD('7115'));
      const resumed = again.resume(speechId, PASSWORD('7115'), '7114');
      // (a hold re-INVITE sent again by Kamailio before the panel's answer got there is passed over)
      const swap = (await next(
        (m) => m.kind === 'request' && m.method === 'INVITE' && m.headers.has('replaces'),
        'INVITE with Replaces',
      )) as SipRequest;
      expect(swap.headers.get('replaces')).toBe(`${held.callId};to-tag=panel1;from-tag=browser-tag`);
      expect(swap.headers.get('require')).toBe('replaces');
      expect(swap.headers.get('x-resume-call')).toBeUndefined();
      send(answer(swap, 'panel2', 'sendrecv'));
      const { res, dialog } = await resumed;
      expect(res.status).toBe(200);
      await request('ACK');
      // RFC 3891: the panel ends the dialog it replaced; its page is gone, so nobody answers but Kamailio.
      send(inDialog('BYE', 3));
      await final('BYE');
      await waitFor(
        () => rig.psql(`SELECT sip_call_id || '|' || status FROM call_records WHERE id = '${speechId}'`) === `${dialog.callId}|answered`,
        () => `the resumed call's record: ${rig.psql(`SELECT sip_call_id || '|' || status FROM call_records WHERE id = '${speechId}'`)}
${kamailio.output().slice(-3000)}`,
        10_000,
      );
      // The old dialog's end ended nothing: the call is up, as the console lists it.
      const { api: viaA } = await rig.signIn(a.base);
      const list = await viaA('GET', '/calls/management/list');
      const listed = (list.data as unknown as { id: string; status: string }[]).find((c) => c.id === speechId);
      expect(listed?.status).toBe('answered');

      // The new page hangs up: one history row for the whole call, answered by the concierge.
      again.send(again.build('BYE', dialog.target, { ...dialog, cseq: 3 }));
      const bye = await request('BYE');
      send(createResponse(bye, 200, 'OK'));
      expect(await historyOf('7114', '7115')).toEqual({ status: 'answered', answered_by: '7115' });
      expect(rig.psql("SELECT count(*) FROM call_history WHERE from_number = '7114' AND to_number = '7115'")).toBe('1');
      expect(rig.psql(`SELECT status FROM call_records WHERE id = '${speechId}'`)).toBe('destroyed');
      panel.close();
    },
  );

  it('reported every event in a form Atrium accepted', () => {
    expect(kamailio.output()).not.toMatch(/atrium event for .* not reported \(4\d\d\)/);
    // The callee's hold and resume in each call talked through went to Atrium.
    expect(kamailio.output()).toMatch(/an offer from 7102 accepted/);
  });
});
