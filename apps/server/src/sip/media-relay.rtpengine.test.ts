import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Bencoded, RtpengineClient } from './media-relay.js';
import { type RtpengineProcess, rtpengineInstalled, startRtpengine } from './media-relay.testing.js';
import type { SipServer } from './server.js';
import { callerArgs, type RecordingObserver, registerContact, runSipp, type SippRun, silentLog, startTestServer } from './testing.js';

/**
 * A real rtpengine (userspace) between two SIPp phones: the SDPs each side receives name rtpengine's
 * ports, and the panel's recorded voice flows through it and back.
 */

const skip = !rtpengineInstalled();
if (skip) console.warn('media relay tests skipped: /usr/bin/rtpengine is missing (Debian package rtpengine-daemon)');

let rtpengine: RtpengineProcess;
let control: RtpengineClient;
let server: SipServer;
let observer: RecordingObserver;
let traces: string;
const running: SippRun[] = [];

beforeAll(async () => {
  if (skip) return;
  rtpengine = await startRtpengine();
  control = await RtpengineClient.connect(rtpengine.url, silentLog);
});

afterAll(async () => {
  if (skip) return;
  await control?.close();
  await rtpengine?.stop();
});

beforeEach(async () => {
  if (skip) return;
  traces = mkdtempSync(path.join(tmpdir(), 'atrium-relay-'));
  ({ server, observer } = await startTestServer({ '101': 'Panel101', '201': 'Pw201x' }, { rtpengineUrl: rtpengine.url }));
});

afterEach(async () => {
  if (skip) return;
  for (const run of running.splice(0)) run.kill();
  await server.close();
  rmSync(traces, { recursive: true, force: true });
});

/** The SDP bodies in a SIPp message trace. */
function sdpsIn(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(v=0[\s\S]*?)(?=\n-{5,}|\n\s*\n\s*\n|$)/g)].map((m) => m[1] ?? '');
}

const audioPort = (sdp: string) => Number(/^m=audio (\d+) /m.exec(sdp)?.[1]);

