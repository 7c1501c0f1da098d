// Licences: signed files (Ed25519 over canonical JSON) added from an upload or a licence server,
// statuses from the dates, warnings, limits where they matter, reports, notices, permissions.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fullLicenseInfo, type LicenseFile, type LicenseInfo } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { DEV_ISSUER_KEY, licensePayload, removeLicenses, signedLicense } from '../../../test/licenses.js';
import { queryRows } from '../../core/db/client.js';
import { signLicense } from './license-file.js';
import { evaluateLicenses } from './license-state.js';

// The test issuer: a key pair of this run; the app trusts only its public half.
const issuer = generateKeyPairSync('ed25519');
const ISSUER_KEY = issuer.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ISSUER_PUBLIC = issuer.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const DAY = 86_400;
const nowS = () => Math.floor(Date.now() / 1000);

const sign = (over: Parameters<typeof licensePayload>[0] = {}): LicenseFile => signedLicense(over, ISSUER_KEY);
const withFeatures = (change: (f: LicenseInfo) => void): LicenseInfo => {
  const f = fullLicenseInfo();
  change(f);
  return f;
};

function form(content: string | Buffer, name = 'license.json') {
  const boundary = '----atrium-license';
  return {
    payload: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/json\r\n\r\n`,
      ),
      Buffer.isBuffer(content) ? content : Buffer.from(content),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

// A fake licence server: answers POST /v1/licenses/activate as `answer` says.
let answer: (body: { instance_id: string; project_uid: string; key?: string }) => { status: number; body: unknown } | 'hang up' = () => ({
  status: 404,
  body: {},
});
let cloud: Server;
let cloudUrl: string;

let t: TestApp;
/** A development server: no issuer key, no licence server. */
let dev: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
type Api = ReturnType<typeof client>;
const upload = (api: Api, file: unknown) => {
  const f = form(typeof file === 'string' ? file : JSON.stringify(file));
  return api.raw('POST', '/licenses/file', f.payload, f.headers);
};
async function userWith(permissions: string[], groupIds: number[] = [t.project.rootGroupId]): Promise<Api> {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds });
  return client(t.app, await login(t.app, u.login, u.password));
}
const count = async (table: string) =>
  Number((await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)}`))[0]?.n);

beforeAll(async () => {
  cloud = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/licenses/activate') {
        res.writeHead(404).end();
        return;
      }
      const a = answer(JSON.parse(body));
      if (a === 'hang up') {
        req.socket.destroy();
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => cloud.listen(0, '127.0.0.1', r));
  cloudUrl = `http://127.0.0.1:${(cloud.address() as AddressInfo).port}`;
  t = await buildTestApp({ env: { LICENSE_PUBLIC_KEY: ISSUER_PUBLIC, LICENSE_SERVER_URL: cloudUrl } });
  admin = await adminClient(t);
  dev = await buildTestApp();
}, 120_000);
afterAll(async () => {
  await t.close();
  await dev.close();
  await new Promise((r) => cloud.close(r));
});
beforeEach(() => removeLicenses(t));

describe('without a licence', () => {
  it('a server with an issuer key has nothing licensed: no_license, SIP refused', async () => {
    const features = (await admin.get('/licenses/features')).json().data;
    expect(features).toMatchObject({
      source: 'none',
      warnings: { status: 'no_license', days: null },
      cloud_enabled: true,
      development_server: false,
    });
    expect(features.features.sip.is_enabled).toBe(false);
    expect((await admin.get('/frontend/server/settings')).json().data.warnings.status).toBe('no_license');
    const sip = await admin.put('/sip-numbers', { number: '7001', password: 'Secret123abc', domain_id: t.project.rootGroupId });
    expect(sip.statusCode).toBe(403);
  });

  it('a development server (no issuer key) runs on the built-in development licence', async () => {
    {
      const api = await adminClient(dev);
      const state = (await api.get('/licenses/features')).json().data;
      expect(state).toMatchObject({
        source: 'development',
        warnings: { status: 'normal' },
        cloud_enabled: false,
        development_server: true,
      });
      expect(state.features).toEqual(fullLicenseInfo());
      // The development issuer's files are accepted there, and only there.
      const devFile = signedLicense({ features: withFeatures((f) => (f.sip.license_count = 3)) }, DEV_ISSUER_KEY);
      expect((await upload(api, devFile)).statusCode).toBe(200);
      expect((await api.get('/licenses/features')).json().data).toMatchObject({
        source: 'license',
        features: { sip: { license_count: 3 } },
        // Still a development server: anyone may sign what it accepts.
        development_server: true,
      });
      expect((await upload(admin, devFile)).json().message).toBe('wrong license sign');
    }
  });
});

