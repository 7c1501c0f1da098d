import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseUri, tagOf, userOf } from './address.js';
import { authorize, digestResponse, parseAuthHeader } from './digest.js';
import { createResponse, cseqOf, type SipRequest, type SipResponse } from './message.js';
import type { SipServer } from './server.js';
import { type MemoryDirectory, makeRequest, type RecordingObserver, registerContact, startTestServer, UdpPeer } from './testing.js';
import type { SipTrunkRoute } from './types.js';
import { sdp, WsPhone } from './ws-phone.testing.js';

/** The forking proxy at the protocol level, with bare UDP peers as panel, phones and trunk. */

let server: SipServer;
let directory: MemoryDirectory;
let observer: RecordingObserver;
const peers: UdpPeer[] = [];

beforeEach(async () => {
  ({ server, directory, observer } = await startTestServer({ '101': 'Panel101' }, { timers: { t1Ms: 50 } }));
});

afterEach(async () => {
  for (const p of peers.splice(0)) p.close();
  await server.close();
});

async function peer(): Promise<UdpPeer> {
  // As a phone's transaction layer would, a repeated response is dropped: with T1 at 50 ms a 407 is
  // often sent again before the ACK arrives, and must not be read as the next request's answer.
  const p = await UdpPeer.open({ absorbRepeatedResponses: true });
  peers.push(p);
  return p;
}

async function phone(number: string): Promise<UdpPeer> {
  const p = await peer();
  directory.passwords.set(number, `Pw${number}x`);
  expect(await registerContact(server.ports.udp, number, `Pw${number}x`, p.port)).toBe(200);
  return p;
}

let callCounter = 0;

/** The panel 101 INVITEs `callee` and answers the 407; returns the INVITE it sent last. */
async function dial(
  panel: UdpPeer,
  callee: string,
  opts: { password?: string; maxForwards?: string; from?: string; extra?: Array<[string, string]> } = {},
): Promise<SipRequest> {
  callCounter++;
  const base = {
    port: panel.port,
    from: opts.from ?? '<sip:101@atrium.test>;tag=panel',
    to: `<sip:${callee}@atrium.test>`,
    callId: `call-${callCounter}-${panel.port}`,
    extra: [['Contact', `<sip:101@127.0.0.1:${panel.port}>`], ...(opts.extra ?? [])] as Array<[string, string]>,
  };
  const uri = `sip:${callee}@127.0.0.1:${server.ports.udp}`;
  const first = makeRequest('INVITE', uri, { ...base, cseq: 1 });
  panel.send(first, server.ports.udp);
  const challenge = await panel.response();
  expect(challenge.status).toBe(407);
  const ack = makeRequest('ACK', uri, { ...base, to: challenge.headers.get('to') ?? '', cseq: 1 });
  ack.headers.set('Via', first.headers.get('via') ?? '');
  panel.send(ack, server.ports.udp);
  const params = parseAuthHeader(challenge.headers.get('proxy-authenticate') ?? '');
  if (!params) throw new Error('no challenge');
  const auth = authorize(params, { username: '101', password: opts.password ?? 'Panel101' }, 'INVITE', uri);
  const extra = [...base.extra, ['Proxy-Authorization', auth] as [string, string]];
  const second = makeRequest('INVITE', uri, { ...base, cseq: 2, extra });
  if (opts.maxForwards) second.headers.set('Max-Forwards', opts.maxForwards);
  panel.send(second, server.ports.udp);
  return second;
}

/** A phone's answer to the INVITE it got, sent back to the server. */
function reply(p: UdpPeer, invite: SipRequest, status: number, reason: string, tag = `tag${p.port}`): SipResponse {
  const res = createResponse(invite, status, reason, tag);
  for (const rr of invite.headers.getAll('record-route')) res.headers.add('Record-Route', rr);
  res.headers.add('Contact', `<sip:phone@127.0.0.1:${p.port}>`);
  p.send(res, server.ports.udp);
  return res;
}

