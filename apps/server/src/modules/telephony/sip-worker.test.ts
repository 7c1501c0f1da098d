// The SIP server dies alone (sip/worker): its worker thread is killed under a call, by an uncaught
// exception and by terminate(). Meanwhile the HTTP API answers as ever; within 2 s SIP answers again
// on the same port; a UDP phone registered before can be called without registering again; a new
// phone registers and is called; the call cut by the crash ends in the records; a WebSocket phone's
// registration went with its connection. A reinit from the console still starts a new worker on
// the same port. SIPp plays the phones, on Atrium's tables.
import dgram from 'node:dgram';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { parseMessage, SipHeaders, serializeMessage } from '../../sip/message.js';
import { callerArgs, registerContact, runSipp, type SippRun } from '../../sip/testing.js';
import { WsPhone } from '../../sip/ws-phone.testing.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

let t: TestApp;
let sip: SipRuntime;
let httpBase: string;
const running: SippRun[] = [];
const PW = 'Crash1234pass';

beforeAll(async () => {
  t = await buildTestApp();
  sip = await startSip(t.app, {
    ...t.app.config,
    sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  httpBase = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const admin = await adminClient(t);
  const roleId = await makeRole(t.database.db, t.project.projectId, ['can_call_all']);
  for (const number of ['3700', '3701', '3702', '3703', '3704']) {
    const user = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    const res = await admin.put('/sip-numbers', {
      domain_id: t.project.rootGroupId,
      number,
      password: PW,
      user_id: user.id,
      purpose: 'master_sip_number',
    });
    expect(res.statusCode, res.body).toBe(200);
  }
});
afterAll(async () => {
  for (const r of running) r.kill();
  WsPhone.closeAll();
  await sip?.close();
  await t?.close();
});

async function sipp(scenario: string, args: string[] = []): Promise<SippRun> {
  const run = await runSipp(scenario, sip.server.ports.udp, args);
  running.push(run);
  return run;
}

/** The status of an OPTIONS to the SIP port, or 0 when nothing answers within 200 ms. */
async function options(port: number): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const headers = new SipHeaders();
  headers.add('Via', `SIP/2.0/UDP 127.0.0.1:${socket.address().port};branch=z9hG4bK-probe${Math.random().toString(36).slice(2)};rport`);
  headers.add('From', '<sip:probe@127.0.0.1>;tag=probe');
  headers.add('To', '<sip:127.0.0.1>');
  headers.add('Call-ID', `probe-${Math.random()}`);
  headers.add('CSeq', '1 OPTIONS');
  headers.add('Max-Forwards', '70');
  try {
    return await new Promise<number>((resolve) => {
      const timer = setTimeout(() => resolve(0), 200);
      socket.on('message', (data) => {
        const msg = parseMessage(data);
        if (msg?.kind !== 'response') return;
        clearTimeout(timer);
        resolve(msg.status);
      });
      socket.send(
        serializeMessage({ kind: 'request', method: 'OPTIONS', uri: `sip:127.0.0.1:${port}`, headers, body: Buffer.alloc(0) }),
        port,
        '127.0.0.1',
      );
    });
  } finally {
    socket.close();
  }
}

/** Asks GET /api/v0/info over HTTP every 50 ms until stopped; resolves with every answer's status and time. */
function pollHttp(): { stop(): Promise<Array<{ status: number; ms: number }>> } {
  const answers: Array<{ status: number; ms: number }> = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const status = await fetch(`${httpBase}/api/v0/info`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.status,
        () => 0,
      );
      answers.push({ status, ms: performance.now() - started });
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return answers;
    },
  };
}