describe('adding a licence file', () => {
  it('turns the features on; the list tells the licence in effect', async () => {
    const file = sign({ customer: 'Tower A' });
    const res = await upload(admin, file);
    expect(res.statusCode, res.body).toBe(200);
    const added = res.json().data;
    expect(added).toMatchObject({ license_id: file.license.id, customer: 'Tower A', source: 'file', status: 'active' });
    const list = (await admin.get('/licenses')).json().data;
    expect(list.active_ids).toEqual([added.id]);
    expect(list.items.map((l: { id: number }) => l.id)).toEqual([added.id]);
    expect((await admin.get(`/licenses/${added.id}`)).json().data.customer).toBe('Tower A');
    expect((await admin.get('/licenses/features')).json().data).toMatchObject({ source: 'license', warnings: { status: 'normal' } });
    const audit = await queryRows<{ action: string }>(
      t.database.db,
      sql`SELECT action FROM audit_events WHERE entity = 'license' AND entity_id = ${String(added.id)}`,
    );
    expect(audit.map((a) => a.action)).toEqual(['create']);
    // The same licence twice is refused.
    expect((await upload(admin, file)).json().message).toBe('license already installed');
  });

  it('refuses a tampered file, another issuer’s file and a broken one, and writes nothing', async () => {
    const file = sign({ features: withFeatures((f) => (f.sip.license_count = 5)) });
    const tampered = structuredClone(file);
    tampered.license.features.sip.license_count = 5000;
    expect((await upload(admin, tampered)).json()).toMatchObject({ message: 'wrong license sign', code: 'license_wrong_sign' });
    const shifted = structuredClone(file);
    shifted.license.period.to = file.license.period.to - 1;
    expect((await upload(admin, shifted)).json().message).toBe('wrong license sign');
    expect((await upload(admin, signedLicense({}, DEV_ISSUER_KEY))).json().message).toBe('wrong license sign');
    expect((await upload(admin, { ...file, signature: 'AAAA' })).json().message).toBe('wrong license sign');
    expect((await upload(admin, 'not json')).json().message).toBe('invalid license file');
    expect((await upload(admin, { license: 'x' })).json().message).toBe('invalid license file');
    const big = await admin.raw('POST', '/licenses/file', ...Object.values(form(Buffer.alloc(70 * 1024, 32))));
    expect(big.statusCode).toBe(400);
    // Key order and spacing are not part of the signature (canonical JSON).
    const reordered = JSON.stringify(
      { signature: file.signature, license: Object.fromEntries(Object.entries(file.license).reverse()) },
      null,
      2,
    );
    expect((await upload(admin, reordered)).statusCode).toBe(200);
    expect(await count('licenses')).toBe(1);
  });

  it('refuses a licence of another deployment or project, an expired one, and a signed but malformed one', async () => {
    expect((await upload(admin, sign({ instance_id: 'another-instance' }))).json()).toMatchObject({
      message: 'license cannot be applied',
      details: [{ field: 'instance_id' }],
    });
    expect((await upload(admin, sign({ project_uid: 'another-project' }))).json().details[0].field).toBe('project_uid');
    const ended = sign({ period: { from: nowS() - 100 * DAY, to: nowS() - DAY } });
    expect((await upload(admin, ended)).json().message).toBe('license expired');
    // Signed by the issuer, but not a licence (an unknown field): no features are read from it.
    const odd = { license: { ...licensePayload(), extra: true }, signature: '' };
    const { signature } = signLicense(licensePayload(), ISSUER_KEY);
    expect(signature).toBeTruthy();
    const { createPrivateKey, sign: edSign } = await import('node:crypto');
    const canonicalize = (await import('canonicalize')).default;
    odd.signature = edSign(null, Buffer.from(canonicalize(odd.license) as string), createPrivateKey(ISSUER_KEY)).toString('base64');
    expect((await upload(admin, odd)).json().message).toBe('invalid license file');
    // Bound to this deployment and this project: accepted.
    const state = (await admin.get('/licenses/features')).json().data;
    expect((await upload(admin, sign({ instance_id: state.instance_id, project_uid: state.project_uid }))).statusCode).toBe(200);
    expect(await count('licenses')).toBe(1);
  });

  it('is removed with DELETE; then nothing is licensed again', async () => {
    const id = (await upload(admin, sign())).json().data.id;
    expect((await admin.delete(`/licenses/${id}`)).statusCode).toBe(200);
    expect((await admin.delete(`/licenses/${id}`)).statusCode).toBe(404);
    expect((await admin.get('/licenses')).json().data).toEqual({ active_ids: [], items: [] });
    expect((await admin.get('/licenses/features')).json().data.source).toBe('none');
  });
});