async function nextRequest(p: UdpPeer, method: string): Promise<SipRequest> {
  for (;;) {
    const req = await p.request();
    if (req.method === method) return req;
  }
}

describe('proxy authentication and routing', () => {
  it('answers 403 to a wrong password and 483 when Max-Forwards is spent', async () => {
    const panel = await peer();
    const invite = await dial(panel, '201', { password: 'nope' });
    const forbidden = await panel.response();
    expect(forbidden.status).toBe(403);
    const ack = makeRequest('ACK', invite.uri, {
      port: panel.port,
      from: invite.headers.get('from') ?? '',
      to: forbidden.headers.get('to') ?? '',
      callId: invite.headers.get('call-id') ?? '',
      cseq: cseqOf(invite).seq,
    });
    ack.headers.set('Via', invite.headers.get('via') ?? '');
    panel.send(ack, server.ports.udp);
    expect(await panel.silent(150)).toBe(true);
    await dial(panel, '201', { maxForwards: '0' });
    expect((await panel.response()).status).toBe(483);
  });

  it('challenges a caller claiming an unknown number as a known one, and refuses its digest as a wrong password', async () => {
    const panel = await peer();
    const first = (from: string, callId: string) =>
      makeRequest('INVITE', `sip:201@127.0.0.1:${server.ports.udp}`, {
        port: panel.port,
        from,
        to: '<sip:201@atrium.test>',
        callId,
        cseq: 1,
      });
    // Unacknowledged 407s are sent again over UDP: each answer is told by its Call-ID.
    const answerTo = async (callId: string) => {
      for (;;) {
        const res = await panel.response();
        if (res.headers.get('call-id') === callId) return res;
      }
    };
    panel.send(first('<sip:101@atrium.test>;tag=k', 'enum-known'), server.ports.udp);
    const known = await answerTo('enum-known');
    panel.send(first('<sip:999@atrium.test>;tag=u', 'enum-unknown'), server.ports.udp);
    const unknown = await answerTo('enum-unknown');
    const shape = (r: SipResponse) => ({
      status: r.status,
      names: Object.keys(r.headers.toRecord()).sort(),
      challenge: (r.headers.get('proxy-authenticate') ?? '').replace(/nonce="[^"]+"/, ''),
    });
    expect(shape(unknown)).toEqual(shape(known));
    expect(unknown.status).toBe(407);
    const params = parseAuthHeader(unknown.headers.get('proxy-authenticate') ?? '');
    if (!params) throw new Error('no challenge');
    const uri = `sip:201@127.0.0.1:${server.ports.udp}`;
    const second = makeRequest('INVITE', uri, {
      port: panel.port,
      from: '<sip:999@atrium.test>;tag=u',
      to: '<sip:201@atrium.test>',
      callId: 'enum-unknown',
      cseq: 2,
      extra: [['Proxy-Authorization', authorize(params, { username: '999', password: 'guess' }, 'INVITE', uri)]],
    });
    panel.send(second, server.ports.udp);
    // A retransmission of the first 407 may come before the answer to the second INVITE.
    let res = await answerTo('enum-unknown');
    while (cseqOf(res).seq === 1) res = await answerTo('enum-unknown');
    expect(res.status).toBe(403);
    expect(observer.types()).toEqual([]);
  });

  it('answers the directory rejection and records a failed call', async () => {
    directory.routes.set('101', { kind: 'reject', status: 403, reason: 'Cannot call own number' });
    const panel = await peer();
    await dial(panel, '101');
    const res = await panel.response();
    expect(res.status).toBe(403);
    expect(tagOf(res.headers.get('to'))).toBeTruthy();
    expect(observer.types()).toEqual(['created', 'ended']);
    expect(observer.events[1]).toMatchObject({ outcome: 'failed', status: 403 });
  });

  it('answers 480 (noanswer) when the number has no contacts', async () => {
    const panel = await peer();
    await dial(panel, '201');
    expect((await panel.response()).status).toBe(480);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'noanswer', status: 480 });
  });
});

