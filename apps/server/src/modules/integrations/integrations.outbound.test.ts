// An integration's video server is an address the operator types in, and the server connects to it:
// one inside the site (loopback, private, link-local, the cloud's metadata address, special-purpose
// ranges) is refused when saved and again at each use, where the name is resolved once and that very
// address connected to (DNS rebinding). INTEGRATIONS_ALLOW_PRIVATE lets one inside the site in.
// A real gRPC server (the fake Axxon One) on loopback stands for the address that must not be reached.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, login, type TestApp } from '../../../test/helpers.js';
import { AxxonOneClient } from './axxon-one.client.js';
import { type FakeAxxonOne, startFakeAxxonOne } from './fake-axxon-one.fixture.js';
import { integrations as integrationsTable } from './integrations.table.js';

let t: TestApp;
let plain: FakeAxxonOne;
let secure: FakeAxxonOne;
let token: string;

beforeAll(async () => {
  t = await buildTestApp();
  token = await login(t.app, t.adminLogin, t.adminPassword);
  plain = await startFakeAxxonOne();
  secure = await startFakeAxxonOne({ tls: true });
}, 120_000);
afterAll(async () => {
  await plain?.close();
  await secure?.close();
  await t?.close();
});

function save(payload: unknown, url = '/integrations') {
  const boundary = '----atrium-integrations-outbound';
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n${JSON.stringify(payload)}\r\n--${boundary}--\r\n`;
  return t.app.inject({
    method: 'POST',
    url: `/api/v0${url}`,
    payload: body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
  });
}
const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/v0${url}`, headers: { authorization: `Bearer ${token}` } });
const refusal = {
  message: 'invalid data sent',
  details: [{ field: 'axxon_one_settings.url', message: 'private addresses are not allowed' }],
};

describe('integration address policy', { timeout: 60_000 }, () => {
  it('refuses an address inside the site when saved, naming the field', async () => {
    let n = 0;
    for (const url of [
      plain.url,
      `localhost:${plain.port}`,
      `[::1]:${plain.port}`,
      '169.254.169.254:80',
      '10.0.0.7:20109',
      '198.18.0.1:20109',
    ]) {
      const res = await save({ name: `Video ${++n}`, axxon_one_settings: { url, user: 'root', password: 'p' } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject(refusal);
    }
    expect(plain.authCalls).toBe(0);
  });

  it('refuses to connect at use when the address is inside the site, whatever was saved', async () => {
    // An ordinary public address is taken (saving connects to nothing).
    const made = await save({
      name: 'Remote video',
      axxon_one_settings: { url: '93.184.215.14:20109', user: 'root', password: plain.password },
    });
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json().data.id as number;
    // Changed to loopback through the API (an update is a POST here): refused as on create.
    expect((await save({ axxon_one_settings: { url: plain.url } }, `/integrations/${id}`)).json()).toMatchObject(refusal);
    // Stored anyway (saved while allowed, or its name now answers a loopback address): refused at use.
    await t.database.db.update(integrationsTable).set({ url: plain.url, updatedAt: new Date() }).where(eq(integrationsTable.id, id));
    for (const path of [
      `/integrations/${id}/available`,
      `/integration/axxonone/${id}/listcameras`,
      `/integration/axxonone/${id}/listmacros`,
    ]) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(400);
      expect(res.json()).toMatchObject(refusal);
    }
    expect(plain.authCalls).toBe(0);
  });

  it('connects to the address resolved, with the server name for the authority and TLS (DNS rebinding)', async () => {
    // A name no resolver knows: reached only through the address given.
    const byName = new AxxonOneClient({
      url: `video.atrium-rebind.invalid:${plain.port}`,
      address: '127.0.0.1',
      user: plain.user,
      password: plain.password,
      certificate: null,
    });
    await expect(byName.authenticate()).resolves.toMatch(/\S/);
    byName.close();
    // Over TLS the certificate is still checked against the name, not the address.
    const tls = new AxxonOneClient({
      url: `localhost:${secure.port}`,
      address: '127.0.0.1',
      user: secure.user,
      password: secure.password,
      certificate: secure.certificate,
    });
    await expect(tls.authenticate()).resolves.toMatch(/\S/);
    tls.close();
    const wrongName = new AxxonOneClient({
      url: `video.atrium-rebind.invalid:${secure.port}`,
      address: '127.0.0.1',
      user: secure.user,
      password: secure.password,
      certificate: secure.certificate,
    });
    await expect(wrongName.authenticate()).rejects.toMatchObject({ kind: 'grpc' });
    wrongName.close();
  });
});