describe('statuses and warnings', () => {
  it('pending, active, ending, disabled and expired from the dates', async () => {
    const pending = (await upload(admin, sign({ period: { from: nowS() + 10 * DAY, to: nowS() + 400 * DAY } }))).json().data;
    expect(pending.status).toBe('pending');
    expect((await admin.get('/licenses/features')).json().data.warnings.status).toBe('no_license');
    const ending = (
      await upload(admin, sign({ period: { from: nowS() - DAY, to: nowS() + 5 * DAY }, issued_at: '2026-01-01T00:00:00.000Z' }))
    ).json().data;
    expect(ending).toMatchObject({ status: 'ending', days: 5 });
    expect((await admin.get('/licenses/features')).json().data.warnings).toEqual({ status: 'will_expire', days: 5 });
    // Only those who may manage licences hear the warning.
    expect((await admin.get('/frontend/server/settings')).json().data.warnings).toEqual({ status: 'will_expire', days: 5 });
    const viewer = await userWith(['can_view_licenses']);
    expect((await viewer.get('/frontend/server/settings')).json().data.warnings.status).toBe('normal');
    // A licence issued later replaces the one in effect: the older one is disabled.
    const newer = (await upload(admin, sign({ period: { from: nowS() - DAY, to: nowS() + 300 * DAY } }))).json().data;
    const list = (await admin.get('/licenses')).json().data;
    expect(list.active_ids).toEqual([newer.id]);
    const statusOf = (id: number) => list.items.find((l: { id: number }) => l.id === id).status;
    expect([statusOf(pending.id), statusOf(ending.id), statusOf(newer.id)]).toEqual(['pending', 'disabled', 'active']);
    // Later, as the service would see it then.
    const state = (days: number) => t.app.services.licenses.state(t.project.projectId, Date.now() + days * DAY * 1000);
    expect((await state(302)).warnings.status).toBe('normal'); // the pending one (to +400) took over
    expect((await state(402)).warnings).toEqual({ status: 'already_expired', days: 28 });
    expect((await state(402)).verdicts.get(pending.id)?.status).toBe('expired');
    expect((await state(440)).warnings.status).toBe('no_license');
  });

  it('evaluates as the spec says, the development licence only without any licence', () => {
    const payload = licensePayload({ period: { from: 1000, to: 1000 + 20 * DAY }, grace_days: 2 });
    const at = (s: number) => evaluateLicenses([{ id: 1, payload }], s * 1000, true);
    expect(at(999).verdicts.get(1)?.status).toBe('pending');
    expect(at(999).source).toBe('none');
    expect(at(1000 + 20 * DAY).warnings).toEqual({ status: 'will_expire', days: 0 });
    expect(at(1000 + 21 * DAY).warnings).toEqual({ status: 'already_expired', days: 1 });
    expect(at(1000 + 23 * DAY).warnings.status).toBe('no_license');
    expect(evaluateLicenses([{ id: 1, payload: null }], 0, true).verdicts.get(1)?.status).toBe('disabled');
    expect(evaluateLicenses([], 0, true).source).toBe('development');
    expect(evaluateLicenses([], 0, false).warnings.status).toBe('no_license');
  });

  it('a licence row changed behind Atrium’s back counts for nothing', async () => {
    const id = (await upload(admin, sign({ features: withFeatures((f) => (f.sip.license_count = 1)) }))).json().data.id;
    await t.database.db.execute(
      sql`UPDATE licenses SET file = jsonb_set(file, '{license,features,sip,license_count}', '1000') WHERE id = ${id}`,
    );
    t.app.services.licenses.invalidate();
    const list = (await admin.get('/licenses')).json().data;
    expect(list.active_ids).toEqual([]);
    expect(list.items[0].status).toBe('disabled');
  });
});

