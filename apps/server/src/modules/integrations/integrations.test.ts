import { createServer } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { selfSignedCertificate } from '../../../test/certificates.js';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { auditEvents } from '../audit/audit.table.js';
import { AxxonOneClient, AxxonOneError } from './axxon-one.client.js';
import { type FakeAxxonOne, startFakeAxxonOne } from './fake-axxon-one.fixture.js';
import { integrations as integrationsTable } from './integrations.table.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let plain: FakeAxxonOne;
let secure: FakeAxxonOne;
const fakes: FakeAxxonOne[] = [];

beforeAll(async () => {
  // The fake video servers listen on loopback: allowed as an operator allows one inside the site.
  t = await buildTestApp({ env: { INTEGRATIONS_ALLOW_PRIVATE: 'true' } });
  admin = await adminClient(t);
  plain = await startFakeAxxonOne();
  secure = await startFakeAxxonOne({ tls: true, user: 'operator', password: 'tls-password' });
  fakes.push(plain, secure);
}, 120_000);
afterAll(async () => {
  for (const f of fakes) await f.close();
  await t?.close();
});

const db = () => t.database.db;
const root = () => t.project.rootGroupId;

function multipart(payload: unknown, certificate?: string | Buffer, field = 'certificate') {
  const boundary = '----atrium-integrations-test';
  const parts: Buffer[] = [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n${typeof payload === 'string' ? payload : JSON.stringify(payload)}\r\n`,
    ),
  ];
  if (certificate !== undefined) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="server.pem"\r\nContent-Type: application/x-pem-file\r\n\r\n`,
      ),
      Buffer.from(certificate),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function send(token: string | null, url: string, payload: unknown, certificate?: string | Buffer, field?: string) {
  const m = multipart(payload, certificate, field);
  return t.app.inject({
    method: 'POST',
    url: `/api/v0${url}`,
    payload: m.payload,
    headers: { ...m.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
}
const adminToken = () => login(t.app, t.adminLogin, t.adminPassword);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const settings = (fake: FakeAxxonOne, extra: Record<string, unknown> = {}) => ({
  url: fake.url,
  user: fake.user,
  password: fake.password,
  ...extra,
});

describe('integrations with Axxon One', () => {
  it('create, read, update and delete over multipart, the password and certificate never sent back', async () => {
    const token = await adminToken();
    const made = await send(token, '/integrations', { name: 'Video', axxon_one_settings: settings(plain) });
    expect(made.statusCode, made.body).toBe(200);
    const it1 = made.json().data;
    expect(it1).toMatchObject({
      type: 'axxon_one',
      name: 'Video',
      domain_id: null,
      axxon_one_settings: { url: plain.url, user: 'root', password: null, has_password: true, has_certificate: false },
      macro_rules: [],
    });
    expect(it1.guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.body).not.toContain(plain.password);
    const [stored] = await db().select().from(integrationsTable).where(eq(integrationsTable.id, it1.id));
    expect(stored?.passwordSealed).not.toContain(plain.password);

    // Same server address (written differently) in the same project.
    const dup = await send(token, '/integrations', {
      name: 'Again',
      axxon_one_settings: settings(plain, { url: `grpc://${plain.url.toUpperCase()}` }),
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('an integration server with this url exists');

    // Validation: bad address, name too long, unknown field, bad JSON, no payload.
    const bad = await send(token, '/integrations', {
      name: 'x'.repeat(32),
      axxon_one_settings: { url: 'not a host!', user: 'u', password: 'p' },
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['axxon_one_settings.url', 'name']);
    expect((await send(token, '/integrations', { name: 'X', axxon_one_settings: settings(plain), extra: 1 })).statusCode).toBe(400);
    expect((await send(token, '/integrations', '{not json')).json().code).toBe('invalid_data');
    const noPassword = await send(token, '/integrations', { name: 'X', axxon_one_settings: { url: 'h.example', user: 'u' } });
    expect(noPassword.json().details).toEqual([{ field: 'axxon_one_settings.password', message: 'validation.invalid_value' }]);
    expect((await send(token, '/integrations', { name: 'X', axxon_one_settings: settings(plain) }, 'x', 'logo')).statusCode).toBe(400);
    expect(
      (
        await send(token, '/integrations', { name: 'X', axxon_one_settings: { ...settings(plain), url: 'other.example' } }, 'garbage')
      ).json().code,
    ).toBe('invalid_file');
    const huge = await send(
      token,
      '/integrations',
      { name: 'X', axxon_one_settings: { ...settings(plain), url: 'big.example' } },
      'x'.repeat(70_000),
    );
    expect(huge.statusCode).toBe(413);
    // The default port is added.
    const dflt = await admin.post('/integrations', {
      name: 'Default port',
      axxon_one_settings: { url: 'axxon.example', user: 'u', password: 'p' },
    });
    expect(dflt.json().data.axxon_one_settings.url).toBe('axxon.example:20109');

    // Update: a masked (null) password keeps the stored one; a certificate turns TLS on.
    const up = await send(
      token,
      `/integrations/${it1.id}`,
      { name: 'Video 2', axxon_one_settings: { password: null } },
      secure.certificate!,
    );
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().data).toMatchObject({
      name: 'Video 2',
      axxon_one_settings: { has_certificate: true, certificate_subject: 'CN=localhost' },
    });
    expect(up.json().data.axxon_one_settings.certificate_fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(up.body).not.toContain('BEGIN CERTIFICATE');
    const [after] = await db().select().from(integrationsTable).where(eq(integrationsTable.id, it1.id));
    expect(after?.passwordSealed).toBe(stored?.passwordSealed);
    const removed = await admin.post(`/integrations/${it1.id}`, { axxon_one_settings: { remove_certificate: true } });
    expect(removed.json().data.axxon_one_settings.has_certificate).toBe(false);

    const list = await admin.get('/integrations?sort=name');
    expect(list.json().meta.total).toBe(2);
    expect(list.json().data.map((x: { name: string }) => x.name)).toEqual(['Default port', 'Video 2']);
    expect((await admin.get('/integrations?search=axxon.example')).json().data).toHaveLength(1);

    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'integration'), eq(auditEvents.entityId, String(it1.id))));
    expect(audit.map((a) => a.action)).toEqual(['create', 'update', 'update']);
    expect(JSON.stringify(audit)).not.toContain(plain.password);

    const bulk = await admin.post('/integrations/delete', { items: [it1.id, dflt.json().data.id, 2147483000] });
    expect(bulk.json().data.deleted).toEqual([it1.id, dflt.json().data.id]);
    expect(bulk.json().data.not_deleted).toMatchObject([{ id: 2147483000, code: 'not_found' }]);
    expect((await admin.get(`/integrations/${it1.id}`)).statusCode).toBe(404);
  });

  it('reads cameras and macros, plain text and over TLS with the uploaded certificate', async () => {
    const token = await adminToken();
    const p = (await send(token, '/integrations', { name: 'Plain', axxon_one_settings: settings(plain) })).json().data;
    expect((await admin.get(`/integrations/${p.id}/available`)).json().data).toMatchObject({ available: true, tls: false, code: null });
    expect((await admin.get(`/integration/axxonone/${p.id}/listcameras`)).json().data).toEqual([
      { access_point: 'hosts/Server1/DeviceIpint.1/SourceEndpoint.video:0:0', display_name: 'Entrance', display_id: '1', is_active: true },
      { access_point: 'hosts/Server1/DeviceIpint.2/SourceEndpoint.video:0:0', display_name: 'Parking', display_id: '2', is_active: false },
    ]);
    expect((await admin.get(`/integration/axxonone/${p.id}/listmacros`)).json().data).toEqual([
      { guid: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'Record entrance', enabled: true },
      { guid: 'a1b2c3d4-0000-4000-8000-000000000002', name: 'Alarm to operator', enabled: true },
    ]);

    // TLS: the right certificate works; the server's own address with no certificate (plain text) does not.
    const s = (await send(token, '/integrations', { name: 'Secure', axxon_one_settings: settings(secure) }, secure.certificate!)).json()
      .data;
    expect((await admin.get(`/integrations/${s.id}/available`)).json().data).toMatchObject({ available: true, tls: true });
    expect((await admin.get(`/integration/axxonone/${s.id}/listcameras`)).json().data).toHaveLength(2);
    // A certificate of another server: the handshake fails, a gRPC connection error (not "not available").
    const other = selfSignedCertificate();
    const wrongCert = await send(token, `/integrations/${s.id}`, {}, other.cert);
    expect(wrongCert.statusCode).toBe(200);
    const avail = (await admin.get(`/integrations/${s.id}/available`)).json().data;
    expect(avail).toMatchObject({ available: false, code: 'integration_grpc_error', grpc_status: 'UNAVAILABLE' });
    const cams = await admin.get(`/integration/axxonone/${s.id}/listcameras`);
    expect(cams.statusCode).toBe(502);
    expect(cams.json().message).toBe('error connecting to the grpc server');
    // Plain text against a TLS server fails too.
    await admin.post(`/integrations/${s.id}`, { axxon_one_settings: { remove_certificate: true } });
    expect((await admin.get(`/integrations/${s.id}/available`)).json().data.available).toBe(false);
  });

  it('tells a wrong password, a server that is down, and launches a macro on request', async () => {
    const p = (
      await admin.post('/integrations', { name: 'Pw', axxon_one_settings: settings(plain, { url: `localhost:${plain.port}` }) })
    ).json().data;
    const wrong = await admin.post(`/integrations/${p.id}`, { axxon_one_settings: { password: 'not-it' } });
    expect(wrong.statusCode).toBe(200);
    expect((await admin.get(`/integrations/${p.id}/available`)).json().data).toMatchObject({
      available: false,
      code: 'integration_grpc_error',
      grpc_status: 'UNAUTHENTICATED',
    });
    const macros = await admin.get(`/integration/axxonone/${p.id}/listmacros`);
    expect(macros.statusCode).toBe(502);
    expect(macros.json().details).toEqual([{ grpc_status: 'UNAUTHENTICATED' }]);
    await admin.post(`/integrations/${p.id}`, { axxon_one_settings: { password: plain.password } });
    expect((await admin.get(`/integrations/${p.id}/available`)).json().data.available).toBe(true);

    const launched = plain.launched.length;
    expect(
      (await admin.post(`/integration/axxonone/${p.id}/launch`, { macro_id: 'a1b2c3d4-0000-4000-8000-000000000002' })).statusCode,
    ).toBe(200);
    expect(plain.launched.slice(launched)).toMatchObject([
      { macro_id: 'a1b2c3d4-0000-4000-8000-000000000002', data: { source: 'atrium', user: 'admin' } },
    ]);
    // A macro the server does not know: the server's refusal, as a gRPC error.
    expect((await admin.post(`/integration/axxonone/${p.id}/launch`, { macro_id: 'nope' })).json().code).toBe('integration_grpc_error');

    // Deleted by another instance (straight in the database): the change feed closes the channel here.
    expect(t.app.services.integrations.openChannels()).toContain(p.id);
    await db().delete(integrationsTable).where(eq(integrationsTable.id, p.id));
    await expect.poll(() => t.app.services.integrations.openChannels().includes(p.id), { timeout: 5_000 }).toBe(false);

    // Nothing listens: "integration server not available".
    const down = (
      await admin.post('/integrations', {
        name: 'Down',
        axxon_one_settings: { url: `127.0.0.1:${await closedPort()}`, user: 'u', password: 'p' },
      })
    ).json().data;
    expect((await admin.get(`/integrations/${down.id}/available`)).json().data).toMatchObject({
      available: false,
      code: 'integration_unavailable',
      grpc_status: 'UNAVAILABLE',
    });
    const res = await admin.get(`/integration/axxonone/${down.id}/listcameras`);
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe('integration server not available');

    // One sign-in serves many calls; a server that forgot the token (restarted) is signed in to again.
    const reuse = new AxxonOneClient({ url: plain.url, user: plain.user, password: plain.password, certificate: null });
    const signIns = plain.authCalls;
    await reuse.cameras();
    await reuse.macros();
    expect(plain.authCalls - signIns).toBe(1);
    plain.forgetTokens();
    expect(await reuse.macros()).toHaveLength(2);
    expect(plain.authCalls - signIns).toBe(2);
    reuse.close();

    // A server that stops answering: the deadline ends the call.
    const slow = await startFakeAxxonOne();
    fakes.push(slow);
    slow.delayMs = 1_000;
    const c = new AxxonOneClient({ url: slow.url, user: slow.user, password: slow.password, certificate: null }, 200);
    const started = Date.now();
    const err = await c.macros().catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(AxxonOneError);
    expect(err).toMatchObject({ kind: 'unavailable', grpcStatus: 'DEADLINE_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('keeps the channel a save on this instance opened while the change feed’s check of an older version was under way', async () => {
    const svc = t.app.services.integrations;
    const repo = (svc as unknown as { repo: { versions: (ids: readonly number[]) => Promise<Map<number, unknown>> } }).repo;
    const own = await startFakeAxxonOne();
    fakes.push(own);
    const made = await admin.post('/integrations', { name: 'Race', axxon_one_settings: settings(own) });
    expect(made.statusCode, made.body).toBe(200);
    const p = made.json().data;
    expect((await admin.get(`/integrations/${p.id}/available`)).json().data.available).toBe(true);
    // The check reads the versions before the save below commits, and answers after it.
    const stale = await repo.versions([p.id]);
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const versions = vi.spyOn(repo, 'versions').mockImplementationOnce(async () => {
      await held;
      return stale;
    });
    try {
      const check = (svc as unknown as { pruneClients: () => Promise<void> }).pruneClients();
      await admin.post(`/integrations/${p.id}`, { axxon_one_settings: { password: own.password } });
      expect((await admin.get(`/integrations/${p.id}/available`)).json().data.available).toBe(true);
      const channel = (svc as unknown as { clients: Map<number, unknown> }).clients.get(p.id);
      release();
      await check;
      expect((svc as unknown as { clients: Map<number, unknown> }).clients.get(p.id)).toBe(channel);
    } finally {
      versions.mockRestore();
      release();
    }
  });

  it('lets only those allowed see and change project and group integrations, and keeps projects apart', async () => {
    const mine = await makeGroup(db(), t.project.projectId, root());
    const below = await makeGroup(db(), t.project.projectId, mine);
    const foreign = await makeGroup(db(), t.project.projectId, root());
    const as = async (perms: string[], groupIds: number[]) => {
      const u = await makeUser(db(), {
        projectId: t.project.projectId,
        roleId: await makeRole(db(), t.project.projectId, perms),
        groupIds,
      });
      return client(t.app, await login(t.app, u.login, u.password));
    };
    let port = 30000;
    const body = (domain_id?: number) => ({
      name: 'G',
      axxon_one_settings: { url: `axxon-${port++}.example`, user: 'u', password: 'p' },
      ...(domain_id ? { domain_id } : {}),
    });
    const projectLevel = (await admin.post('/integrations', body())).json().data;
    const foreignOne = (await admin.post('/integrations', body(foreign))).json().data;

    const nobody = await as([], [mine]);
    expect((await nobody.get('/integrations')).json().data).toEqual([]);
    expect((await nobody.get(`/integrations/${projectLevel.id}`)).statusCode).toBe(403);
    expect((await nobody.post('/integrations', body())).statusCode).toBe(403);

    const viewer = await as(['can_view_project_settings'], [mine]);
    expect((await viewer.get(`/integrations/${projectLevel.id}`)).statusCode).toBe(200);
    expect((await viewer.get(`/integrations/${foreignOne.id}`)).statusCode).toBe(403);
    expect((await viewer.post(`/integrations/${projectLevel.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await viewer.delete(`/integrations/${projectLevel.id}`)).statusCode).toBe(403);
    expect((await viewer.post(`/integration/axxonone/${projectLevel.id}/launch`, { macro_id: 'm' })).statusCode).toBe(403);

    const self = await as(['can_manage_self_domain_integrations'], [mine]);
    expect((await self.post('/integrations', body())).statusCode).toBe(403);
    const own = await self.post('/integrations', body(mine));
    expect(own.statusCode, own.body).toBe(200);
    expect((await self.post('/integrations', body(below))).statusCode).toBe(403);
    expect((await self.get('/integrations')).json().data.map((x: { id: number }) => x.id)).toEqual([own.json().data.id]);
    expect((await self.get(`/integrations/${projectLevel.id}`)).statusCode).toBe(403);

    const branch = await as(['can_edit_descendant_domains'], [mine]);
    const low = await branch.post('/integrations', body(below));
    expect(low.statusCode).toBe(200);
    expect((await branch.post('/integrations', body(foreign))).statusCode).toBe(403);
    expect((await branch.get(`/integrations/${foreignOne.id}`)).statusCode).toBe(403);
    expect((await branch.patch(`/integrations/${foreignOne.id}`, {})).statusCode).toBe(405);
    expect((await branch.post(`/integrations/${foreignOne.id}`, { name: 'x' })).statusCode).toBe(403);
    const bulk = await branch.post('/integrations/delete', { items: [low.json().data.id, foreignOne.id] });
    expect(bulk.json().data.deleted).toEqual([low.json().data.id]);
    expect(bulk.json().data.not_deleted).toMatchObject([{ id: foreignOne.id, code: 'action_prohibited' }]);

    // A group of nobody's project.
    expect((await admin.post('/integrations', body(2147483000))).json().code).toBe('invalid_related_entity');

    // Another project sees none of these, and may use the same server address.
    await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'other-admin',
      adminName: 'O',
      adminPassword: 'other-password-1',
    });
    const other = client(t.app, await login(t.app, 'other-admin', 'other-password-1'));
    expect((await other.get('/integrations')).json().data).toEqual([]);
    expect((await other.get(`/integrations/${projectLevel.id}`)).statusCode).toBe(404);
    expect((await other.get(`/integration/axxonone/${projectLevel.id}/listmacros`)).statusCode).toBe(404);
    expect((await other.delete(`/integrations/${projectLevel.id}`)).statusCode).toBe(404);
    expect(
      (
        await other.post('/integrations', {
          ...body(),
          axxon_one_settings: projectLevel.axxon_one_settings && { url: projectLevel.axxon_one_settings.url, user: 'u', password: 'p' },
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('available integrations and served groups (domains)', () => {
  let port = 31000;
  const body = (extra: Record<string, unknown> = {}) => ({
    name: `I${port}`,
    axxon_one_settings: { url: `axxon-${port++}.example`, user: 'u', password: 'p' },
    ...extra,
  });
  const ids = (res: { json: () => { data: { id: number }[] } }) =>
    res
      .json()
      .data.map((x) => x.id)
      .sort((a, b) => a - b);

  it("lists the project's, the group's and its ancestors', and the serving ones; domains are kept and checked", async () => {
    const campus = await makeGroup(db(), t.project.projectId, root());
    const building = await makeGroup(db(), t.project.projectId, campus);
    const other = await makeGroup(db(), t.project.projectId, root());
    const project = (await admin.post('/integrations', body())).json().data;
    const ofCampus = (await admin.post('/integrations', body({ domain_id: campus }))).json().data;
    const ofBuilding = (await admin.post('/integrations', body({ domain_id: building }))).json().data;
    const ofOther = (await admin.post('/integrations', body({ domain_id: other }))).json().data;
    const serving = await admin.post('/integrations', body({ domain_id: other, domains: [campus, other, campus] }));
    expect(serving.statusCode, serving.body).toBe(200);
    // Its own group and repeats are dropped.
    expect(serving.json().data.domains).toEqual([campus]);
    expect((await admin.get(`/integrations/${serving.json().data.id}`)).json().data.domains).toEqual([campus]);
    const serves = serving.json().data;

    const projectWide = (await admin.get('/integrations?size=100')).json().data.map((x: { id: number }) => x.id);
    const known = new Set([project.id, ofCampus.id, ofBuilding.id, ofOther.id, serves.id]);
    const mineOnly = (list: number[]) => list.filter((id) => known.has(id)).sort((a, b) => a - b);
    expect(mineOnly(projectWide)).toHaveLength(5);

    const forBuilding = mineOnly(ids(await admin.get(`/integrations/available?domain_id=${building}`)));
    expect(forBuilding).toEqual([project.id, ofCampus.id, ofBuilding.id, serves.id].sort((a, b) => a - b));
    const forCampus = mineOnly(ids(await admin.get(`/integrations/available?domain_id=${campus}`)));
    expect(forCampus).toEqual([project.id, ofCampus.id, serves.id].sort((a, b) => a - b));
    const forOther = mineOnly(ids(await admin.get(`/integrations/available?domain_id=${other}`)));
    expect(forOther).toEqual([project.id, ofOther.id, serves.id].sort((a, b) => a - b));
    const noGroup = mineOnly(ids(await admin.get('/integrations/available')));
    expect(noGroup).toEqual([project.id]);
    expect((await admin.get('/integrations/available?domain_id=2147483000')).json().code).toBe('invalid_related_entity');

    // Removing the served group: the campus no longer sees it.
    const upd = await admin.post(`/integrations/${serves.id}`, { domains: [] });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data.domains).toEqual([]);
    expect(mineOnly(ids(await admin.get(`/integrations/available?domain_id=${campus}`)))).not.toContain(serves.id);

    // Served groups must be in the caller's scope.
    const u = await makeUser(db(), {
      projectId: t.project.projectId,
      roleId: await makeRole(db(), t.project.projectId, ['can_manage_self_domain_integrations', 'can_view_devices']),
      groupIds: [building],
    });
    const self = client(t.app, await login(t.app, u.login, u.password));
    const outside = await self.post('/integrations', body({ domain_id: building, domains: [other] }));
    expect(outside.statusCode).toBe(400);
    expect(outside.json()).toMatchObject({ code: 'invalid_related_entity', details: [{ field: 'domains', ids: [other] }] });
    expect((await self.post('/integrations', body({ domain_id: building, domains: [2147483000] }))).json().code).toBe(
      'invalid_related_entity',
    );
    // The picker: for their own group yes, for a group outside theirs no.
    expect((await self.get(`/integrations/available?domain_id=${building}`)).statusCode).toBe(200);
    expect((await self.get(`/integrations/available?domain_id=${other}`)).statusCode).toBe(400);
    const nobody = await makeUser(db(), {
      projectId: t.project.projectId,
      roleId: await makeRole(db(), t.project.projectId, []),
      groupIds: [building],
    });
    const none = client(t.app, await login(t.app, nobody.login, nobody.password));
    expect((await none.get(`/integrations/available?domain_id=${building}`)).statusCode).toBe(403);
  });

  it('a device may only use an integration available to its group ("integration not allowed for a user or device")', async () => {
    const site = await makeGroup(db(), t.project.projectId, root());
    const away = await makeGroup(db(), t.project.projectId, root());
    const served = await makeGroup(db(), t.project.projectId, root());
    const siteOne = (await admin.post('/integrations', body({ domain_id: site, domains: [served] }))).json().data;
    const awayOne = (await admin.post('/integrations', body({ domain_id: away }))).json().data;
    let n = 0;
    const device = (domain_id: number, integration_id: number | null) =>
      admin.put('/devices', {
        name: `cam panel ${++n}`,
        model: 'AP-200',
        serial_number: `AXX-AV-${port}-${n}`,
        domain_id,
        device_settings: {
          integration_axxon: {
            enabled: true,
            integration_id,
            camera_access_point: 'hosts/S/DeviceIpint.1/SourceEndpoint.video:0:0',
            camera_display_name: 'Entrance',
          },
        },
      });
    const ok = await device(site, siteOne.id);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.device_settings.integration_axxon).toEqual({
      enabled: true,
      integration_id: siteOne.id,
      camera_access_point: 'hosts/S/DeviceIpint.1/SourceEndpoint.video:0:0',
      camera_display_name: 'Entrance',
    });
    const refused = await device(site, awayOne.id);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: 'integration_not_allowed',
      message: 'integration not allowed for a user or device',
      details: [{ field: 'device_settings.integration_axxon.integration_id', ids: [awayOne.id] }],
    });
    // Through the served group.
    expect((await device(served, siteOne.id)).statusCode).toBe(200);
    // Per device: the picker by device id.
    expect(ids(await admin.get(`/integrations/available?device_id=${ok.json().data.id}`))).toContain(siteOne.id);
    expect(ids(await admin.get(`/integrations/available?device_id=${ok.json().data.id}`))).not.toContain(awayOne.id);

    // Update: choosing another group's integration, or moving the device away from its integration.
    const id = ok.json().data.id;
    const choose = await admin.patch(`/devices/${id}`, { device_settings: { integration_axxon: { integration_id: awayOne.id } } });
    expect(choose.json().code).toBe('integration_not_allowed');
    const move = await admin.patch(`/devices/${id}`, { domain_id: away });
    expect(move.json().code).toBe('integration_not_allowed');
    const both = await admin.patch(`/devices/${id}`, {
      domain_id: away,
      device_settings: { integration_axxon: { integration_id: awayOne.id } },
    });
    expect(both.statusCode, both.body).toBe(200);
    // The cameras picker for who edits devices but not integrations: an integration available to their group only.
    const cams = await startFakeAxxonOne();
    fakes.push(cams);
    const camsOne = (
      await admin.post(
        '/integrations',
        body({ domain_id: site, axxon_one_settings: { url: cams.url, user: cams.user, password: cams.password } }),
      )
    ).json().data;
    const editor = await makeUser(db(), {
      projectId: t.project.projectId,
      roleId: await makeRole(db(), t.project.projectId, ['can_edit_devices', 'can_view_devices']),
      groupIds: [site],
    });
    const ed = client(t.app, await login(t.app, editor.login, editor.password));
    const seen = await ed.get(`/integration/axxonone/${camsOne.id}/listcameras`);
    expect(seen.statusCode, seen.body).toBe(200);
    expect(seen.json().data.map((c: { display_name: string }) => c.display_name)).toContain('Entrance');
    expect((await ed.get(`/integration/axxonone/${awayOne.id}/listcameras`)).statusCode).toBe(403);
    expect((await ed.get(`/integration/axxonone/${camsOne.id}/listmacros`)).statusCode).toBe(403);
    expect((await ed.get(`/integrations/${camsOne.id}`)).statusCode).toBe(403);

    const cleared = await admin.patch(`/devices/${id}`, {
      domain_id: site,
      device_settings: { integration_axxon: { integration_id: null, enabled: false } },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
  });
});

describe('access events launch Axxon One macros', () => {
  let devices: DeviceHarness;
  beforeAll(async () => {
    devices = await deviceHarness(t);
  }, 60_000);
  afterAll(() => devices?.close());

  it('a presented card launches the mapped macro; other events, devices and down servers do not block intake', async () => {
    const building = await makeGroup(db(), t.project.projectId, root());
    const elsewhere = await makeGroup(db(), t.project.projectId, root());
    const panel = await devices.device({ serial: 'AXX-PANEL-1', groupId: building });
    const outsider = await devices.device({ serial: 'AXX-PANEL-2', groupId: elsewhere });
    const fake = await startFakeAxxonOne();
    fakes.push(fake);
    const DENIED = 'a1b2c3d4-0000-4000-8000-000000000002';
    const stored = async (deviceId: number, identifier: string) => {
      await t.app.services.devices.flushEvents();
      const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'device_id', operator: 'equals', value: deviceId }] }));
      const events = (await admin.get(`/devices/events?sort=-id&filters=${filters}`)).json().data as { type: string; identifier: string }[];
      return events.filter((e) => e.type === 'access_denied' && e.identifier === identifier).length;
    };
    const GRANTED = 'a1b2c3d4-0000-4000-8000-000000000001';

    // A rule may only name devices inside the integration's groups.
    const refused = await admin.post('/integrations', {
      name: 'Building',
      domain_id: building,
      axxon_one_settings: { url: fake.url, user: fake.user, password: fake.password },
      macro_rules: [{ event: 'access_denied', macro_id: DENIED, device_ids: [outsider.id] }],
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('integration not allowed for a user or device');
    expect(refused.json().details).toMatchObject([{ entity: 'devices', ids: [outsider.id] }]);

    const made = await admin.post('/integrations', {
      name: 'Building',
      domain_id: building,
      axxon_one_settings: { url: fake.url, user: fake.user, password: fake.password },
      macro_rules: [
        { event: 'access_denied', macro_id: DENIED, macro_name: 'Alarm to operator', device_ids: [] },
        { event: 'access_granted', macro_id: GRANTED, device_ids: [panel.id] },
      ],
    });
    expect(made.statusCode, made.body).toBe(200);

    // An unknown card at the building's panel: denied, and the macro runs on the video server.
    await panel.sim.present('DEADBEEF');
    await t.app.services.devices.flushEvents();
    await expect.poll(() => fake.launched.length, { timeout: 10_000 }).toBe(1);
    expect(fake.launched[0]).toMatchObject({
      macro_id: DENIED,
      data: { source: 'atrium', event: 'access_denied', device_id: String(panel.id), identifier: 'DEADBEEF' },
    });
    // The same at a panel of another group: the building's integration does not hear it.
    await outsider.sim.present('DEADBEEF');
    await expect.poll(() => stored(outsider.id, 'DEADBEEF'), { timeout: 10_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.launched).toHaveLength(1);
    // Once the integration also serves that group (domains), its panels launch the macro too.
    const id = made.json().data.id;
    expect((await admin.post(`/integrations/${id}`, { domains: [elsewhere] })).statusCode).toBe(200);
    await outsider.sim.present('DEADBEEF');
    await expect.poll(() => fake.launched.length, { timeout: 10_000 }).toBe(2);
    expect(fake.launched[1]).toMatchObject({ macro_id: DENIED, data: { device_id: String(outsider.id) } });
    // A rule may then name its devices; dropping the group again is refused while a rule names one.
    const named = await admin.post(`/integrations/${id}`, {
      macro_rules: [...made.json().data.macro_rules, { event: 'tamper', macro_id: DENIED, device_ids: [outsider.id] }],
    });
    expect(named.statusCode, named.body).toBe(200);
    expect((await admin.post(`/integrations/${id}`, { domains: [] })).json().code).toBe('integration_not_allowed');
    expect((await admin.post(`/integrations/${id}`, { domains: [], macro_rules: made.json().data.macro_rules })).statusCode).toBe(200);

    // A resident's card, granted by an access rule at the panel: the "granted" macro of that panel.
    const resident = await makeUser(db(), {
      projectId: t.project.projectId,
      roleId: await makeRole(db(), t.project.projectId, []),
      groupIds: [building],
    });
    expect((await admin.put('/identifiers', { name: 'Card', value: 'CA0B', owner_id: resident.id })).statusCode).toBe(200);
    const rule = await admin.put('/access-rules', { name: 'Entrance', devices: [{ id: panel.id, lock_number: 1 }], users: [resident.id] });
    expect(rule.statusCode, rule.body).toBe(200);
    await devices.synced(panel.id);
    expect(await panel.sim.present('CA0B', { lock: 1 })).toMatchObject({ granted: true });
    await expect.poll(() => fake.launched.length, { timeout: 10_000 }).toBe(3);
    expect(fake.launched[2]).toMatchObject({ macro_id: GRANTED, data: { event: 'access_granted', identifier: 'CA0B' } });

    // The video server goes down: events are still stored at once, the launch fails in the background.
    await fake.close();
    const failed = t.app.services.integrations.stats.failed;
    await panel.sim.present('CAFEBABE');
    await expect.poll(() => stored(panel.id, 'CAFEBABE'), { timeout: 3_000 }).toBe(1);
    await expect.poll(() => t.app.services.integrations.stats.failed, { timeout: 10_000 }).toBeGreaterThan(failed);
  });
});