/** An INVITE from `from` as 101 to `callee` with the given Proxy-Authorization, on a call of its own. */
function inviteWith(from: UdpPeer, callee: string, authorization: string, callId: string): SipRequest {
  return makeRequest('INVITE', `sip:${callee}@127.0.0.1:${server.ports.udp}`, {
    port: from.port,
    from: '<sip:101@atrium.test>;tag=thief',
    to: `<sip:${callee}@atrium.test>`,
    callId,
    cseq: 1,
    extra: [
      ['Contact', `<sip:101@127.0.0.1:${from.port}>`],
      ['Proxy-Authorization', authorization],
    ],
  });
}

/** The Proxy-Authorization of `invite` with its nc and response recomputed by the password holder for `nc`. */
function recount(invite: SipRequest, nc: string): string {
  const params = parseAuthHeader(invite.headers.get('proxy-authorization') ?? '');
  if (!params) throw new Error('no credentials');
  const p = params.params;
  const response = digestResponse({
    username: '101',
    realm: 'atrium.test',
    password: 'Panel101',
    method: 'INVITE',
    uri: p.get('uri') ?? '',
    nonce: p.get('nonce') ?? '',
    qop: 'auth',
    nc,
    cnonce: p.get('cnonce') ?? '',
  });
  return `Digest username="101", realm="atrium.test", nonce="${p.get('nonce')}", uri="${p.get('uri')}", response="${response}", algorithm=MD5, qop=auth, nc=${nc}, cnonce="${p.get('cnonce')}"`;
}

/** How many INVITEs reach `p` within `ms` (the ACKs of earlier answers are not counted). */
/** New INVITEs arriving within `ms`: retransmissions of `known` ones (same Via) are not new calls. */
async function invitesWithin(p: UdpPeer, ms: number, ...known: SipRequest[]): Promise<number> {
  const seen = new Set(known.map((r) => r.headers.get('via')));
  let n = 0;
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const msg = await p.next(Math.max(1, deadline - Date.now())).catch(() => null);
    if (msg?.kind === 'request' && msg.method === 'INVITE' && !seen.has(msg.headers.get('via'))) n++;
  }
  return n;
}

describe('a captured Proxy-Authorization', () => {
  it('starts no second call: not from another port, not again from the same one, not to another number', async () => {
    const callee = await phone('201');
    const panel = await peer();
    const invite = await dial(panel, '201');
    const ringing = await nextRequest(callee, 'INVITE');
    reply(callee, ringing, 486, 'Busy Here');
    expect((await panel.response()).status).toBe(486);
    await observer.waitFor('ended');
    const captured = invite.headers.get('proxy-authorization') ?? '';

    // Replayed from another port with a new Call-ID: the nonce was issued to the panel's flow.
    const thief = await peer();
    thief.send(inviteWith(thief, '201', captured, 'replay-1'), server.ports.udp);
    const fromElsewhere = await thief.response();
    expect(fromElsewhere.status).toBe(407);
    expect(fromElsewhere.headers.get('proxy-authenticate')).toMatch(/stale=true/);
    // Replayed from the panel's own address and port: its nonce count was used.
    panel.send(inviteWith(panel, '201', captured, 'replay-2'), server.ports.udp);
    const again = await panel.response();
    expect(again.status).toBe(407);
    expect(again.headers.get('proxy-authenticate')).toMatch(/stale=true/);
    // Sent to another number: the digest names the Request-URI of 201.
    directory.passwords.set('202', 'Pw202x');
    panel.send(inviteWith(panel, '202', recount(invite, '00000002'), 'replay-3'), server.ports.udp);
    expect((await panel.response()).status).toBe(403);

    expect(observer.events.filter((e) => e.type === 'created')).toHaveLength(1);
    expect(await invitesWithin(callee, 200, ringing)).toBe(0);
  });

  it('lets the password holder use its nonce again with a higher nonce count, once per count', async () => {
    const callee = await phone('201');
    const panel = await peer();
    const invite = await dial(panel, '201');
    reply(callee, await nextRequest(callee, 'INVITE'), 486, 'Busy Here');
    expect((await panel.response()).status).toBe(486);
    panel.send(inviteWith(panel, '201', recount(invite, '00000002'), 'reuse-1'), server.ports.udp);
    reply(callee, await nextRequest(callee, 'INVITE'), 486, 'Busy Here');
    expect((await panel.response()).status).toBe(486);
    // A lower count than one already used is a replay.
    panel.send(inviteWith(panel, '201', recount(invite, '00000001'), 'reuse-2'), server.ports.udp);
    expect((await panel.response()).status).toBe(407);
    expect(observer.events.filter((e) => e.type === 'created')).toHaveLength(2);
  });
});