describe('limits', () => {
  it('refuses SIP numbers beyond the licence count; usage and the _qty restrictor are told', async () => {
    await upload(admin, sign({ features: withFeatures((f) => (f.sip.license_count = 1)) }));
    const make = (n: string) => admin.put('/sip-numbers', { number: n, password: 'Secret123abc', domain_id: t.project.rootGroupId });
    expect((await make('7101')).statusCode).toBe(200);
    const second = await make('7102');
    expect(second.json()).toMatchObject({ message: 'total sip numbers limit reached' });
    expect((await admin.get('/licenses/usage')).json().data).toMatchObject({ sip_numbers_used: 1, limits: { sip: 1 }, restrictors: [] });
    // A smaller licence: the project is over its count.
    await removeLicenses(t);
    await upload(admin, sign({ features: withFeatures((f) => (f.sip.license_count = 0)) }));
    const usage = (await admin.get('/licenses/usage')).json().data;
    expect(usage.restrictors).toEqual([{ type: 'sip_qty', limit: 0, used: 1 }]);
    expect((await admin.get('/profile')).json().data.license_state.restrictors).toEqual([{ type: 'sip_qty', value: 0 }]);
    await t.database.db.execute(sql`DELETE FROM sip_numbers`);
  });

  it('counts UKEY2 keys and mobile apps, and keeps the project counts where the group rules read them', async () => {
    await upload(admin, sign({ features: withFeatures((f) => (f.ukey2.license_count = 1)) }));
    expect((await admin.put('/identifiers', { name: 'k1', type: 'ukey2', value: '0B01' })).statusCode).toBe(200);
    expect((await admin.put('/identifiers', { name: 'k2', type: 'ukey2', value: '0B02' })).json().message).toBe(
      'exceeding the maximum ukey2 in the project',
    );
    await t.database.db.execute(
      sql`UPDATE users SET license_info = '{"mobile_app":{"is_enabled":true,"license_count":3}}'::jsonb WHERE id = ${t.project.adminId}`,
    );
    // Apps handed out to users are not apps in use: registered mobile clients are (issue 14, mobile-clients tests).
    expect((await admin.get('/licenses/usage')).json().data).toMatchObject({ ukey2_used: 1, mobile_app_used: 0 });
    const [p] = await queryRows<{ info: LicenseInfo }>(
      t.database.db,
      sql`SELECT license_info AS info FROM projects WHERE id = ${t.project.projectId}`,
    );
    expect(p?.info.ukey2.license_count).toBe(1);
    await t.database.db.execute(sql`DELETE FROM identifiers WHERE type = 'ukey2'`);
    await t.database.db.execute(sql`UPDATE users SET license_info = NULL WHERE id = ${t.project.adminId}`);
  });
});

describe('mobile apps', () => {
  it('refuses users’ mobile-app licences beyond the project’s count, and writes none of the change', async () => {
    await upload(admin, sign({ features: withFeatures((f) => (f.mobile_app.license_count = 3)) }));
    const mobile = (n: number) => ({ mobile_app: { ...fullLicenseInfo().mobile_app, license_count: n } });
    const a = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    const b = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    expect((await admin.patch(`/users/${a.id}`, { license_info: mobile(2) })).statusCode).toBe(200);
    const over = await admin.patch(`/users/${b.id}`, { license_info: mobile(2), name: 'Changed' });
    expect(over.json()).toMatchObject({
      message: 'exceeding the maximum mobile apps in the project',
      details: [{ params: { max_count: 3, used: 4 } }],
    });
    expect((await admin.get(`/users/${b.id}`)).json().data.name).not.toBe('Changed');
    expect((await admin.patch(`/users/${b.id}`, { license_info: mobile(1) })).statusCode).toBe(200);
    const created = await admin.put('/users', {
      login: `m-${Date.now()}`,
      domains: [t.project.rootGroupId],
      license_info: mobile(1),
      send_registration_link: false,
    });
    expect(created.json().message).toBe('exceeding the maximum mobile apps in the project');
    expect((await admin.get('/licenses/usage')).json().data.mobile_app_used).toBe(0);
    await t.database.db.execute(sql`UPDATE users SET license_info = NULL`);
  });
});

