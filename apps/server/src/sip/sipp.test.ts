import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SipServer } from './server.js';
import { type MemoryDirectory, type RecordingObserver, registerContact, runSipp, type SippRun, startTestServer } from './testing.js';

/** Real SIP user agents (SIPp) against the server: registration, calls, forwarding, stop-call. */

let server: SipServer;
let directory: MemoryDirectory;
let observer: RecordingObserver;
const running: SippRun[] = [];

async function sipp(scenario: string, args: string[] = [], port = server.ports.udp): Promise<SippRun> {
  const run = await runSipp(scenario, port, args);
  running.push(run);
  return run;
}

async function expectSuccess(run: SippRun): Promise<void> {
  const { code, errors } = await run.done;
  expect(code, errors).toBe(0);
}

/** A callee SIPp waiting with `scenario`, registered as `number`. */
async function callee(number: string, scenario: string): Promise<SippRun> {
  const run = await sipp(scenario);
  directory.passwords.set(number, `Pw${number}x`);
  expect(await registerContact(server.ports.udp, number, `Pw${number}x`, run.port)).toBe(200);
  return run;
}

const caller = (scenario: string, callee: string) =>
  sipp(scenario, ['-s', callee, '-key', 'caller', '101', '-au', '101', '-ap', 'Panel101']);

beforeEach(async () => {
  ({ server, directory, observer } = await startTestServer({ '101': 'Panel101' }));
});

afterEach(async () => {
  for (const run of running.splice(0)) run.kill();
  await server.close();
});

describe('SIP server with SIPp', () => {
  it('registers with digest authentication and unregisters with Expires: 0', async () => {
    directory.passwords.set('201', 'Secret201');
    const run = await sipp('register.xml', ['-s', '201', '-au', '201', '-ap', 'Secret201']);
    await expectSuccess(run);
    expect(observer.registrations.map((r) => r.change)).toEqual(['added', 'removed']);
    expect(observer.registrations[0]?.contact).toMatchObject({ number: '201', transport: 'udp', userAgent: 'SIPp' });
    expect(server.contacts('201')).toEqual([]);
  });

  it('challenges a number that does not exist as one that does, and refuses both digests alike', async () => {
    directory.passwords.set('201', 'Secret201');
    await expectSuccess(await sipp('register-refused.xml', ['-s', '201', '-au', '201', '-ap', 'NotTheSecret']));
    await expectSuccess(await sipp('register-refused.xml', ['-s', '999', '-au', '999', '-ap', 'Secret201']));
    expect(observer.registrations).toEqual([]);
  });

  it("registers over TCP, keeping the connection as the contact's flow", async () => {
    directory.passwords.set('201', 'Secret201');
    const run = await sipp('register.xml', ['-t', 't1', '-s', '201', '-au', '201', '-ap', 'Secret201'], server.ports.tcp);
    await expectSuccess(run);
    expect(observer.registrations.map((r) => [r.change, r.contact.transport])).toEqual([
      ['added', 'tcp'],
      ['removed', 'tcp'],
    ]);
  });

  it('connects a panel to a registered phone and records the call until BYE', async () => {
    const phone = await callee('201', 'uas-answer.xml');
    const panel = await caller('uac-call.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
    expect(observer.types()).toEqual(['created', 'ringing', 'answered', 'ended']);
    expect(observer.events[0]).toMatchObject({ caller: '101', callee: '201', sos: false });
    expect(observer.events[1]).toMatchObject({ numbers: ['201'] });
    expect(observer.events[2]).toMatchObject({ by: '201' });
    expect(observer.events[3]).toMatchObject({ outcome: 'answered', status: 200 });
    expect(directory.invites[0]?.headers['x-speech-type']).toBe('intercom');
  });

  it('forwards to the next stage when the first does not answer in time', async () => {
    const first = await callee('201', 'uas-noanswer.xml');
    const second = await callee('202', 'uas-answer.xml');
    directory.routes.set('201', {
      kind: 'fork',
      callee: '201',
      sos: false,
      stages: [
        { targets: [{ kind: 'number', number: '201' }], timeoutSeconds: 1, reason: 'initial' },
        { targets: [{ kind: 'number', number: '202' }], timeoutSeconds: null, reason: 'no_answer' },
      ],
    });
    const panel = await caller('uac-call.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(first), expectSuccess(second)]);
    expect(await observer.waitFor('forwarded')).toMatchObject({ reason: 'no_answer', numbers: ['202'] });
    expect(await observer.waitFor('answered')).toMatchObject({ by: '202' });
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });
  });

  it('ends with busy when the phone answers 486', async () => {
    const phone = await callee('201', 'uas-busy.xml');
    const panel = await caller('uac-busy.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'busy', status: 486 });
  });

  it('ends with cancel when the caller gives up while it rings', async () => {
    const phone = await callee('201', 'uas-noanswer.xml');
    const panel = await caller('uac-cancel.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'cancel', status: 487 });
  });

  it('sees the door-opening DTMF # sent in a SIP INFO', async () => {
    const phone = await callee('201', 'uas-answer-info.xml');
    const panel = await caller('uac-dtmf.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
    expect(await observer.waitFor('dtmf')).toMatchObject({ from: '101', digit: '#' });
  });

  it('sees the answerer hold the call (re-INVITE sendonly) and resume it (sendrecv)', async () => {
    const phone = await callee('201', 'uas-answer-hold-resume.xml');
    const panel = await caller('uac-call-held-resumed.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });
    expect(observer.types()).toEqual(['created', 'ringing', 'answered', 'held', 'resumed', 'ended']);
    expect(await observer.waitFor('held')).toMatchObject({ by: '201' });
    expect(await observer.waitFor('resumed')).toMatchObject({ by: '201' });
  });

  it('stops an answered call from the console with a BYE to both sides', async () => {
    const phone = await callee('201', 'uas-answer.xml');
    const panel = await caller('uac-wait-bye.xml', '201');
    const answered = await observer.waitFor('answered');
    expect(server.activeCalls()).toMatchObject([{ callId: answered.callId, state: 'answered', answeredBy: '201' }]);
    expect(await server.endCall(answered.callId)).toBe(true);
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });
    expect(server.activeCalls()).toEqual([]);
    expect(await server.endCall('no-such-call')).toBe(false);
  });
});