describe('a captured Proxy-Authorization over WebSocket', () => {
  it('places no trunk call to another outside number, nor a second one to the same', async () => {
    const trunkPeer = await peer();
    const trunk: SipTrunkRoute = {
      id: 1,
      terminationUri: `sip:127.0.0.1:${trunkPeer.port}`,
      login: null,
      password: null,
      outgoingNumber: '+74950000000',
    };
    for (const n of ['+442079460001', '+442079460002'])
      directory.routes.set(n, {
        kind: 'fork',
        callee: n,
        sos: false,
        stages: [{ targets: [{ kind: 'trunk', number: n, trunk }], timeoutSeconds: null, reason: 'initial' }],
      });
    directory.passwords.set('301', 'Browser301');
    const browser = await WsPhone.open(server.ports.ws, '301');
    try {
      const uri = 'sip:+442079460001@atrium.test';
      const base = { from: '<sip:301@atrium.test>;tag=b301', to: `<${uri}>`, callId: 'ws-call-1' };
      browser.send(browser.build('INVITE', uri, { ...base, cseq: 1, body: sdp('sendrecv') }));
      const challenge = await browser.response();
      expect(challenge.status).toBe(407);
      browser.send(browser.build('ACK', uri, { ...base, to: challenge.headers.get('to') ?? '', cseq: 1 }));
      const params = parseAuthHeader(challenge.headers.get('proxy-authenticate') ?? '');
      if (!params) throw new Error('no challenge');
      const captured = authorize(params, { username: '301', password: 'Browser301' }, 'INVITE', uri);
      browser.send(browser.build('INVITE', uri, { ...base, cseq: 2, body: sdp('sendrecv'), extra: [['Proxy-Authorization', captured]] }));
      const out = await nextRequest(trunkPeer, 'INVITE');
      expect(out.uri).toBe(`sip:+442079460001@127.0.0.1:${trunkPeer.port}`);
      reply(trunkPeer, out, 200, 'OK');
      expect((await browser.response()).status).toBe(200);

      // The same header on the same connection, for another outside number: the digest names the first.
      const other = 'sip:+442079460002@atrium.test';
      const replay = { from: '<sip:301@atrium.test>;tag=b301r', to: `<${other}>`, callId: 'ws-call-2' };
      browser.send(
        browser.build('INVITE', other, { ...replay, cseq: 2, body: sdp('sendrecv'), extra: [['Proxy-Authorization', captured]] }),
      );
      expect((await browser.response()).status).toBe(403);
      // And for the first number again: its nonce count was used.
      const again = { from: '<sip:301@atrium.test>;tag=b301a', to: `<${uri}>`, callId: 'ws-call-3' };
      browser.send(browser.build('INVITE', uri, { ...again, cseq: 2, body: sdp('sendrecv'), extra: [['Proxy-Authorization', captured]] }));
      expect((await browser.response()).status).toBe(407);
      expect(await invitesWithin(trunkPeer, 300, out)).toBe(0);
      expect(directory.invites.map((i) => i.callee)).toEqual(['+442079460001']);
    } finally {
      WsPhone.closeAll();
    }
  });
});