describe('npm run license', () => {
  it('signs a licence the development server accepts', async () => {
    const { execFileSync } = await import('node:child_process');
    const root = new URL('../../../../../', import.meta.url).pathname;
    const text = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'tools/license/sign.ts', '--customer', 'CLI', '--days', '30', '--sip', '7', '--without', 'elevator'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    const api = await adminClient(dev);
    const res = await upload(api, text);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ customer: 'CLI', status: 'active' });
    expect(res.json().data.features.sip.license_count).toBe(7);
    expect(res.json().data.features.elevator.is_enabled).toBe(false);
    expect((await upload(admin, text)).json().message).toBe('wrong license sign');
  });
});

describe('the licence server', () => {
  it('adds the project’s licence; tells each of its refusals', async () => {
    let asked: { instance_id: string; project_uid: string; key?: string } | undefined;
    answer = (body) => {
      asked = body;
      return { status: 200, body: sign({ instance_id: body.instance_id, project_uid: body.project_uid }) };
    };
    const res = await admin.post('/licenses/cloud', { key: 'ACT-1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.source).toBe('cloud');
    const state = (await admin.get('/licenses/features')).json().data;
    expect(asked).toEqual({ instance_id: state.instance_id, project_uid: state.project_uid, key: 'ACT-1' });

    answer = () => ({ status: 404, body: {} });
    expect((await admin.post('/licenses/cloud', {})).json().message).toBe('no license found for the project');
    answer = () => ({ status: 409, body: {} });
    expect((await admin.post('/licenses/cloud', {})).json().message).toBe('server with the same instance id already registered');
    answer = () => ({ status: 500, body: {} });
    expect((await admin.post('/licenses/cloud', {})).json().message).toBe('license server not responding');
    answer = () => {
      const f = sign();
      f.license.customer = 'Someone else';
      return { status: 200, body: f };
    };
    expect((await admin.post('/licenses/cloud', {})).json().message).toBe('wrong license sign');
    expect((await admin.post('/licenses/cloud', { key: '' })).statusCode).toBe(400);
    expect(await count('licenses')).toBe(1);
  });

  it('hanging up, or not configured', async () => {
    answer = () => 'hang up';
    expect((await admin.post('/licenses/cloud', {})).json()).toMatchObject({
      message: 'license server not responding',
      code: 'license_server_not_responding',
    });
    expect((await (await adminClient(dev)).post('/licenses/cloud', {})).json().message).toBe('license server not configured');
  });
});

describe('permissions', () => {
  it('viewing needs a licence permission, adding and removing need manage', async () => {
    const id = (await upload(admin, sign())).json().data.id;
    const nobody = await userWith([]);
    for (const url of ['/licenses', '/licenses/usage', '/licenses/features', `/licenses/${id}`])
      expect((await nobody.get(url)).statusCode).toBe(403);
    const viewer = await userWith(['can_view_licenses']);
    expect((await viewer.get('/licenses')).statusCode).toBe(200);
    expect((await upload(viewer, sign())).statusCode).toBe(403);
    expect((await viewer.post('/licenses/cloud', {})).statusCode).toBe(403);
    expect((await viewer.delete(`/licenses/${id}`)).statusCode).toBe(403);
    expect((await viewer.get('/reports/licenses/used')).statusCode).toBe(403);
    expect((await viewer.get('/reports/licenses/period/download')).statusCode).toBe(403);
    const manager = await userWith(['can_manage_licenses']);
    expect((await manager.get('/licenses')).statusCode).toBe(200);
    expect((await manager.delete(`/licenses/${id}`)).statusCode).toBe(200);
  });

  it('a licence of another project is out of reach', async () => {
    const otherProject = await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'other-admin',
      adminPassword: 'admin-password-2',
      adminName: 'O',
    });
    const other = client(t.app, await login(t.app, 'other-admin', 'admin-password-2'));
    const id = (await upload(admin, sign())).json().data.id;
    expect((await other.get(`/licenses/${id}`)).statusCode).toBe(404);
    expect((await other.delete(`/licenses/${id}`)).statusCode).toBe(404);
    expect((await other.get('/licenses')).json().data.items).toEqual([]);
    expect(otherProject.projectId).not.toBe(t.project.projectId);
  });
});

