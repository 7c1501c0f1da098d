import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inNetwork } from './local-address.js';
import { advertiseAddress } from './media-relay.js';
import type { SipServer } from './server.js';
import { type MemoryDirectory, registerContact, runSipp, type SippRun, startTestServer } from './testing.js';

/**
 * The project's SIP network settings applied by the running server (spec comms §3, SIP tab): the
 * internal IP for peers inside the local networks and the external IP for those outside, in Via and
 * Record-Route; early media (183 with SDP) relayed or suppressed. Real SIP user agents (SIPp); the
 * "outside" phone listens on 127.0.0.2, so the local networks can tell it from a panel on 127.0.0.1.
 */

let server: SipServer;
let directory: MemoryDirectory;
const running: SippRun[] = [];

beforeEach(async () => {
  ({ server, directory } = await startTestServer({ '101': 'Panel101' }));
});

afterEach(async () => {
  for (const run of running.splice(0)) run.kill();
  await server.close();
});

async function sipp(scenario: string, args: string[] = [], localIp = '127.0.0.1'): Promise<SippRun> {
  const run = await runSipp(scenario, server.ports.udp, args, localIp);
  running.push(run);
  return run;
}

async function callee(number: string, scenario: string, host = '127.0.0.1'): Promise<SippRun> {
  const run = await sipp(scenario, [], host);
  directory.passwords.set(number, `Pw${number}x`);
  expect(await registerContact(server.ports.udp, number, `Pw${number}x`, run.port, host)).toBe(200);
  return run;
}

const caller = (scenario: string, to: string) => sipp(scenario, ['-s', to, '-key', 'caller', '101', '-au', '101', '-ap', 'Panel101']);

async function expectSuccess(run: SippRun): Promise<void> {
  const { code, errors } = await run.done;
  expect(code, errors).toBe(0);
}

describe('local networks and addresses', () => {
  it('tells whether an address is in a network', () => {
    expect(inNetwork('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inNetwork('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(inNetwork('192.168.5.7', '192.168.5.7')).toBe(true);
    expect(inNetwork('192.168.5.8', '192.168.5.7')).toBe(false);
    expect(inNetwork('::ffff:172.20.0.1', '172.16.0.0/12')).toBe(true);
    expect(inNetwork('0.0.0.1', '0.0.0.0/0')).toBe(true);
  });

  it('writes the advertised address into the c= and o= lines of relayed SDP', () => {
    const sdp = Buffer.from('v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 30000 RTP/AVP 0\r\n');
    const out = advertiseAddress(sdp, '203.0.113.7').toString();
    expect(out).toContain('o=- 1 2 IN IP4 203.0.113.7\r\n');
    expect(out).toContain('c=IN IP4 203.0.113.7\r\n');
    expect(out).toContain('m=audio 30000 RTP/AVP 0');
  });

  it('names the external IP to a phone outside the local networks and the internal IP to a panel inside (SIPp)', async () => {
    // Applied to the running server, as a change of the SIP tab is.
    server.configure({ internalIp: '127.0.0.1', externalIp: '203.0.113.7', localNetworks: ['127.0.0.1/32'] });
    const phone = await callee('201', 'uas-answer-external.xml', '127.0.0.2');
    const panel = await caller('uac-call-split-network.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
  });

  it('names the internal address to a phone inside the local networks (the external scenario fails there)', async () => {
    server.configure({ internalIp: '127.0.0.1', externalIp: '203.0.113.7', localNetworks: ['127.0.0.0/8'] });
    const phone = await callee('201', 'uas-answer-external.xml', '127.0.0.2');
    const panel = await caller('uac-call.xml', '201');
    const { code } = await phone.done;
    expect(code).not.toBe(0);
    panel.kill();
  });

  it('without internal and external IPs, the listening host is named to everyone', async () => {
    server.configure({ internalIp: null, externalIp: null, localNetworks: ['127.0.0.1/32'] });
    const phone = await callee('201', 'uas-answer.xml', '127.0.0.2');
    const panel = await caller('uac-call.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
  });
});

describe('early media', () => {
  it('off: the callee’s 183 with SDP reaches the caller as 180 Ringing without a body (SIPp)', async () => {
    server.configure({ earlyMedia: false });
    const phone = await callee('201', 'uas-answer-early-media.xml');
    const panel = await caller('uac-call-no-early-media.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
  });

  it('on: the 183 and its SDP are relayed to the caller (SIPp)', async () => {
    server.configure({ earlyMedia: true });
    const phone = await callee('201', 'uas-answer-early-media.xml');
    const panel = await caller('uac-call-early-media.xml', '201');
    await Promise.all([expectSuccess(panel), expectSuccess(phone)]);
  });

  it('off: a caller expecting the 183 does not get it', async () => {
    server.configure({ earlyMedia: false });
    const phone = await callee('201', 'uas-answer-early-media.xml');
    const panel = await caller('uac-call-early-media.xml', '201');
    const { code } = await panel.done;
    expect(code).not.toBe(0);
    phone.kill();
  });
});