describe('caller identity', () => {
  it('removes the identity a phone claims and asserts the authenticated number with its owner’s name', async () => {
    directory.names.set('101', 'Entrance, building 1');
    const callee = await phone('201');
    const panel = await peer();
    await dial(panel, '201', {
      from: '"Concierge 202" <sip:101@atrium.test>;tag=panel',
      extra: [
        ['P-Asserted-Identity', '"Concierge" <sip:202@atrium.test>'],
        ['P-Preferred-Identity', '<sip:202@atrium.test>'],
        ['Remote-Party-ID', '"Concierge" <sip:202@atrium.test>;party=calling;screen=yes;privacy=off'],
      ],
    });
    const invite = await nextRequest(callee, 'INVITE');
    expect(invite.headers.get('from')).toBe('"Entrance, building 1" <sip:101@atrium.test>;tag=panel');
    expect(invite.headers.getAll('p-asserted-identity')).toEqual([`"Entrance, building 1" <sip:101@127.0.0.1>`]);
    expect(invite.headers.getAll('p-preferred-identity')).toEqual([]);
    expect(invite.headers.getAll('remote-party-id')).toEqual([]);
    reply(callee, invite, 486, 'Busy Here');
    expect((await panel.response()).status).toBe(486);
  });

  it('shows the number itself when the directory knows no name for it', async () => {
    const callee = await phone('201');
    const panel = await peer();
    await dial(panel, '201', { from: '"Director" <sip:101@atrium.test>;tag=panel' });
    const invite = await nextRequest(callee, 'INVITE');
    expect(userOf(invite.headers.get('from'))).toBe('101');
    expect(invite.headers.get('from')).toMatch(/^"101" </);
    expect(invite.headers.getAll('p-asserted-identity')).toEqual(['"101" <sip:101@127.0.0.1>']);
  });
});

describe('cancellation', () => {
  it('records created then cancel when the caller cancels while the directory is still routing', async () => {
    directory.routeDelayMs = 200;
    const p = await phone('201');
    const panel = await peer();
    const invite = await dial(panel, '201');
    await new Promise((r) => setTimeout(r, 50));
    const cancel = makeRequest('CANCEL', invite.uri, {
      port: panel.port,
      from: invite.headers.get('from') ?? '',
      to: invite.headers.get('to') ?? '',
      callId: invite.headers.get('call-id') ?? '',
      cseq: cseqOf(invite).seq,
    });
    cancel.headers.set('Via', invite.headers.get('via') ?? '');
    panel.send(cancel, server.ports.udp);
    const statuses = [(await panel.response()).status, (await panel.response()).status].sort();
    expect(statuses).toEqual([200, 487]);
    await observer.waitFor('ended');
    expect(observer.types()).toEqual(['created', 'ended']);
    expect(observer.events[1]).toMatchObject({ outcome: 'cancel', status: 487 });
    expect(await p.silent(300)).toBe(true);
  });
});

