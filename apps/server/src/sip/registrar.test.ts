import { afterEach, describe, expect, it } from 'vitest';
import { authorize, digestResponse, parseAuthHeader } from './digest.js';
import type { SipResponse } from './message.js';
import type { SipServer, SipServerOptions } from './server.js';
import { makeRequest, type RecordingObserver, startTestServer, UdpPeer } from './testing.js';

/** REGISTER over UDP, digest authentication and binding rules, at the protocol level. */

let server: SipServer;
let peer: UdpPeer;
let observer: RecordingObserver;

async function start(extra: Partial<SipServerOptions> = {}): Promise<void> {
  ({ server, observer } = await startTestServer({ '201': 'Secret201' }, { timers: { t1Ms: 50 }, ...extra }));
  peer = await UdpPeer.open();
}

afterEach(async () => {
  peer.close();
  await server.close();
});

let cseq = 0;
function register(opts: {
  user?: string;
  to?: string;
  contacts?: string[];
  expires?: string;
  challenge?: SipResponse;
  password?: string;
  authorization?: string;
}) {
  const to = opts.to ?? '201';
  const extra: Array<[string, string]> = (opts.contacts ?? [`<sip:${to}@127.0.0.1:${peer.port}>`]).map((c) => ['Contact', c]);
  if (opts.expires !== undefined) extra.push(['Expires', opts.expires]);
  const uri = 'sip:atrium.test';
  if (opts.authorization) extra.push(['Authorization', opts.authorization]);
  if (opts.challenge) {
    const params = parseAuthHeader(opts.challenge.headers.get('www-authenticate') ?? '');
    if (!params) throw new Error('no challenge');
    extra.push([
      'Authorization',
      authorize(params, { username: opts.user ?? to, password: opts.password ?? 'Secret201' }, 'REGISTER', uri),
    ]);
  }
  cseq++;
  const req = makeRequest('REGISTER', uri, {
    port: peer.port,
    from: `<sip:${to}@atrium.test>;tag=r1`,
    to: `<sip:${to}@atrium.test>`,
    callId: 'reg-call',
    cseq,
    extra,
  });
  peer.send(req, server.ports.udp);
  return peer.response();
}

async function registerAuthed(opts: Parameters<typeof register>[0]): Promise<SipResponse> {
  const challenge = await register({ ...opts, contacts: opts.contacts });
  expect(challenge.status).toBe(401);
  return register({ ...opts, challenge });
}

