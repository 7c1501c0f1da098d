// UKEY2 keys counted against the UKEY2 licence: the server licence's count for the project, a
// group's own count for the keys of its users and those below; a breach by a create, a change of
// type or owner, or an import is refused with the spec's message and writes nothing.
import { fullLicenseInfo } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeGroup, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t.close());

async function setLicense(ukey2: { is_enabled: boolean; license_count: number | null }) {
  await removeLicenses(t);
  await installLicense(t, { ...fullLicenseInfo(), ukey2 });
}
const ukey2Count = async () =>
  Number((await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM identifiers WHERE type = 'ukey2'`))[0]?.n);

beforeEach(async () => {
  await t.database.db.execute(sql`DELETE FROM identifiers WHERE type = 'ukey2'`);
  await setLicense({ is_enabled: true, license_count: null });
});

describe('UKEY2 licence', () => {
  it('keeps the project within the licence count, whether keys are made or changed into UKEY2', async () => {
    await setLicense({ is_enabled: true, license_count: 2 });
    for (const v of ['0A01', '0A02']) expect((await admin.put('/identifiers', { name: v, type: 'ukey2', value: v })).statusCode).toBe(200);
    const third = await admin.put('/identifiers', { name: 'third', type: 'ukey2', value: '0A03' });
    expect(third.statusCode).toBe(400);
    expect(third.json()).toMatchObject({
      message: 'exceeding the maximum ukey2 in the project',
      details: [{ field: 'type', params: { max_count: 2 } }],
    });
    expect(await ukey2Count()).toBe(2);

    // A card changed into a UKEY2 key counts too, and the refused change leaves the card as it was.
    const card = (await admin.put('/identifiers', { name: 'card', value: '0A04' })).json().data;
    const change = await admin.patch(`/identifiers/${card.id}`, { type: 'ukey2' });
    expect(change.json().message).toBe('exceeding the maximum ukey2 in the project');
    expect((await admin.get(`/identifiers/${card.id}`)).json().data.type).toBe('card');

    // Unlicensed, no UKEY2 key can be made.
    await setLicense({ is_enabled: false, license_count: null });
    await t.database.db.execute(sql`DELETE FROM identifiers WHERE type = 'ukey2'`);
    const off = await admin.put('/identifiers', { name: 'off', type: 'ukey2', value: '0A05' });
    expect(off.statusCode).toBe(403);
    expect(off.json().message).toBe('ukey2 is not licensed');
  });

  it('keeps a group within its own count, for its users and those of the groups below', async () => {
    const building = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Tower B');
    const flat = await makeGroup(t.database.db, t.project.projectId, building);
    await t.database.db.execute(sql`UPDATE groups SET license_info = '{"ukey2": {"license_count": 1}}'::jsonb WHERE id = ${building}`);
    const alice = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [flat] });
    const bob = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [building] });
    const outsider = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });

    expect((await admin.put('/identifiers', { name: 'a', type: 'ukey2', value: '0B01', owner_id: alice.id })).statusCode).toBe(200);
    const bobs = await admin.put('/identifiers', { name: 'b', type: 'ukey2', value: '0B02', owner_id: bob.id });
    expect(bobs.statusCode).toBe(400);
    expect(bobs.json()).toMatchObject({
      message: 'exceeding the maximum ukey2 in the group',
      details: [{ field: 'owner_id', params: { domain: 'Tower B', max_count: 1, used: 2 } }],
    });
    // Someone outside the group is not counted against it; giving that key to a user inside is.
    const out = (await admin.put('/identifiers', { name: 'o', type: 'ukey2', value: '0B03', owner_id: outsider.id })).json().data;
    expect((await admin.patch(`/identifiers/${out.id}`, { owner_id: bob.id })).json().message).toBe(
      'exceeding the maximum ukey2 in the group',
    );
    expect((await admin.get(`/identifiers/${out.id}`)).json().data.owner_id).toBe(outsider.id);
  });

  it('refuses an import that would pass the count, and writes none of its rows', async () => {
    await setLicense({ is_enabled: true, license_count: 3 });
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('identifiers');
    ws.addRow(['name', 'type', 'value']);
    for (let i = 0; i < 5; i++) ws.addRow([`key ${i}`, 'ukey2', `0C0${i}`]);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    const boundary = '----atrium-ukey2';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="keys.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await admin.raw('POST', '/identifiers/import', payload, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(res.json().message).toBe('exceeding the maximum ukey2 in the project');
    expect(await ukey2Count()).toBe(0);
  });
});