/** Kills the worker with `kill` and measures, by OPTIONS every 50 ms, how long until SIP answers again. */
async function killAndTimeRecovery(kill: () => void): Promise<number> {
  const port = sip.server.ports.udp;
  const crashesBefore = sip.stats.crashes;
  // A replacement that still has to load its code would take a second or two more (under load, more).
  await sip.server.spares.ready();
  const killedAt = performance.now();
  kill();
  await expect.poll(() => sip.stats.crashes, { timeout: 2000, interval: 10 }).toBe(crashesBefore + 1);
  while ((await options(port)) !== 200) {
    if (performance.now() - killedAt > 5000) throw new Error('SIP did not answer again within 5 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - killedAt;
}

describe('the SIP worker dies alone', () => {
  it('an uncaught exception under a call: the API answers throughout, SIP is back within 2 s, phones registered before are called', async () => {
    // A call in progress: 3700's phone answers 3701's call and both wait for a BYE that never comes.
    const busyPhone = await sipp('uas-answer.xml', ['-s', '3700']);
    expect(await registerContact(sip.server.ports.udp, '3700', PW, busyPhone.port)).toBe(200);
    // 3702's phone registers over UDP now and is called only after the crash.
    const laterPhone = await sipp('uas-answer.xml', ['-s', '3702']);
    expect(await registerContact(sip.server.ports.udp, '3702', PW, laterPhone.port)).toBe(200);
    // 3704 registers over WebSocket: that connection dies with the worker.
    const browser = await WsPhone.open(sip.server.ports.ws, '3704');
    await browser.register(PW);
    expect(sip.server.contacts('3704')).toHaveLength(1);

    const caller = await sipp('uac-wait-bye.xml', callerArgs('3700', '3701', PW));
    await expect.poll(() => sip.server.activeCalls().map((c) => c.state), { timeout: 10_000 }).toEqual(['answered']);
    const [cut] = sip.server.activeCalls();
    await expect
      .poll(async () => (await queryRows<{ status: string }>(t.database.db, sql`SELECT status FROM call_records`)).map((r) => r.status), {
        timeout: 5000,
      })
      .toEqual(['answered']);

    const port = sip.server.ports.udp;
    const http = pollHttp();
    await new Promise((r) => setTimeout(r, 300));
    const recovery = await killAndTimeRecovery(() => sip.server.crashForTest('throw', 'a bug in the SIP code'));
    await new Promise((r) => setTimeout(r, 300));
    const answers = await http.stop();

    expect(recovery).toBeLessThan(2000);
    expect(sip.server.ports.udp).toBe(port);
    expect(answers.length).toBeGreaterThan(5);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(500);

    // The cut call is over in the records and the status; the WebSocket phone's contact went with its connection.
    await expect
      .poll(
        async () =>
          (await queryRows<{ status: string }>(t.database.db, sql`SELECT status FROM call_records WHERE sip_call_id = ${cut?.callId}`))[0]
            ?.status,
        {
          timeout: 5000,
        },
      )
      .toBe('destroyed');
    expect(sip.server.activeCalls()).toEqual([]);
    expect(sip.server.contacts('3704')).toEqual([]);
    const status = (await (await adminClient(t)).get('/sip/status')).json().data;
    expect(status).toMatchObject({ is_running: true, instances: [{ status: 'running', registrations: 2, active_calls: 0, crashes: 1 }] });
    caller.kill();
    busyPhone.kill();

    // The UDP phone registered before the crash is called without registering again.
    expect(sip.server.contacts('3702')).toHaveLength(1);
    const call = await sipp('uac-call.xml', callerArgs('3702', '3701', PW));
    const [callerDone, phoneDone] = await Promise.all([call.done, laterPhone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);

    // A phone new to this worker registers and is called.
    const newPhone = await sipp('uas-answer.xml', ['-s', '3703']);
    expect(await registerContact(sip.server.ports.udp, '3703', PW, newPhone.port)).toBe(200);
    const second = await sipp('uac-call.xml', callerArgs('3703', '3701', PW));
    const [secondDone, newDone] = await Promise.all([second.done, newPhone.done]);
    expect(secondDone.code, secondDone.errors).toBe(0);
    expect(newDone.code, newDone.errors).toBe(0);
  }, 60_000);

  it('terminated from outside: started again on the same port, and SIPp registers with digest', async () => {
    const phone = await sipp('uas-answer.xml', ['-s', '3702']);
    expect(await registerContact(sip.server.ports.udp, '3702', PW, phone.port)).toBe(200);
    const port = sip.server.ports.udp;
    const http = pollHttp();
    const recovery = await killAndTimeRecovery(() => void sip.server.worker.terminate());
    const answers = await http.stop();
    expect(recovery).toBeLessThan(2000);
    expect(sip.server.ports.udp).toBe(port);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);

    const call = await sipp('uac-call.xml', callerArgs('3702', '3701', PW));
    const [callerDone, phoneDone] = await Promise.all([call.done, phone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);

    const register = await sipp('register.xml', ['-s', '3703', '-au', '3703', '-ap', PW]);
    const done = await register.done;
    expect(done.code, done.errors).toBe(0);
    expect(sip.stats.crashes).toBe(2);
  }, 60_000);

  it('a reinit from the console starts a new worker on the same port, its crash count kept', async () => {
    const admin = await adminClient(t);
    const port = sip.server.ports.udp;
    const before = sip.server.worker;
    const res = await admin.post('/sip/reinit');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ is_running: true, instances: [{ status: 'running', crashes: 2 }] });
    expect(sip.server.worker).not.toBe(before);
    expect(sip.server.ports.udp).toBe(port);
    expect(await options(port)).toBe(200);
    // As before the worker: a restart forgets the registrations, the phones register again.
    expect(sip.server.registrationCount()).toBe(0);
    expect(sip.stats.restarts).toBe(1);
  });
});
