import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RtpengineProcess, rtpengineInstalled, startRtpengine } from './media-relay.testing.js';
import { holdSdp } from './park.js';
import type { SipServer } from './server.js';
import { callerArgs, type RecordingObserver, runSipp, type SippRun, startTestServer } from './testing.js';
import { sdp, WsPhone } from './ws-phone.testing.js';

/**
 * Parked calls (park.ts) with real agents: SIPp is the door panel, a WebSocket client the
 * concierge's browser (as ws.test.ts), closed to stand for a page reload and opened anew to resume.
 */

let server: SipServer | null = null;
let observer: RecordingObserver;
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  WsPhone.closeAll();
  await server?.close();
  server = null;
});

function sip(): SipServer {
  if (!server) throw new Error('no server');
  return server;
}

async function parkedCall(scenario: string, extra: Parameters<typeof startTestServer>[1] = {}, sippArgs: string[] = []) {
  let started: SipServer;
  ({ server: started, observer } = await startTestServer({ '101': 'Panel101', '301': 'Browser301', '302': 'Other302' }, extra));
  server = started;
  const browser = await WsPhone.open(sip().ports.ws, '301');
  await browser.register('Browser301');
  const panel: SippRun = await runSipp(scenario, sip().ports.udp, [...callerArgs('301', '101', 'Panel101'), ...sippArgs]);
  cleanups.push(() => panel.kill());
  await browser.answerAndHold();
  expect(await observer.waitFor('held')).toMatchObject({ by: '301' });
  const created = await observer.waitFor('created');
  // The page reloads: its WebSocket flow closes while the call is held.
  browser.close();
  return { panel, speechId: created.speechId ?? created.callId, callId: created.callId };
}

describe('parked calls', () => {
  it('keeps a held call when the holder’s flow closes, answers the panel, and resumes it from a new connection', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-park-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const trace = path.join(dir, 'panel.log');
    const { panel, speechId, callId } = await parkedCall('uac-call-parked.xml', {}, ['-trace_msg', '-message_file', trace]);
    await new Promise((r) => setTimeout(r, 300));
    // Still an answered call for the console while parked (the panel's OPTIONS and re-INVITE are answered meanwhile).
    expect(sip().activeCalls()).toMatchObject([{ callId, state: 'answered', answeredBy: '301' }]);
    await new Promise((r) => setTimeout(r, 2500));

    const again = await WsPhone.open(sip().ports.ws, '301');
    const { res, dialog } = await again.resume(speechId, 'Browser301');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toMatch(/a=sendrecv/);
    expect(await observer.waitFor('resumed')).toMatchObject({ by: '301' });

    // The door digit goes on to the panel and is seen as DTMF of the concierge.
    const info = again.build('INFO', 'sip:127.0.0.1', { ...dialog, cseq: 4 });
    info.headers.add('Content-Type', 'application/dtmf-relay');
    info.body = Buffer.from('Signal=#\r\nDuration=160\r\n');
    again.send(info);
    expect((await again.response()).status).toBe(200);
    expect(await observer.waitFor('dtmf')).toMatchObject({ from: '301', digit: '#' });

    again.send(again.build('BYE', 'sip:127.0.0.1', { ...dialog, cseq: 5 }));
    expect((await again.response()).status).toBe(200);
    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });
    expect(observer.types()).toEqual(['created', 'answered', 'held', 'resumed', 'dtmf', 'ended']);
    expect(sip().activeCalls()).toEqual([]);
    // The server's answer to the panel's re-INVITE while parked kept the call on hold.
    expect(readFileSync(trace, 'utf8')).toMatch(
      /o=atrium 1 \d+ IN IP4 127\.0\.0\.1[\s\S]*m=audio 9 RTP\/AVP 0\r?\na=rtpmap:0 PCMU\/8000\r?\na=inactive/,
    );
  }, 30_000);

  it('ends a parked call nobody resumes with a BYE to the panel', async () => {
    const { panel } = await parkedCall('uac-call-parked-timeout.xml', { parkTimeoutMs: 1500 });
    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered', status: 200 });
    expect(observer.types()).toEqual(['created', 'answered', 'held', 'ended']);
  }, 30_000);

  it.each([
    ['keeps a call parked when its resume is cancelled before the panel answers', 'uac-call-parked-cancel.xml'],
    // The panel's scenario expects the server's own re-INVITE offering every stream inactive.
    ['holds the panel again when its answer to a cancelled resume crossed the CANCEL', 'uac-call-parked-cancel-crossed.xml'],
  ])(
    '%s',
    async (_, scenario) => {
      const { panel, speechId } = await parkedCall(scenario, { parkTimeoutMs: 2500 });
      const again = await WsPhone.open(sip().ports.ws, '301');
      expect((await again.resume(speechId, 'Browser301', '101', 300)).res.status).toBe(487);
      const { code, errors } = await panel.done;
      expect(code, errors).toBe(0);
      expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });
      expect(observer.types()).toEqual(['created', 'answered', 'held', 'ended']);
    },
    30_000,
  );

  it('refuses a resume by another number or of an unknown call; the panel’s BYE while parked ends the call', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-park-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const trace = path.join(dir, 'panel.log');
    const { panel, speechId } = await parkedCall('uac-call-parked-bye.xml', {}, ['-trace_msg', '-message_file', trace]);
    const stranger = await WsPhone.open(sip().ports.ws, '302');
    expect((await stranger.resume(speechId, 'Other302')).res.status).toBe(403);
    expect((await stranger.resume('no-such-call', 'Other302')).res.status).toBe(404);
    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered' });
    // Ended: nothing left to resume.
    const late = await WsPhone.open(sip().ports.ws, '301');
    expect((await late.resume(speechId, 'Browser301')).res.status).toBe(404);
    expect(observer.types()).toEqual(['created', 'answered', 'held', 'ended']);
    // The server's 200 to the panel's re-INVITE while parked (UDP) came again until the panel's ACK, and not after it.
    const log = readFileSync(trace, 'utf8');
    const ackAt = log.search(/message sent[^\n]*\n+\s*ACK [^\n]*\n(?:[^\n]+\n)*?\s*CSeq: 3 ACK/);
    expect(ackAt).toBeGreaterThan(0);
    const answers = (text: string) => text.match(/SIP\/2\.0 200 OK\r?\n(?:[^\n]+\n)*?\s*CSeq: 3 INVITE/g)?.length ?? 0;
    expect(answers(log.slice(0, ackAt))).toBeGreaterThanOrEqual(2);
    expect(answers(log.slice(ackAt))).toBe(0);
  }, 30_000);
});

