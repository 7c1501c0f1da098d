import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';

// SIP_EDGE=kamailio needs DATABASE_URL in the configuration (Kamailio reads the same database);
// these tests hand the app its database themselves, so the URL is never connected to.
describe('/sip-edge (Kamailio at the SIP edge asking Atrium)', () => {
  let t: TestApp;
  let token: string;
  /** A SIP number made through the API (password `Edge<number>pass`), owned by `userId` when given. */
  const putNumber = async (number: string, userId?: number) => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/v0/sip-numbers',
      headers: { authorization: `Bearer ${token}` },
      payload: { number, password: `Edge${number}pass`, domain_id: t.project.rootGroupId, ...(userId ? { user_id: userId } : {}) },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        SIP_EDGE: 'kamailio',
        SIP_EDGE_FROM: '192.0.2.7',
        SIP_EDGE_WS_URL: 'wss://sip.example.org:8443',
        DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
        TRUST_PROXY: 'false',
      },
    });
    token = await login(t.app, t.adminLogin, t.adminPassword);
    for (const number of ['7201', '7202']) await putNumber(number);
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_receive_calls_as_concierge', 'can_call_all']);
    const concierge = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    await putNumber('7203', concierge.id);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const invite = (callId: string, callee: string, extra: Record<string, unknown> = {}) => ({
    callId,
    caller: '7201',
    callee,
    authenticated: true,
    source: { transport: 'udp', address: '192.0.2.50', port: 5060 },
    ...extra,
  });
  const ask = (path: string, payload: unknown, from = '192.0.2.7') =>
    t.app.inject({ method: 'POST', url: `/api/v0/sip-edge/${path}`, remoteAddress: from, payload: payload as Record<string, unknown> });
  const history = (callId: string) =>
    queryRows<{ status: string }>(
      t.database.db,
      sql`SELECT h.status FROM call_history h JOIN call_records c ON c.id = h.call_id WHERE c.sip_call_id = ${callId}`,
    );

  it("gives the console's dialer Kamailio's WebSocket (SIP_EDGE_WS_URL) to register with", async () => {
    const admin = (await queryRows<{ id: number }>(t.database.db, sql`SELECT id FROM users WHERE login = ${t.adminLogin}`))[0]!;
    await putNumber('7209', admin.id);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v0/calls/dialer/credentials',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ number: '7209', ws_url: 'wss://sip.example.org:8443', domain: 'sip.example.org' });
  });

  it('answers Kamailio and nobody else: another caller gets the app’s own not-found', async () => {
    const other = await ask('route', invite('c-refused', '7202'), '203.0.113.5');
    expect(other.statusCode).toBe(404);
    const unknownRoute = await t.app.inject({ method: 'POST', url: '/api/v0/no-such-route', remoteAddress: '203.0.113.5' });
    const { code, message } = unknownRoute.json() as { code: string; message: string };
    expect(other.json()).toMatchObject({ code, message });
    expect((await ask('event', { type: 'ended', callId: 'c-refused', status: 200 }, '203.0.113.5')).statusCode).toBe(404);
    expect((await ask('route', { callId: 'x' })).statusCode).toBe(400);
  });

  it('routes a call to the callee’s number, flat for Kamailio’s json module, and records it', async () => {
    const res = await ask('route', invite('c-1', '7202'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      action: 'fork',
      callee: '7202',
      stages: 1,
      stage0_reason: 'initial',
      stage0_timeout: '0',
      stage0_numbers: '7202',
      stage0_uris: '',
    });
    expect((await ask('event', { type: 'ringing', callId: 'c-1', numbers: '7202' })).statusCode).toBe(204);
    expect((await ask('event', { type: 'answered', callId: 'c-1', ruid: 'none', contact: 'sip:7202@192.0.2.60' })).statusCode).toBe(204);
    expect((await ask('event', { type: 'ended', callId: 'c-1', status: 200 })).statusCode).toBe(204);
    // Reported twice (its answer lost on the way back to Kamailio): one history row.
    expect((await ask('event', { type: 'ended', callId: 'c-1', status: 200 })).statusCode).toBe(204);
    expect(await history('c-1')).toEqual([{ status: 'answered' }]);
  });

  it('asks for credentials when none came and the sender is no trunk; rejects an unknown number', async () => {
    expect((await ask('route', invite('c-2', '7202', { authenticated: false }))).json()).toEqual({ action: 'challenge' });
    const unknown = await ask('route', invite('c-3', '7999'));
    expect(unknown.json()).toEqual({ action: 'reject', status: 404, reason: 'Not Found' });
    expect(await history('c-3')).toEqual([{ status: 'failed' }]);
  });

  it('an unreachable callee is recorded as failed, a callee who never answered as no answer', async () => {
    await ask('route', invite('c-4', '7202'));
    await ask('event', { type: 'ended', callId: 'c-4', status: 480, unreachable: true });
    expect(await history('c-4')).toEqual([{ status: 'failed' }]);
    await ask('route', invite('c-5', '7202'));
    await ask('event', { type: 'ringing', callId: 'c-5', numbers: '7202' });
    await ask('event', { type: 'ended', callId: 'c-5', status: 480 });
    expect(await history('c-5')).toEqual([{ status: 'noanswer' }]);
  });

  it('reads a body escaped by Kamailio’s s.escape.common', async () => {
    const body = `{"callId":"c-6 it\\'s","caller":"7201","callee":"7202","authenticated":true,"source":{"transport":"udp","address":"192.0.2.50","port":5060}}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v0/sip-edge/route',
      remoteAddress: '192.0.2.7',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await queryRows<{ sip_call_id: string }>(
      t.database.db,
      sql`SELECT sip_call_id FROM call_records WHERE sip_call_id LIKE 'c-6%'`,
    );
    expect(row?.sip_call_id).toBe("c-6 it's");
  });

  it('a concierge holding and resuming an awaiting call (re-INVITE offers Kamailio reports) moves its record as the embedded server does', async () => {
    const sdp = (direction: string) =>
      Buffer.from(
        `v=0\r\no=- 1 2 IN IP4 192.0.2.60\r\ns=-\r\nc=IN IP4 192.0.2.60\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=${direction}\r\n`,
      ).toString('hex');
    const status = async () =>
      (
        await queryRows<{ status: string; type: string }>(
          t.database.db,
          sql`SELECT status, type FROM call_records WHERE sip_call_id = 'c-7'`,
        )
      )[0];
    expect((await ask('route', invite('c-7', '7203'))).json()).toMatchObject({ action: 'fork', stage0_numbers: '7203' });
    await ask('event', { type: 'answered', callId: 'c-7', ruid: 'none', contact: 'sip:7203@192.0.2.61' });
    expect(await status()).toEqual({ status: 'answered', type: 'awaiting' });
    const reoffer = (direction: string, from = '7203') =>
      ask('event', { type: 'reoffer', callId: 'c-7', from, contentType: 'application/sdp', body: sdp(direction) });
    // The caller's hold is not the concierge's: the record stays answered.
    expect((await reoffer('sendonly', '7201')).statusCode).toBe(204);
    expect(await status()).toMatchObject({ status: 'answered' });
    await reoffer('sendonly');
    expect(await status()).toMatchObject({ status: 'answered_waiting' });
    await reoffer('sendrecv');
    expect(await status()).toMatchObject({ status: 'answered' });
    // DTMF bodies are read as the embedded server reads them; a body that is not hex is refused.
    const info = (body: string) => ask('event', { type: 'info', callId: 'c-7', from: '7203', contentType: 'application/dtmf-relay', body });
    expect((await info(Buffer.from('Signal=5\r\nDuration=160\r\n').toString('hex'))).statusCode).toBe(204);
    expect((await info('Signal=#')).statusCode).toBe(400);
  });

  it('a held call is taken back (X-Resume-Call) only by the number that answered it, and only while Kamailio holds its dialog', async () => {
    const held = Buffer.from(
      'v=0\r\no=- 1 2 IN IP4 192.0.2.60\r\ns=-\r\nc=IN IP4 192.0.2.60\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=sendonly\r\n',
    );
    await ask('route', invite('c-8', '7203'));
    await ask('event', { type: 'answered', callId: 'c-8', ruid: 'none', contact: 'sip:7203@192.0.2.61' });
    await ask('event', { type: 'reoffer', callId: 'c-8', from: '7203', contentType: 'application/sdp', body: held.toString('hex') });
    const record = async () =>
      (
        await queryRows<{ sip_call_id: string; status: string }>(
          t.database.db,
          sql`SELECT sip_call_id, status FROM call_records WHERE id = 'c-8'`,
        )
      )[0];
    expect(await record()).toEqual({ sip_call_id: 'c-8', status: 'answered_waiting' });
    const resume = (caller: string, speechId: string, authenticated = true) =>
      ask('route', { ...invite(`r-${caller}-${speechId}`, '7201'), caller, authenticated, resume: speechId });
    expect((await resume('7203', 'c-8', false)).json()).toEqual({ action: 'challenge' });
    expect((await resume('7202', 'c-8')).json()).toEqual({ action: 'reject', status: 403, reason: 'Forbidden' });
    expect((await resume('7203', 'no-such-call')).json()).toEqual({ action: 'reject', status: 404, reason: 'Not Found' });
    // A hold reported without the dialog's tags (an older Kamailio configuration): nothing a Replaces could name.
    expect((await resume('7203', 'c-8')).json()).toEqual({ action: 'reject', status: 404, reason: 'Not Found' });
    expect(await record()).toEqual({ sip_call_id: 'c-8', status: 'answered_waiting' });
    // With them: the INVITE goes to the caller's phone, asked to swap its dialog (its own tag as the to-tag).
    const dialog = { fromTag: 'concierge-tag', toTag: 'panel-tag', target: 'sip:7201@192.0.2.50:5060;alias=192.0.2.50~5060~1' };
    await ask('event', {
      type: 'reoffer',
      callId: 'c-8',
      from: '7203',
      contentType: 'application/sdp',
      body: held.toString('hex'),
      ...dialog,
    });
    const swap = await resume('7203', 'c-8');
    expect(swap.json()).toEqual({
      action: 'replace',
      number: '7201',
      uri: dialog.target,
      replaces: 'c-8;to-tag=panel-tag;from-tag=concierge-tag',
      speechId: 'c-8',
    });
    // The record follows the new INVITE; the old dialog's end (the phone drops it) ends nothing.
    expect(await record()).toEqual({ sip_call_id: 'r-7203-c-8', status: 'answered_waiting' });
    // Kamailio asking again (an answer lost) gets the same answer.
    expect((await resume('7203', 'c-8')).json()).toMatchObject({
      action: 'replace',
      replaces: 'c-8;to-tag=panel-tag;from-tag=concierge-tag',
    });
    await ask('event', { type: 'ended', callId: 'c-8', status: 200, unreachable: false });
    // The phone refused the swap (420, no Replaces there): the record goes back to the old dialog,
    // which ended meanwhile, so the call ends.
    expect((await ask('event', { type: 'resume_failed', callId: 'r-7203-c-8', status: 420 })).statusCode).toBe(204);
    expect(await record()).toEqual({ sip_call_id: 'c-8', status: 'destroyed' });
    expect(await history('c-8')).toEqual([{ status: 'answered' }]);

    // A second held call, taken back: answered again on its new dialog.
    await ask('route', invite('c-9', '7203'));
    await ask('event', { type: 'answered', callId: 'c-9', ruid: 'none', contact: 'sip:7203@192.0.2.61' });
    await ask('event', {
      type: 'reoffer',
      callId: 'c-9',
      from: '7203',
      contentType: 'application/sdp',
      body: held.toString('hex'),
      ...dialog,
    });
    expect((await resume('7203', 'c-9')).json()).toMatchObject({
      action: 'replace',
      replaces: 'c-9;to-tag=panel-tag;from-tag=concierge-tag',
    });
    await ask('event', { type: 'resumed', callId: 'r-7203-c-9' });
    await ask('event', { type: 'ended', callId: 'c-9', status: 200, unreachable: false });
    const second = await queryRows<{ sip_call_id: string; status: string }>(
      t.database.db,
      sql`SELECT sip_call_id, status FROM call_records WHERE id = 'c-9'`,
    );
    expect(second).toEqual([{ sip_call_id: 'r-7203-c-9', status: 'answered' }]);
    await ask('event', { type: 'ended', callId: 'r-7203-c-9', status: 200, unreachable: false });
    expect(await history('r-7203-c-9')).toEqual([{ status: 'answered' }]);
  });

  it('a call not held is not taken over', async () => {
    const held = Buffer.from(
      'v=0\r\no=- 1 2 IN IP4 192.0.2.60\r\ns=-\r\nc=IN IP4 192.0.2.60\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=sendonly\r\n',
    );
    const record = async () =>
      (
        await queryRows<{ sip_call_id: string; status: string }>(
          t.database.db,
          sql`SELECT sip_call_id, status FROM call_records WHERE id = 'c-10'`,
        )
      )[0];
    const resume = () => ask('route', { ...invite('r-c-10', '7201'), caller: '7203', resume: 'c-10' });
    await ask('route', invite('c-10', '7203'));
    await ask('event', { type: 'answered', callId: 'c-10', ruid: 'none', contact: 'sip:7203@192.0.2.61' });
    const dialog = { fromTag: 'concierge-tag', toTag: 'panel-tag', target: 'sip:7201@192.0.2.50:5060' };
    // Answered and talking: nothing to take back.
    expect((await resume()).json()).toEqual({ action: 'reject', status: 404, reason: 'Not Found' });
    // Held, then taken back on the page that held it (a re-INVITE back to sendrecv): no longer held.
    await ask('event', {
      type: 'reoffer',
      callId: 'c-10',
      from: '7203',
      contentType: 'application/sdp',
      body: held.toString('hex'),
      ...dialog,
    });
    const sendrecv = Buffer.from(held.toString().replace('sendonly', 'sendrecv')).toString('hex');
    await ask('event', { type: 'reoffer', callId: 'c-10', from: '7203', contentType: 'application/sdp', body: sendrecv, ...dialog });
    expect((await record())?.status).toBe('answered');
    expect((await resume()).json()).toEqual({ action: 'reject', status: 404, reason: 'Not Found' });
    // Reports for an INVITE that moved nothing change nothing.
    expect((await ask('event', { type: 'resume_failed', callId: 'r-c-10', status: 420 })).statusCode).toBe(204);
    expect((await ask('event', { type: 'resumed', callId: 'r-c-10' })).statusCode).toBe(204);
    expect(await record()).toEqual({ sip_call_id: 'c-10', status: 'answered' });
  });

  // Last: from here on, a number not found goes out through this trunk.
  it('gives the trunk’s login for a call out through it, and no login for a call to a number', async () => {
    const trunk = await t.app.inject({
      method: 'PUT',
      url: '/api/v0/sip-trunks',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        name: 'Carrier',
        outgoing_number: '+74950000000',
        termination_uri: 'sip:192.0.2.90:5070',
        login: 'atrium-trunk',
        password: 'Trunk-secret-1',
        domains: [t.project.rootGroupId],
      },
    });
    expect(trunk.statusCode, trunk.body).toBe(200);
    const out = (await ask('route', invite('c-trunk', '84951234567'))).json();
    expect(out).toMatchObject({
      action: 'fork',
      stage0_numbers: '',
      stage0_uris: 'sip:84951234567@192.0.2.90:5070',
      stage0_trunk_login: 'atrium-trunk',
      stage0_trunk_password: 'Trunk-secret-1',
    });
    const inside = (await ask('route', invite('c-inside', '7202'))).json();
    expect(inside).not.toHaveProperty('stage0_trunk_login');
    expect(inside).not.toHaveProperty('stage0_trunk_password');
  });
});
