import { afterEach, describe, expect, it } from 'vitest';
import { type BaresipUa, baresipInstalled, startBaresip } from './baresip.testing.js';
import { type RtpengineProcess, rtpengineInstalled, startRtpengine } from './media-relay.testing.js';
import type { SipServer, SipServerOptions } from './server.js';
import { type RecordingObserver, startTestServer } from './testing.js';

/**
 * baresip, a real SIP user agent with audio (a tone from a WAV file as its microphone, no sound
 * card), registers to Atrium with digest authentication and calls another baresip through it: the
 * call is set up by the proxy and RTP flows end to end (each side counts the packets it received),
 * then again through rtpengine when it is installed.
 */

const skip = !baresipInstalled();
if (skip) console.warn('baresip tests skipped: /usr/bin/baresip (Debian package baresip, with its aufile module) is missing');

let server: SipServer;
let observer: RecordingObserver;
let rtpengine: RtpengineProcess | null = null;
const uas: BaresipUa[] = [];

afterEach(async () => {
  for (const ua of uas.splice(0)) await ua.stop();
  await server?.close();
  await rtpengine?.stop();
  rtpengine = null;
});

async function start(extra: Partial<SipServerOptions> = {}) {
  ({ server, observer } = await startTestServer({ '201': 'Baresip201x', '202': 'Baresip202x' }, extra));
  const ua = async (number: string) => {
    const b = await startBaresip({ number, password: `Baresip${number}x`, server: { host: '127.0.0.1', port: server.ports.udp } });
    uas.push(b);
    await b.waitFor(new RegExp(`${number}@127\\.0\\.0\\.1: \\{0/UDP/v4\\} 200 OK`));
    return b;
  };
  const callee = await ua('201');
  const caller = await ua('202');
  return { callee, caller };
}

/** The caller dials 201 through Atrium, they talk for `talkMs`, the caller hangs up. */
async function talk(caller: BaresipUa, callee: BaresipUa, talkMs: number) {
  caller.command(`/dial sip:201@127.0.0.1:${server.ports.udp}`);
  await caller.waitFor(/Call established/);
  await callee.waitFor(/Call established/);
  await new Promise((r) => setTimeout(r, talkMs));
  caller.command('/hangup');
  await caller.waitFor(/^packets:\s+\d+\s+\d+/m);
  await callee.waitFor(/^packets:\s+\d+\s+\d+/m);
}

describe.skipIf(skip)('baresip through Atrium', () => {
  it('registers with digest authentication, calls another baresip, and audio flows both ways', async () => {
    const { callee, caller } = await start();
    expect(server.contacts('201')).toHaveLength(1);
    expect(server.contacts('202')[0]?.userAgent).toMatch(/baresip/i);
    await talk(caller, callee, 2000);
    // 20 ms packets: 2 s of talk is about 100 each way; a lost few are no failure.
    const sent = caller.rtpStats();
    const heard = callee.rtpStats();
    expect(sent?.sent).toBeGreaterThan(60);
    expect(heard?.received).toBeGreaterThan(60);
    expect(caller.rtpStats()?.received).toBeGreaterThan(60);
    expect(callee.rtpStats()?.sent).toBeGreaterThan(60);
    // PCMU: 160 bytes of audio in each packet.
    expect((heard?.received ?? 0) * 160).toBeGreaterThan(9600);
    await expect.poll(() => observer.types()).toEqual(['created', 'ringing', 'answered', 'ended']);
    expect(observer.events[2]).toMatchObject({ by: '201' });
  });

  it.skipIf(!rtpengineInstalled())('the same call through rtpengine: both sides receive the other’s audio from the relay', async () => {
    rtpengine = await startRtpengine();
    const { callee, caller } = await start({ rtpengineUrl: rtpengine.url });
    await talk(caller, callee, 2000);
    expect(callee.rtpStats()?.received).toBeGreaterThan(60);
    expect(caller.rtpStats()?.received).toBeGreaterThan(60);
    // Each side's RTP came from rtpengine's port range, not from the other phone.
    const from = (ua: BaresipUa) => Number(/incoming rtp for 'audio' established, receiving from [\d.]+:(\d+)/.exec(ua.output())?.[1]);
    const { min, max } = rtpengine.ports;
    for (const ua of [caller, callee]) {
      expect(from(ua)).toBeGreaterThanOrEqual(min);
      expect(from(ua)).toBeLessThanOrEqual(max);
    }
  });
});
