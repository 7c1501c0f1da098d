import { describe, expect, it } from 'vitest';
import { type Branch, bestResponse, dtmfDigit, outcomeOf, sdpHolds } from './call.js';
import { SipHeaders, type SipResponse } from './message.js';

const response = (status: number): SipResponse => ({
  kind: 'response',
  status,
  reason: '',
  headers: new SipHeaders(),
  body: Buffer.alloc(0),
});
const branch = (status: number, cancelled = false): Branch => ({
  number: String(status),
  stage: 0,
  trunk: null,
  dest: null,
  request: null,
  tx: null,
  final: response(status),
  localFailure: null,
  cancelled,
  authTried: false,
  cseqOffset: 0,
});

describe('bestResponse', () => {
  it('prefers 6xx, then 486, then the lowest class, and ignores our own 487s', () => {
    expect(bestResponse([branch(503), branch(603), branch(486)]).status).toBe(603);
    expect(bestResponse([branch(503), branch(480), branch(486)]).status).toBe(486);
    expect(bestResponse([branch(503), branch(404)]).status).toBe(404);
    expect(bestResponse([branch(487, true), branch(503)]).status).toBe(503);
    expect(bestResponse([branch(487, true)]).status).toBe(487);
    expect(bestResponse([]).status).toBe(480);
  });
});

describe('outcomeOf', () => {
  it('maps final statuses to the call outcomes of the spec', () => {
    expect([200, 486, 600, 480, 408, 487, 404, 503].map(outcomeOf)).toEqual([
      'answered',
      'busy',
      'busy',
      'noanswer',
      'noanswer',
      'cancel',
      'failed',
      'failed',
    ]);
  });
});

describe('dtmfDigit', () => {
  it('reads application/dtmf-relay and application/dtmf bodies', () => {
    expect(dtmfDigit('application/dtmf-relay', Buffer.from('Signal=#\r\nDuration=160\r\n'))).toBe('#');
    expect(dtmfDigit('Application/DTMF-Relay; charset=x', Buffer.from('signal= 5\r\n'))).toBe('5');
    expect(dtmfDigit('application/dtmf', Buffer.from('11'))).toBe('#');
    expect(dtmfDigit('application/dtmf', Buffer.from('*'))).toBe('*');
    expect(dtmfDigit('application/sdp', Buffer.from('Signal=#'))).toBeNull();
    expect(dtmfDigit('application/dtmf-relay', Buffer.from('Signal=xyz'))).toBeNull();
  });
});

describe('sdpHolds', () => {
  const sdp = (...lines: string[]) =>
    Buffer.from(['v=0', 'o=- 1 1 IN IP4 10.0.0.1', 's=-', 'c=IN IP4 10.0.0.1', 't=0 0', ...lines, ''].join('\r\n'));
  const type = 'application/sdp';
  it('reads hold from sendonly or inactive media, or a 0.0.0.0 address', () => {
    expect(sdpHolds(type, sdp('m=audio 4000 RTP/AVP 0', 'a=sendonly'))).toBe(true);
    expect(sdpHolds(type, sdp('m=audio 4000 RTP/AVP 0', 'a=inactive', 'm=video 0 RTP/AVP 96'))).toBe(true);
    expect(sdpHolds(type, sdp('a=sendonly', 'm=audio 4000 RTP/AVP 0'))).toBe(true);
    expect(sdpHolds(type, sdp('m=audio 4000 RTP/AVP 0', 'c=IN IP4 0.0.0.0'))).toBe(true);
  });
  it('reads resume from sendrecv or no direction, and nothing from an offerless re-INVITE', () => {
    expect(sdpHolds(type, sdp('m=audio 4000 RTP/AVP 0', 'a=sendrecv'))).toBe(false);
    expect(sdpHolds(type, sdp('m=audio 4000 RTP/AVP 0'))).toBe(false);
    expect(sdpHolds(type, sdp('m=audio 4000 RTP/AVP 0', 'a=sendonly', 'm=video 4002 RTP/AVP 96', 'a=sendrecv'))).toBe(false);
    expect(sdpHolds(undefined, Buffer.alloc(0))).toBeNull();
    expect(sdpHolds('application/dtmf-relay', Buffer.from('Signal=#'))).toBeNull();
  });
});