describe.skipIf(!rtpengineInstalled())('a parked call with the media relay', () => {
  let rtpengine: RtpengineProcess | null = null;
  afterEach(async () => {
    await rtpengine?.stop();
    rtpengine = null;
  });

  it('resumes through rtpengine (WebRTC towards the browser, plain RTP towards the panel) and relays a new hold', async () => {
    rtpengine = await startRtpengine();
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-park-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const trace = path.join(dir, 'panel.log');
    const { panel, speechId } = await parkedCall('uac-call-parked-relay.xml', { rtpengineUrl: rtpengine.url }, [
      '-trace_msg',
      '-message_file',
      trace,
    ]);
    await new Promise((r) => setTimeout(r, 300));
    const again = await WsPhone.open(sip().ports.ws, '301');
    const { res, dialog } = await again.resume(speechId, 'Browser301');
    expect(res.status).toBe(200);
    // The browser's answer comes from rtpengine as WebRTC.
    expect(res.body.toString()).toMatch(/^m=audio \d+ UDP\/TLS\/RTP\/SAVPF /m);
    expect(res.body.toString()).toMatch(/^a=ice-ufrag:/m);

    // Held again from the resumed browser: through the server to the panel.
    again.send(again.build('INVITE', 'sip:127.0.0.1', { ...dialog, cseq: 3, body: sdp('sendonly') }));
    expect((await again.response()).status).toBe(200);
    again.send(again.build('ACK', 'sip:127.0.0.1', { ...dialog, cseq: 3 }));
    again.send(again.build('BYE', 'sip:127.0.0.1', { ...dialog, cseq: 4 }));
    expect((await again.response()).status).toBe(200);
    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    expect(observer.types()).toEqual(['created', 'answered', 'held', 'resumed', 'held', 'ended']);
    // The resumed offer reached the panel as plain RTP on an rtpengine port.
    const panelSdps = readFileSync(trace, 'utf8');
    const resumed = [...panelSdps.matchAll(/m=audio (\d+) (\S+)/g)].map((m) => [Number(m[1]), m[2]]);
    expect(
      resumed.some(
        ([port, proto]) =>
          proto === 'RTP/AVP' && Number(port) >= (rtpengine?.ports.min ?? 0) && Number(port) <= (rtpengine?.ports.max ?? 0),
      ),
    ).toBe(true);
  }, 30_000);
});

describe('holdSdp', () => {
  it('answers every offered stream inactive with its first format, in order', () => {
    const offer = 'v=0\r\nm=audio 4000 RTP/AVP 8 0\r\na=rtpmap:8 PCMA/8000\r\nm=video 0 RTP/AVP 96\r\n';
    const text = holdSdp(offer, '10.0.0.1', 3).toString();
    expect(text).toContain('o=atrium 1 3 IN IP4 10.0.0.1');
    expect(text).toMatch(/m=audio 9 RTP\/AVP 8\r\na=rtpmap:8 PCMA\/8000\r\na=inactive\r\nm=video 0 RTP\/AVP 96\r\n$/);
  });
});