describe('registrar', () => {
  it('challenges with MD5 qop=auth and accepts the right password', async () => {
    await start();
    const challenge = await register({});
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toMatch(/^Digest realm="atrium.test", nonce="[^"]+", algorithm=MD5, qop="auth"$/);
    const ok = await register({ challenge, expires: '120' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('contact')).toBe(`<sip:201@127.0.0.1:${peer.port}>;expires=120`);
    expect(server.contacts('201')).toMatchObject([{ number: '201', transport: 'udp', source: { port: peer.port } }]);
  });

  it('challenges an unknown number as a known one and refuses its digest as a wrong password', async () => {
    await start();
    const unknown = await register({ to: '999' });
    const known = await register({});
    // The same answer but for the nonce: nothing tells the numbers apart.
    const shape = (r: SipResponse) => ({
      status: r.status,
      reason: r.reason,
      names: Object.keys(r.headers.toRecord()).sort(),
      challenge: (r.headers.get('www-authenticate') ?? '').replace(/nonce="[^"]+"/, 'nonce=""'),
    });
    expect(shape(unknown)).toEqual(shape(known));
    expect(unknown.status).toBe(401);
    expect((await register({ to: '999', challenge: unknown, password: 'anything' })).status).toBe(403);
    expect((await register({ challenge: known, password: 'wrong' })).status).toBe(403);
    expect((await register({ challenge: known, user: '202' })).status).toBe(403);
    expect(server.contacts('201')).toEqual([]);
  });

  it('answers an unknown and a known number within the same order of time', async () => {
    await start();
    const timed = async (opts: Parameters<typeof register>[0]) => {
      const began = process.hrtime.bigint();
      const res = await register(opts);
      return { res, ms: Number(process.hrtime.bigint() - began) / 1e6 };
    };
    const rounds = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 10; i++) {
      const u = await timed({ to: '999' });
      rounds.unknown.push((await timed({ to: '999', challenge: u.res, password: 'guess' })).ms);
      const k = await timed({});
      rounds.known.push((await timed({ challenge: k.res, password: 'guess' })).ms);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
    const [a, b] = [median(rounds.known), median(rounds.unknown)];
    expect(Math.max(a, b) / Math.max(0.05, Math.min(a, b))).toBeLessThan(10);
  });

  it('takes a refresh on the same nonce with a higher nonce count, and no replay of one', async () => {
    await start();
    const challenge = await register({});
    const params = parseAuthHeader(challenge.headers.get('www-authenticate') ?? '');
    if (!params) throw new Error('no challenge');
    const credentials = (nc: string) => {
      const response = digestResponse({
        username: '201',
        realm: 'atrium.test',
        password: 'Secret201',
        method: 'REGISTER',
        uri: 'sip:atrium.test',
        nonce: params.params.get('nonce') ?? '',
        qop: 'auth',
        nc,
        cnonce: 'c0ffee',
      });
      return `Digest username="201", realm="atrium.test", nonce="${params.params.get('nonce')}", uri="sip:atrium.test", response="${response}", algorithm=MD5, qop=auth, nc=${nc}, cnonce="c0ffee"`;
    };
    expect((await register({ authorization: credentials('00000001') })).status).toBe(200);
    expect((await register({ authorization: credentials('00000002') })).status).toBe(200);
    const replayed = await register({ authorization: credentials('00000002') });
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('www-authenticate')).toMatch(/stale=true/);
    // From another port, even with a count never used: the nonce was issued to the first flow.
    const other = peer;
    peer = await UdpPeer.open();
    try {
      expect((await register({ authorization: credentials('00000003') })).status).toBe(401);
    } finally {
      peer.close();
      peer = other;
    }
  });

  it('says stale=true when a correct response uses an expired nonce', async () => {
    await start({ nonceTtlSeconds: 0.05 });
    const challenge = await register({});
    await new Promise((r) => setTimeout(r, 120));
    const stale = await register({ challenge });
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toMatch(/stale=true/);
    expect((await register({ challenge: stale })).status).toBe(200);
  });

  it('keeps several contacts, removes one with expires=0 and all with *', async () => {
    await start();
    const a = `<sip:201@127.0.0.1:${peer.port}>`;
    const b = '<sip:201@127.0.0.1:5999>;expires=300';
    const both = await registerAuthed({ contacts: [a, b] });
    expect(both.headers.getAll('contact')).toHaveLength(2);
    expect(server.contacts('201')).toHaveLength(2);
    const one = await registerAuthed({ contacts: ['<sip:201@127.0.0.1:5999>;expires=0'] });
    expect(one.headers.getAll('contact')).toEqual([`${a};expires=3600`]);
    const none = await registerAuthed({ contacts: ['*'], expires: '0' });
    expect(none.status).toBe(200);
    expect(server.contacts('201')).toEqual([]);
    expect(observer.registrations.map((r) => r.change)).toEqual(['added', 'added', 'removed', 'removed']);
  });

  it('answers 423 below the minimum and caps at the maximum expiry', async () => {
    await start({ registrar: { minExpires: 60, maxExpires: 600 } });
    const brief = await registerAuthed({ expires: '10' });
    expect(brief.status).toBe(423);
    expect(brief.headers.get('min-expires')).toBe('60');
    const capped = await registerAuthed({ expires: '100000' });
    expect(capped.headers.get('contact')).toMatch(/;expires=600$/);
  });

  it('expires a contact when its time is up', async () => {
    await start({ registrar: { minExpires: 1 } });
    expect((await registerAuthed({ expires: '1' })).status).toBe(200);
    expect(server.contacts('201')).toHaveLength(1);
    for (let i = 0; i < 40 && !observer.registrations.some((r) => r.change === 'expired'); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(observer.registrations.map((r) => r.change)).toEqual(['added', 'expired']);
    expect(server.contacts('201')).toEqual([]);
  });
});

describe('out-of-dialog requests', () => {
  it('answers OPTIONS with Allow, MESSAGE with 405 and a stray BYE with 481', async () => {
    await start();
    const base = { port: peer.port, from: '<sip:x@h>;tag=1', to: '<sip:atrium.test>', callId: 'ood', cseq: 1 };
    peer.send(makeRequest('OPTIONS', `sip:127.0.0.1:${server.ports.udp}`, base), server.ports.udp);
    const options = await peer.response();
    expect(options.status).toBe(200);
    expect(options.headers.getAll('allow')).toContain('INVITE');
    peer.send(makeRequest('MESSAGE', 'sip:201@atrium.test', { ...base, cseq: 2 }), server.ports.udp);
    expect((await peer.response()).status).toBe(405);
    peer.send(makeRequest('BYE', 'sip:201@atrium.test', { ...base, cseq: 3 }), server.ports.udp);
    expect((await peer.response()).status).toBe(481);
  });
});