describe.skipIf(skip)('media relay with rtpengine', () => {
  it("rewrites both SDPs to rtpengine's ports and relays the panel's voice", async () => {
    const phoneTrace = path.join(traces, 'phone.log');
    const panelTrace = path.join(traces, 'panel.log');
    const phone = await runSipp('uas-answer-audio.xml', server.ports.udp, ['-rtp_echo', '-trace_msg', '-message_file', phoneTrace]);
    running.push(phone);
    expect(await registerContact(server.ports.udp, '201', 'Pw201x', phone.port)).toBe(200);
    const panel = await runSipp('uac-call-audio.xml', server.ports.udp, [
      ...callerArgs('201', '101', 'Panel101'),
      '-trace_msg',
      '-message_file',
      panelTrace,
    ]);
    running.push(panel);

    const answered = await observer.waitFor('answered');
    // The recorded voice plays for 2.5 s: look at rtpengine's counters in the middle of it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stats = await control.query(answered.callId);

    const [panelDone, phoneDone] = await Promise.all([panel.done, phone.done]);
    expect(panelDone.code, panelDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });

    const inRange = (port: number) => port >= rtpengine.ports.min && port <= rtpengine.ports.max;
    // The phone's trace holds the INVITE it received (then its own 200); the panel's, its INVITEs and the 200 it received.
    const offerToPhone = sdpsIn(phoneTrace)[0] ?? '';
    const panelSdps = sdpsIn(panelTrace);
    const answerToPanel = panelSdps[panelSdps.length - 1] ?? '';
    expect(inRange(audioPort(offerToPhone)), offerToPhone).toBe(true);
    expect(inRange(audioPort(answerToPanel)), answerToPanel).toBe(true);
    expect(offerToPhone).toMatch(/^c=IN IP4 127\.0\.0\.1/m);
    expect(offerToPhone).toMatch(/RTP\/AVP 8/);
    expect(offerToPhone).not.toMatch(/a=ice-|a=fingerprint/);

    const totals = stats.totals as { [key: string]: Bencoded };
    const rtp = totals.RTP as { [key: string]: number };
    expect(rtp.packets, JSON.stringify(stats)).toBeGreaterThan(20);
    expect(rtp.bytes).toBeGreaterThan(20 * 160);

    // The call's end deleted it from rtpengine.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(control.query(answered.callId)).rejects.toThrow(/Unknown call-id|refused/);
  }, 30_000);

  it('turns a WebRTC offer into plain RTP for a panel, and the panel’s answer into WebRTC for the caller', async () => {
    const phoneTrace = path.join(traces, 'phone.log');
    const panelTrace = path.join(traces, 'caller.log');
    const phone = await runSipp('uas-answer.xml', server.ports.udp, ['-trace_msg', '-message_file', phoneTrace]);
    running.push(phone);
    expect(await registerContact(server.ports.udp, '201', 'Pw201x', phone.port)).toBe(200);
    const caller = await runSipp('uac-call-webrtc-offer.xml', server.ports.udp, [
      ...callerArgs('201', '101', 'Panel101'),
      '-trace_msg',
      '-message_file',
      panelTrace,
    ]);
    running.push(caller);
    const [callerDone, phoneDone] = await Promise.all([caller.done, phone.done]);
    expect(callerDone.code, callerDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);

    const offerToPhone = sdpsIn(phoneTrace)[0] ?? '';
    expect(offerToPhone).toMatch(/^m=audio \d+ RTP\/AVP 0/m);
    expect(offerToPhone).not.toMatch(/a=ice-|a=fingerprint|a=setup|a=rtcp-mux|a=candidate/);
    const callerSdps = sdpsIn(panelTrace);
    const answerToCaller = callerSdps[callerSdps.length - 1] ?? '';
    expect(answerToCaller).toMatch(/^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 0/m);
    expect(answerToCaller).toMatch(/^a=ice-ufrag:/m);
    expect(answerToCaller).toMatch(/^a=fingerprint:sha-256 /m);
    expect(answerToCaller).toMatch(/^a=setup:passive/m);
    expect(answerToCaller).toMatch(/^a=rtcp-mux/m);
    expect(answerToCaller).toMatch(/^a=candidate:\S+ 1 UDP \d+ 127\.0\.0\.1 \d+ typ host/m);
  }, 30_000);

  it('relays the re-INVITEs of a hold and a resume through rtpengine', async () => {
    const panelTrace = path.join(traces, 'panel.log');
    const phone = await runSipp('uas-answer-hold-resume.xml', server.ports.udp);
    running.push(phone);
    expect(await registerContact(server.ports.udp, '201', 'Pw201x', phone.port)).toBe(200);
    const panel = await runSipp('uac-call-held-resumed.xml', server.ports.udp, [
      ...callerArgs('201', '101', 'Panel101'),
      '-trace_msg',
      '-message_file',
      panelTrace,
    ]);
    running.push(panel);
    const [panelDone, phoneDone] = await Promise.all([panel.done, phone.done]);
    expect(panelDone.code, panelDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);
    expect(await observer.waitFor('resumed')).toMatchObject({ by: '201' });

    // The hold offer reached the panel rewritten by rtpengine, its direction kept.
    const held = sdpsIn(panelTrace).find((sdp) => /^a=sendonly/m.test(sdp)) ?? '';
    expect(audioPort(held)).toBeGreaterThanOrEqual(rtpengine.ports.min);
    expect(audioPort(held)).toBeLessThanOrEqual(rtpengine.ports.max);
  }, 30_000);
  it('takes a late offer from the 2xx and its answer from the ACK, both through rtpengine', async () => {
    const phoneTrace = path.join(traces, 'phone.log');
    const panelTrace = path.join(traces, 'panel.log');
    const phone = await runSipp('uas-answer.xml', server.ports.udp, ['-trace_msg', '-message_file', phoneTrace]);
    running.push(phone);
    expect(await registerContact(server.ports.udp, '201', 'Pw201x', phone.port)).toBe(200);
    const panel = await runSipp('uac-call-late-offer.xml', server.ports.udp, [
      ...callerArgs('201', '101', 'Panel101'),
      '-trace_msg',
      '-message_file',
      panelTrace,
    ]);
    running.push(panel);
    const answered = await observer.waitFor('answered');
    const [panelDone, phoneDone] = await Promise.all([panel.done, phone.done]);
    expect(panelDone.code, panelDone.errors).toBe(0);
    expect(phoneDone.code, phoneDone.errors).toBe(0);
    expect(await observer.waitFor('ended')).toMatchObject({ callId: answered.callId, outcome: 'answered' });

    const inRange = (port: number) => port >= rtpengine.ports.min && port <= rtpengine.ports.max;
    // The panel's trace: the offer it received in the 200, then its own answer in the ACK.
    const [offerToPanel = '', ownAnswer = ''] = sdpsIn(panelTrace);
    expect(inRange(audioPort(offerToPanel)), offerToPanel).toBe(true);
    expect(offerToPanel).toMatch(/RTP\/AVP 0/);
    expect(inRange(audioPort(ownAnswer))).toBe(false);
    // The phone's trace: its own offer in the 200, then the panel's answer as the ACK brought it.
    const [ownOffer = '', answerToPhone = ''] = sdpsIn(phoneTrace);
    expect(inRange(audioPort(ownOffer))).toBe(false);
    expect(inRange(audioPort(answerToPhone)), answerToPhone).toBe(true);
    expect(answerToPhone).toMatch(/^c=IN IP4 127\.0\.0\.1/m);
  }, 30_000);
});
