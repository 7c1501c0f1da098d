import { ERROR_MESSAGES, fullLicenseInfo, PERMISSION_CODES } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';

let t: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());

describe('frontend and public calls', () => {
  it('GET /frontend/resources/meta answers meta, the permission catalogue and notification settings', async () => {
    const res = await admin.get('/frontend/resources/meta');
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d.meta).toMatchObject({ locales: ['en', 'ru'], api_version: 'v0' });
    expect(d.permissions).toHaveLength(PERMISSION_CODES.length);
    expect(d.notification_settings).toEqual({ acs: true });
    expect((await client(t.app).get('/frontend/resources/meta')).statusCode).toBe(401);
  });

  it('GET /frontend/server/settings is public and has every field of spec §3', async () => {
    const res = await client(t.app).get('/frontend/server/settings');
    expect(res.statusCode).toBe(200);
    const keys = Object.keys(res.json().data);
    for (const k of [
      'can_user_recovery_password',
      'can_user_register_by_token',
      'can_user_register_himself',
      'is_standalone_mode',
      'auto_forward_rules',
      'license',
      'warnings',
      'locale',
      'domain',
      'push_server',
      'server_ip',
      'internal_server_ip',
      'version',
      'device_broker_host',
      'sip_proxy_host',
      'white_label',
    ]) {
      expect(keys).toContain(k);
    }
    expect(res.json().data.auto_forward_rules).toEqual({ is_enabled: false, device_protocol: 'UDP', use_address: 'server_url' });
    expect(res.json().data.warnings).toEqual({ status: 'normal', days: null });
    expect(res.json().data.white_label).toEqual({ name: null, logo_url: null });
  });

  it('GET /info, /countries and /terms are public', async () => {
    expect((await client(t.app).get('/info')).json().data).toMatchObject({ name: 'Atrium', api_version: 'v0' });
    const countries = (await client(t.app).get('/countries')).json().data;
    expect(countries.find((c: { code: string }) => c.code === 'RU')).toEqual({
      code: 'RU',
      name: 'Russian Federation',
      names: { en: 'Russian Federation', ru: 'Российская Федерация' },
      phone_code: '+7',
    });
    // The whole of ISO 3166-1, named in both languages; a territory without a numbering plan has no calling code.
    expect(countries.length).toBeGreaterThanOrEqual(249);
    expect(countries.find((c: { code: string }) => c.code === 'AQ')).toMatchObject({ names: { ru: 'Антарктида' }, phone_code: '' });
    expect(countries.every((c: { names: { en: string; ru: string } }) => c.names.en && c.names.ru)).toBe(true);
    const en = await client(t.app).get('/terms/en.html');
    expect(en.headers['content-type']).toContain('text/html');
    expect(en.body).toContain('Terms and conditions');
    expect((await client(t.app).get('/terms/ru.html')).body).toContain('Условия');
    expect((await client(t.app).get('/terms/de.html')).statusCode).toBe(400);
  });

  it('unknown API routes answer 404 "item not found" as JSON with a request id', async () => {
    for (const url of ['/api/v0/nothing-here', '/api/unknown', '/api/v0/profile/x/y']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer x' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ message: 'item not found', code: 'not_found' });
      expect(res.json().request_id).toBe(res.headers['x-request-id']);
    }
  });

  it('keeps a well-formed request id sent by a proxy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v0/info', headers: { 'x-request-id': 'proxy-id-12345' } });
    expect(res.headers['x-request-id']).toBe('proxy-id-12345');
  });

  it('serves the OpenAPI document generated from the zod schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v0/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/login'].post.requestBody).toBeTruthy();
    expect(doc.paths['/profile'].patch).toBeTruthy();
    const ui = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(ui.statusCode).toBe(200);
  });

  it('every error message is a lower-case phrase', () => {
    for (const m of ERROR_MESSAGES) expect(m).toBe(m.toLowerCase());
  });

  it('tells licence warnings only to those who may manage licences', async () => {
    const db = t.app.database.db;
    const soon = Math.floor(Date.now() / 1000) + 5 * 86_400;
    await installLicense(t, fullLicenseInfo(), { period: { from: 0, to: soon } });
    const manager = await adminClient(t);
    expect((await manager.get('/frontend/server/settings')).json().data.warnings).toEqual({ status: 'will_expire', days: 5 });
    const member = await makeUser(db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    const memberApi = client(t.app, await login(t.app, member.login, member.password));
    expect((await memberApi.get('/frontend/server/settings')).json().data.warnings).toEqual({ status: 'normal', days: null });
    expect((await client(t.app).get('/frontend/server/settings')).json().data.warnings).toEqual({ status: 'normal', days: null });
    await removeLicenses(t);
  });
});
