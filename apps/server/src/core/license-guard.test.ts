// The server refuses what the licence leaves off: every route of a licensed area declares its
// feature, one guard checks it, and each feature is refused with it off and served with it on.
import { fullLicenseInfo, type LicenseFeature, type LicenseInfo } from '@atrium/contract';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../test/helpers.js';
import { installLicense, removeLicenses } from '../../test/licenses.js';
import { users } from '../modules/users/users.table.js';
import { LICENSED_PREFIXES, licensedAreaOf } from './license-guard.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());
beforeEach(() => removeLicenses(t));

const without = (change: (f: LicenseInfo) => void): LicenseInfo => {
  const f = fullLicenseInfo();
  change(f);
  return f;
};
const refused = (res: { statusCode: number; json(): unknown }, feature: LicenseFeature, code = 'feature_not_licensed') => {
  expect(res.statusCode).toBe(403);
  expect(res.json()).toMatchObject({ code, details: [{ feature }] });
};
const served = (res: { statusCode: number; body: string }) => expect(res.statusCode, res.body).toBe(200);

describe('route declarations', () => {
  it('every route under a licensed area declares that area’s feature; a public one names how its project is found', () => {
    const routes = t.app.apiRoutes.filter((r) => r.method !== 'HEAD');
    const wrong: string[] = [];
    const seen = new Set<string>();
    for (const r of routes) {
      const area = licensedAreaOf(r.url);
      if (!area) continue;
      seen.add(Object.keys(LICENSED_PREFIXES).find((p) => r.url.replace('/api/v0', '').startsWith(p)) ?? '');
      const declared = r.config.license;
      const feature = typeof declared === 'object' ? declared.feature : declared;
      if (feature !== area) wrong.push(`${r.method} ${r.url}: ${String(feature)} instead of ${area}`);
      if (r.config.public && typeof declared !== 'object') wrong.push(`${r.method} ${r.url}: public without a project`);
    }
    expect(wrong).toEqual([]);
    // Not a walk over nothing: each prefix has routes.
    expect([...seen].sort()).toEqual(Object.keys(LICENSED_PREFIXES).sort());
    expect(routes.filter((r) => licensedAreaOf(r.url)).length).toBeGreaterThan(40);
  });

  it('knows the areas by prefix only, not by a shared beginning of a word', () => {
    expect(licensedAreaOf('/api/v0/elevators/1/call')).toBe('elevator');
    expect(licensedAreaOf('/api/v0/amenities')).toBe('amenity');
    expect(licensedAreaOf('/api/v0/identifiers/guest/:id')).toBe('guest_access');
    expect(licensedAreaOf('/api/v0/identifiers')).toBeUndefined();
    expect(licensedAreaOf('/api/v0/elevatorsx')).toBeUndefined();
  });
});

describe('elevators', () => {
  it('are refused without the elevator licence, on reads and writes, and served with it', async () => {
    await installLicense(
      t,
      without((f) => {
        f.elevator.is_enabled = false;
      }),
    );
    refused(await admin.get('/elevators'), 'elevator');
    refused(await admin.get('/elevators/events'), 'elevator');
    refused(await admin.put('/elevators', { name: 'Lift' }), 'elevator');
    refused(await admin.get('/elevators/access-rules'), 'elevator');
    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    served(await admin.get('/elevators'));
    served(await admin.get('/elevators/access-rules'));
  });

  it('are served to a user whose own licence has them while the project’s does not (hidden only when both are off)', async () => {
    await installLicense(
      t,
      without((f) => {
        f.elevator.is_enabled = false;
      }),
    );
    const u = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_view_elevators']),
      groupIds: [t.project.rootGroupId],
    });
    const api = client(t.app, await login(t.app, u.login, u.password));
    refused(await api.get('/elevators'), 'elevator');
    const own = without((f) => {
      f.elevator.is_enabled = true;
    });
    await t.database.db.update(users).set({ licenseInfo: own }).where(eq(users.id, u.id));
    served(await api.get('/elevators'));
  });
});

describe('amenities', () => {
  it('are refused without the amenity licence, reservations included, and served with it', async () => {
    await installLicense(
      t,
      without((f) => {
        f.amenity.is_enabled = false;
      }),
    );
    refused(await admin.get('/amenities'), 'amenity');
    refused(await admin.get('/amenities/reservations'), 'amenity');
    refused(await admin.put('/amenities', { name: 'Gym' }), 'amenity');
    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    served(await admin.get('/amenities'));
    served(await admin.get('/amenities/reservations'));
  });
});