describe('forking', () => {
  it('rings every contact at once, takes the first 200 and cancels the other', async () => {
    const a = await phone('201');
    const b = await peer();
    expect(await registerContact(server.ports.udp, '201', 'Pw201x', b.port)).toBe(200);
    const panel = await peer();
    await dial(panel, '201');
    const [inviteA, inviteB] = await Promise.all([nextRequest(a, 'INVITE'), nextRequest(b, 'INVITE')]);
    expect(inviteA.headers.get('x-speech-id')).toBe(inviteA.headers.get('call-id'));
    reply(a, inviteA, 180, 'Ringing');
    reply(b, inviteB, 180, 'Ringing');
    reply(b, inviteB, 200, 'OK');
    const cancel = await nextRequest(a, 'CANCEL');
    expect(cancel.headers.get('reason')).toMatch(/cause=200/);
    reply(a, cancel, 200, 'OK');
    reply(a, inviteA, 487, 'Request Terminated');
    const ackForA = await nextRequest(a, 'ACK');
    expect(cseqOf(ackForA).method).toBe('ACK');
    let res = await panel.response();
    while (res.status < 200) res = await panel.response();
    expect(res.status).toBe(200);
    expect(res.headers.getAll('via')).toHaveLength(1);
    expect(await observer.waitFor('answered')).toMatchObject({ by: '201' });
  });

  it('goes to the error stage when every fork of a stage fails', async () => {
    const first = await phone('201');
    const second = await phone('202');
    directory.routes.set('201', {
      kind: 'fork',
      callee: '201',
      sos: true,
      stages: [
        { targets: [{ kind: 'number', number: '201' }], timeoutSeconds: 10, reason: 'initial' },
        { targets: [{ kind: 'number', number: '203' }], timeoutSeconds: 10, reason: 'no_answer' },
        { targets: [{ kind: 'number', number: '202' }], timeoutSeconds: null, reason: 'error' },
      ],
    });
    const panel = await peer();
    await dial(panel, '201');
    const firstInvite = await nextRequest(first, 'INVITE');
    expect(firstInvite.headers.get('x-sos-call')).toBe('true');
    expect(firstInvite.headers.get('x-target-callee')).toBe('201');
    reply(first, firstInvite, 503, 'Service Unavailable');
    const invite = await nextRequest(second, 'INVITE');
    expect(invite.headers.get('x-target-callee')).toBe('201');
    reply(second, invite, 486, 'Busy Here');
    let res = await panel.response();
    while (res.status < 200) res = await panel.response();
    expect(res.status).toBe(486);
    expect(observer.events[0]).toMatchObject({ type: 'created', sos: true });
    expect(await observer.waitFor('forwarded')).toMatchObject({ reason: 'error', numbers: ['202'] });
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'busy', status: 486 });
  });

  it('retransmits the INVITE over UDP until the phone answers', async () => {
    const p = await phone('201');
    const panel = await peer();
    await dial(panel, '201');
    const first = await nextRequest(p, 'INVITE');
    const again = await nextRequest(p, 'INVITE');
    expect(again.headers.get('via')).toBe(first.headers.get('via'));
    reply(p, first, 180, 'Ringing');
    expect(await p.silent(200)).toBe(true);
  });

  it('stops a ringing call from the console: CANCEL to the phone, 487 to the panel', async () => {
    const p = await phone('201');
    const panel = await peer();
    await dial(panel, '201');
    const invite = await nextRequest(p, 'INVITE');
    reply(p, invite, 180, 'Ringing');
    const ringing = await observer.waitFor('ringing');
    expect(await server.endCall(ringing.callId)).toBe(true);
    await nextRequest(p, 'CANCEL');
    let res = await panel.response();
    while (res.status < 200) res = await panel.response();
    expect(res.status).toBe(487);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'cancel' });
  });
});

describe('trunks', () => {
  it('sends an outside call to the trunk as its outgoing number and answers its 401', async () => {
    const trunkPeer = await peer();
    const trunk: SipTrunkRoute = {
      id: 1,
      terminationUri: `sip:127.0.0.1:${trunkPeer.port}`,
      login: 'atrium',
      password: 'TrunkPw1',
      outgoingNumber: '+74950000000',
    };
    directory.routes.set('89161234567', {
      kind: 'fork',
      callee: '89161234567',
      sos: false,
      stages: [{ targets: [{ kind: 'trunk', number: '89161234567', trunk }], timeoutSeconds: null, reason: 'initial' }],
    });
    const panel = await peer();
    const sent = await dial(panel, '89161234567');
    const first = await nextRequest(trunkPeer, 'INVITE');
    expect(first.uri).toBe(`sip:89161234567@127.0.0.1:${trunkPeer.port}`);
    expect(userOf(first.headers.get('from'))).toBe('+74950000000');
    expect(first.headers.getAll('p-asserted-identity')).toEqual(['<sip:+74950000000@127.0.0.1>']);
    expect(first.headers.get('proxy-authorization')).toBeUndefined();
    const challenge = createResponse(first, 401, 'Unauthorized', 'trunk401');
    challenge.headers.add('WWW-Authenticate', 'Digest realm="carrier", nonce="n0nce", qop="auth"');
    trunkPeer.send(challenge, server.ports.udp);
    await nextRequest(trunkPeer, 'ACK');
    const second = await nextRequest(trunkPeer, 'INVITE');
    const creds = parseAuthHeader(second.headers.get('authorization') ?? '');
    expect(creds?.params.get('username')).toBe('atrium');
    expect(creds?.params.get('realm')).toBe('carrier');
    expect(cseqOf(second).seq).toBe(cseqOf(first).seq + 1);
    reply(trunkPeer, second, 200, 'OK');
    let res = await panel.response();
    while (res.status < 200) res = await panel.response();
    expect(res.status).toBe(200);
    // The caller sees its own CSeq back, whatever the trunk leg used.
    expect(cseqOf(res).seq).toBe(cseqOf(sent).seq);
    expect(parseUri(res.headers.get('contact')?.slice(1, -1) ?? '')?.port).toBe(trunkPeer.port);
    expect(await observer.waitFor('answered')).toMatchObject({ by: '89161234567' });
  });
});