describe('reports', () => {
  it('licences used per day, as JSON and xlsx', async () => {
    await upload(admin, sign({ features: withFeatures((f) => (f.sip.license_count = 10)) }));
    const today = new Date().toISOString().slice(0, 10);
    const rows = (await admin.get('/reports/licenses/used')).json().data;
    expect(rows.at(-1)).toMatchObject({ day: today, sip_limit: 10, sip_numbers_used: 0 });
    expect((await admin.get('/reports/licenses/used?from=2026-02-01&to=2026-01-01')).statusCode).toBe(400);
    expect((await admin.get('/reports/licenses/used?from=2020-01-01&to=2026-01-01')).statusCode).toBe(400);
    const file = await admin.get('/reports/licenses/used/download');
    expect(file.headers['content-type']).toContain('spreadsheetml');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    expect(sheet?.getRow(1).values).toEqual([
      undefined,
      'day',
      'sip_numbers_used',
      'sip_limit',
      'mobile_app_used',
      'mobile_app_limit',
      'ukey2_used',
      'ukey2_limit',
    ]);
    expect(sheet?.getRow(sheet.rowCount).getCell(1).value).toBe(today);
  });

  it('licence periods of the project and of the groups the viewer may see', async () => {
    await upload(admin, sign({ customer: 'Whole site', period: { from: nowS() - DAY, to: nowS() + 100 * DAY } }));
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Building 7');
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, null, 'Elsewhere');
    const groupLicense = JSON.stringify({
      is_enabled: true,
      licenses: [{ type: 'sip', quantity: 2, period: { from: nowS() - DAY, to: nowS() + 10 * DAY } }],
    });
    await t.database.db.execute(sql`UPDATE groups SET license_info = ${groupLicense}::jsonb WHERE id IN (${building}, ${elsewhere})`);
    const rows = (await admin.get('/reports/licenses/period')).json().data;
    expect(rows.map((r: { kind: string; name: string; status: string }) => [r.kind, r.name, r.status])).toEqual([
      ['project', 'Whole site', 'active'],
      ['group', 'Building 7', 'ending'],
      ['group', 'Elsewhere', 'ending'],
    ]);
    const scoped = await userWith(['can_view_licenses_used_report', 'can_view_descendant_domain_licenses'], [building]);
    expect((await scoped.get('/reports/licenses/period')).json().data.map((r: { name: string }) => r.name)).toEqual([
      'Whole site',
      'Building 7',
    ]);
    const reportOnly = await userWith(['can_view_licenses_used_report'], [building]);
    expect((await reportOnly.get('/reports/licenses/period')).json().data.map((r: { name: string }) => r.name)).toEqual(['Whole site']);
    const file = await admin.get('/reports/licenses/period/download');
    expect(file.statusCode).toBe(200);
    await t.database.db.execute(sql`UPDATE groups SET license_info = NULL WHERE id IN (${building}, ${elsewhere})`);
  });
});

describe('notices of licences about to end', () => {
  it('tells those who manage licences, once a day; a group licence per its group’s setting', async () => {
    await upload(admin, sign({ period: { from: nowS() - DAY, to: nowS() + 3 * DAY } }));
    const notices = async (userId: number) =>
      queryRows<{ data: { scope: string; days: number } }>(
        t.database.db,
        sql`SELECT data FROM notifications WHERE user_id = ${userId} AND type = 'system' AND data->>'kind' = 'license_expiring' ORDER BY id`,
      );
    const before = (await notices(t.project.adminId)).length;
    const group = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Notify me');
    await t.database.db.execute(
      sql`UPDATE groups SET license_info = ${JSON.stringify({
        is_enabled: true,
        notifications: { is_active: true, period: 'weekly', notify_before: 14 },
        licenses: [{ type: 'elevator', period: { from: nowS() - DAY, to: nowS() + 7 * DAY } }],
      })}::jsonb WHERE id = ${group}`,
    );
    const roleId = await makeRole(t.database.db, t.project.projectId, ['can_view_self_domain_licenses']);
    const member = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [group] });
    const stranger = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
    await t.app.services.licenseAdmin.tick();
    await t.app.services.licenseAdmin.tick();
    const mine = (await notices(t.project.adminId)).slice(before);
    expect(mine.map((n) => [n.data.scope, n.data.days])).toEqual([
      ['project', 3],
      ['group', 7],
    ]);
    expect((await notices(member.id)).map((n) => n.data.scope)).toEqual(['group']);
    expect(await notices(stranger.id)).toEqual([]);
    // A week later the weekly group notice is due again; the project one every day.
    await t.app.services.licenseAdmin.tick(Date.now() + 7 * DAY * 1000 - 60_000);
    expect((await notices(member.id)).length).toBe(2);
    await t.database.db.execute(sql`UPDATE groups SET license_info = NULL WHERE id = ${group}`);
  });
});