describe('guest access', () => {
  const grant = async () => {
    const door = await admin.put('/devices', {
      name: 'Door',
      model: 'AP-200',
      serial_number: `LG${Date.now()}`,
      domain_id: t.project.rootGroupId,
    });
    served(door);
    const rule = await admin.put('/access-rules', {
      name: `Guests ${Date.now()}`,
      available_for_guest: true,
      devices: [{ id: door.json().data.id, lock_number: 1 }],
      domains: [t.project.rootGroupId],
    });
    served(rule);
    const now = Date.now();
    const res = await admin.put('/guest-access', {
      access_rules: [rule.json().data.id],
      valid_from: new Date(now - 60_000).toISOString(),
      valid_to: new Date(now + 86_400_000).toISOString(),
    });
    served(res);
    return res.json().data as { identifier: { id: number }; key: string };
  };

  it('is refused without the guest licence to the grantor and on the guest’s own page, and served with it', async () => {
    await installLicense(t, fullLicenseInfo());
    const g = await grant();
    const anon = client(t.app);
    served(await anon.get(`/guest-access/key/${g.key}`));

    await removeLicenses(t);
    await installLicense(
      t,
      without((f) => {
        f.identifier.is_guest_enabled = false;
      }),
    );
    refused(await admin.get('/guest-access/access-rules'), 'guest_access');
    refused(await admin.get('/access-rules/available-for-guest'), 'guest_access');
    refused(await admin.put('/guest-access', {}), 'guest_access');
    refused(await admin.put('/identifiers/guest', {}), 'guest_access');
    refused(await admin.post(`/guest-access/${g.identifier.id}/revoke`), 'guest_access');
    // The guest's page: no one signed in, the licence of the key's project.
    refused(await anon.get(`/guest-access/key/${g.key}`), 'guest_access');
    refused(await anon.post(`/guest-access/key/${g.key}/open`, { token: 'x'.repeat(32) }), 'guest_access');
    // A key no project has: answered as before (the guard has no project to ask).
    expect((await anon.get(`/guest-access/key/${'z'.repeat(32)}`)).json().code).not.toBe('feature_not_licensed');

    await removeLicenses(t);
    served(await anon.get(`/guest-access/key/${g.key}`));
    served(await admin.get('/guest-access/access-rules'));
  });
});

describe('licence plates', () => {
  it('are refused as identifiers without the licence-plate licence, on create and edit; other types are not', async () => {
    await installLicense(
      t,
      without((f) => {
        f.license_plate.is_enabled = false;
      }),
    );
    refused(await admin.put('/identifiers', { name: 'Plate', type: 'license_plate', value: 'A123BC77' }), 'license_plate');
    const card = await admin.put('/identifiers', { name: 'Card', type: 'card', value: 'AB12CD34' });
    served(card);
    refused(await admin.patch(`/identifiers/${card.json().data.id}`, { type: 'license_plate', value: 'A123BC77' }), 'license_plate');

    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    const plate = await admin.put('/identifiers', { name: 'Plate', type: 'license_plate', value: 'A123BC77' });
    served(plate);
    served(await admin.patch(`/identifiers/${plate.json().data.id}`, { name: 'Plate 2' }));
  });
});

describe('licence plates in an identifier import', () => {
  const upload = async (rows: unknown[][]) => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('identifiers');
    for (const r of rows) sheet.addRow(r);
    const data = Buffer.from(await book.xlsx.writeBuffer());
    const boundary = '----atrium-license-guard';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="ids.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      data,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await admin.raw('POST', '/identifiers/import', payload, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { created: number; errors: { row: number; field: string; message: string }[] };
  };

  it('refuses plate rows without the licence-plate licence, writing the other rows; takes them with it', async () => {
    await installLicense(
      t,
      without((f) => {
        f.license_plate.is_enabled = false;
      }),
    );
    const off = await upload([
      ['name', 'type', 'value'],
      ['Plate', 'license_plate', 'B777OP77'],
      ['Card', 'card', 'CD45EF67'],
    ]);
    expect(off.created).toBe(1);
    expect(off.errors).toEqual([{ row: 2, field: 'type', message: 'action prohibited' }]);

    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    const on = await upload([
      ['name', 'type', 'value'],
      ['Plate', 'license_plate', 'B777OP77'],
    ]);
    expect(on).toMatchObject({ created: 1, errors: [] });
  });
});

describe('UKEY2 keys', () => {
  it('are refused as the UKEY2 checks refuse them without the UKEY2 licence, and served with it', async () => {
    await installLicense(
      t,
      without((f) => {
        f.ukey2.is_enabled = false;
      }),
    );
    refused(await admin.get('/ukey2'), 'ukey2', 'ukey2_not_licensed');
    refused(await admin.get('/ukey2/1'), 'ukey2', 'ukey2_not_licensed');
    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    served(await admin.get('/ukey2'));
  });
});