describe('in-dialog relay', () => {
  it("relays a re-INVITE (hold), DTMF from the callee and the callee's BYE by the dialog", async () => {
    const p = await phone('201');
    const panel = await peer();
    const invite = await dial(panel, '201');
    const forwarded = await nextRequest(p, 'INVITE');
    reply(p, forwarded, 200, 'OK', 'phone-tag');
    let ok = await panel.response();
    while (ok.status < 200) ok = await panel.response();
    expect(ok.status).toBe(200);
    const route = ok.headers.getAll('record-route').reverse();
    expect(route).toEqual([`<sip:127.0.0.1:${server.ports.udp};lr>`]);
    const phoneUri = `sip:phone@127.0.0.1:${p.port}`;
    const panelDialog = (method: string, cseq: number) => {
      const req = makeRequest(method, phoneUri, {
        port: panel.port,
        from: invite.headers.get('from') ?? '',
        to: ok.headers.get('to') ?? '',
        callId: invite.headers.get('call-id') ?? '',
        cseq,
        extra: route.map((r): [string, string] => ['Route', r]),
      });
      panel.send(req, server.ports.udp);
      return req;
    };
    panelDialog('ACK', 2);
    const ack = await nextRequest(p, 'ACK');
    expect(ack.headers.get('route')).toBeUndefined();

    panelDialog('INVITE', 3);
    const reinvite = await nextRequest(p, 'INVITE');
    expect(tagOf(reinvite.headers.get('to'))).toBe('phone-tag');
    reply(p, reinvite, 200, 'OK', 'phone-tag');
    let reOk = await panel.response();
    while (reOk.status < 200) reOk = await panel.response();
    expect(cseqOf(reOk)).toEqual({ seq: 3, method: 'INVITE' });
    panelDialog('ACK', 3);
    await nextRequest(p, 'ACK');

    const phoneDialog = (method: string, cseq: number, extra: Array<[string, string]> = [], body = '') => {
      const req = makeRequest(method, `sip:101@127.0.0.1:${panel.port}`, {
        port: p.port,
        from: ok.headers.get('to') ?? '',
        to: invite.headers.get('from') ?? '',
        callId: invite.headers.get('call-id') ?? '',
        cseq,
        extra: [...forwarded.headers.getAll('record-route').map((r): [string, string] => ['Route', r]), ...extra],
        body,
      });
      p.send(req, server.ports.udp);
      return req;
    };
    phoneDialog('INFO', 1, [['Content-Type', 'application/dtmf']], '5');
    const info = await nextRequest(panel, 'INFO');
    panel.send(createResponse(info, 200, 'OK'), server.ports.udp);
    expect((await p.response()).status).toBe(200);
    expect(await observer.waitFor('dtmf')).toMatchObject({ from: '201', digit: '5' });

    phoneDialog('BYE', 2);
    const bye = await nextRequest(panel, 'BYE');
    panel.send(createResponse(bye, 200, 'OK'), server.ports.udp);
    expect((await p.response()).status).toBe(200);
    expect(await observer.waitFor('ended')).toMatchObject({ outcome: 'answered', status: 200 });
    expect(server.activeCalls()).toEqual([]);
  });
});
