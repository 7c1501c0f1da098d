// The SIP tab's RTP port range reaching the media relay: with RTPENGINE_BIN, Atrium runs rtpengine
// itself with the project's range, and a change of the range starts it again on the new one. Two
// baresip phones (real user agents with audio) call through Atrium; the RTP each receives comes
// from the relay's ports inside the range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type BaresipUa, baresipInstalled, startBaresip } from '../../sip/baresip.testing.js';
import { RTPENGINE_BIN, rtpengineInstalled } from '../../sip/media-relay.testing.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

const skip = !baresipInstalled() || !rtpengineInstalled();
if (skip) console.warn('RTP range tests skipped: they need /usr/bin/baresip and /usr/bin/rtpengine (Debian baresip, rtpengine-daemon)');

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let sip: SipRuntime | null = null;
const uas: BaresipUa[] = [];
const PW = 'Baresip123x';

beforeAll(async () => {
  if (skip) return;
  t = await buildTestApp();
  admin = await adminClient(t);
  for (const number of ['6201', '6202']) {
    const res = await admin.put('/sip-numbers', { domain_id: t.project.rootGroupId, number, password: PW });
    expect(res.statusCode, res.body).toBe(200);
  }
  const first = 36000 + 200 * Math.floor(Math.random() * 10);
  expect((await admin.patch('/settings/sip', { rtp: { min: first, max: first + 99 } })).statusCode).toBe(200);
  sip = await startSip(t.app, {
    ...t.app.config,
    sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null, rtpengineBin: RTPENGINE_BIN },
  });
});
afterAll(async () => {
  for (const ua of uas.splice(0)) await ua.stop();
  await sip?.close();
  await t?.close();
});

/** A call 6202 → 6201 through Atrium; the ports each side received RTP from. */
async function call(): Promise<number[]> {
  const server = sip as SipRuntime;
  const ua = async (number: string) => {
    const b = await startBaresip({ number, password: PW, server: { host: '127.0.0.1', port: server.server.ports.udp } });
    uas.push(b);
    await b.waitFor(/\{0\/UDP\/v4\} 200 OK/);
    return b;
  };
  const callee = await ua('6201');
  const caller = await ua('6202');
  caller.command(`/dial sip:6201@127.0.0.1:${server.server.ports.udp}`);
  await caller.waitFor(/Call established/);
  await callee.waitFor(/Call established/);
  await new Promise((r) => setTimeout(r, 1500));
  caller.command('/hangup');
  await caller.waitFor(/^packets:\s+\d+\s+\d+/m);
  await callee.waitFor(/^packets:\s+\d+\s+\d+/m);
  const ports: number[] = [];
  for (const b of [caller, callee]) {
    expect(b.rtpStats()?.received).toBeGreaterThan(40);
    ports.push(Number(/incoming rtp for 'audio' established, receiving from [\d.]+:(\d+)/.exec(b.output())?.[1]));
  }
  for (const b of uas.splice(0)) await b.stop();
  return ports;
}

describe.skipIf(skip)('the RTP port range of the SIP tab', () => {
  it('is the range of the rtpengine Atrium runs, and a change starts it again on the new one', async () => {
    let { rtp } = (await admin.get('/settings/sip')).json().data as { rtp: { min: number; max: number } };
    for (const port of await call()) {
      expect(port).toBeGreaterThanOrEqual(rtp.min);
      expect(port).toBeLessThanOrEqual(rtp.max);
    }
    const next = rtp.min + 2000;
    const res = await admin.patch('/settings/sip', { rtp: { min: next, max: next + 99 } });
    expect(res.statusCode, res.body).toBe(200);
    rtp = res.json().data.rtp;
    expect(rtp).toEqual({ min: next, max: next + 99 });
    for (const port of await call()) {
      expect(port).toBeGreaterThanOrEqual(next);
      expect(port).toBeLessThanOrEqual(next + 99);
    }
  });
});
