// A door panel's forwards: the numbers of its group and the groups below (each flat's own number and
// its residents' master numbers), each with how the panel dials it and where the call goes on; as
// JSON and as a spreadsheet; only for those who may view the panel, and residents' names only for
// those who may see them.
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
const PW = 'Secret123abc';
let panelId: number;
let entrance: number;
let flat12: number;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  const db = t.database.db;
  const building = await makeGroup(db, t.project.projectId, t.project.rootGroupId, 'Building A');
  entrance = await makeGroup(db, t.project.projectId, building, 'Entrance 1');
  flat12 = await makeGroup(db, t.project.projectId, entrance, 'Flat 12');
  const flat13 = await makeGroup(db, t.project.projectId, entrance, 'Flat 13');
  const elsewhere = await makeGroup(db, t.project.projectId, building, 'Entrance 2');
  await db.execute(sql`UPDATE groups SET logic_address = 12 WHERE id = ${flat12}`);
  await db.execute(sql`UPDATE groups SET logic_address = 13 WHERE id = ${flat13}`);
  const rita = await makeUser(db, { projectId: t.project.projectId, groupIds: [flat12], name: 'Rita Resident' });
  const tom = await makeUser(db, { projectId: t.project.projectId, groupIds: [flat13], name: 'Tom Tenant' });
  const far = await makeUser(db, { projectId: t.project.projectId, groupIds: [elsewhere], name: 'Far Away' });
  panelId = (
    await admin.put('/devices', { name: 'Entrance 1 panel', model: 'AP-100', serial_number: 'FWD-PANEL', domain_id: entrance })
  ).json().data.id;
  const put = async (body: Record<string, unknown>) => {
    const res = await admin.put('/sip-numbers', { password: PW, ...body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { id: number };
  };
  await put({ number: '4000', device_id: panelId, domain_id: entrance });
  await put({ number: '4012', domain_id: flat12, purpose: 'group_sip_number' });
  await put({
    number: '4112',
    user_id: rita.id,
    domain_id: flat12,
    purpose: 'master_sip_number',
    forward_mode: 'manual',
    forward_rules: { redirect_if_no_answer: { timeout: 15, numbers: ['4012'] }, redirect_if_error: null },
  });
  await put({ number: '4113', user_id: tom.id, domain_id: flat13, purpose: 'master_sip_number' });
  await put({ number: '4200', user_id: far.id, domain_id: elsewhere, purpose: 'master_sip_number' });
  // An inactive number is no one's to ring.
  const off = await put({ number: '4114', domain_id: flat13, purpose: 'group_sip_number' });
  await admin.patch(`/sip-numbers/${off.id}`, { is_active: false });
});
afterAll(() => t.close());

describe('a panel’s forwards', () => {
  it('lists the flats below the panel with their numbers, how to dial them and where calls go on', async () => {
    const res = await admin.get(`/devices/${panelId}/forwards/settings`);
    expect(res.statusCode, res.body).toBe(200);
    const f = res.json().data;
    expect(f).toMatchObject({ device_id: panelId, serial_number: 'FWD-PANEL', sip_number: '4000', protocol: 'UDP' });
    expect(f.entries.map((e: { logic_address: number | null; domain: string }) => [e.logic_address, e.domain])).toEqual([
      [12, 'Flat 12'],
      [13, 'Flat 13'],
    ]);
    const [flat12Entry, flat13Entry] = f.entries;
    expect(flat12Entry.numbers).toEqual([
      expect.objectContaining({ number: '4112', purpose: 'master_sip_number', owner: 'Rita Resident', forward_mode: 'manual' }),
      expect.objectContaining({ number: '4012', purpose: 'group_sip_number', owner: null, forward_mode: 'disabled' }),
    ]);
    expect(flat12Entry.numbers[0].forward_rules.redirect_if_no_answer).toEqual({ timeout: 15, numbers: ['4012'] });
    expect(flat12Entry.numbers[0].uri).toMatch(/^sip:4112@[^;]+;transport=udp$/);
    expect(flat13Entry.numbers.map((n: { number: string }) => n.number)).toEqual(['4113']);
    // Nothing of another entrance.
    expect(JSON.stringify(f)).not.toContain('4200');
  });

  it('downloads the same as a spreadsheet, one row per number', async () => {
    const res = await admin.get(`/devices/${panelId}/forwards`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    book.worksheets[0]!.eachRow((r) => rows.push((r.values as unknown[]).slice(1)));
    expect(rows[0]).toEqual(expect.arrayContaining(['logic_address', 'domain', 'number', 'uri', 'forward_mode', 'no_answer_timeout']));
    expect(rows.slice(1).map((r) => r[2])).toEqual(['4112', '4012', '4113']);
    const csv = await admin.get(`/devices/${panelId}/forwards?export_format=csv`);
    expect(csv.body.split('\n')[1]).toContain('Rita Resident');
  });

  it('is for those who may view the panel, and names only residents they may see', async () => {
    const db = t.database.db;
    // Sees devices of the entrance, but no users.
    const installerRole = await makeRole(db, t.project.projectId, ['can_view_devices']);
    const installer = await makeUser(db, { projectId: t.project.projectId, roleId: installerRole, groupIds: [entrance] });
    const api = client(t.app, await login(t.app, installer.login, installer.password));
    const f = (await api.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f.entries[0].numbers.map((n: { owner: string | null }) => n.owner)).toEqual([null, null]);
    // Someone of another group does not see the panel at all.
    const outsider = await makeUser(db, { projectId: t.project.projectId, roleId: installerRole, groupIds: [flat12] });
    const other = client(t.app, await login(t.app, outsider.login, outsider.password));
    expect((await other.get(`/devices/${panelId}/forwards/settings`)).statusCode).toBe(404);
    expect((await other.get(`/devices/${panelId}/forwards`)).statusCode).toBe(404);
    expect((await admin.get('/devices/999999/forwards/settings')).statusCode).toBe(404);
  });
});

describe('the project’s SIP tab applied to what devices get', () => {
  it('auto forward rules: the address devices dial (server URL, external or internal IP) and their transport', async () => {
    const patch = async (body: Record<string, unknown>) => {
      const res = await admin.patch('/settings/sip', body);
      expect(res.statusCode, res.body).toBe(200);
    };
    await patch({ server: { internal_ip: '10.0.0.5', external_ip: '203.0.113.7' } });
    await patch({ auto_forward_rules: { is_enabled: true, device_protocol: 'TCP', use_address: 'external_ip' } });
    let f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f).toMatchObject({ auto_forward_rules: true, protocol: 'TCP' });
    expect(f.address).toMatch(/^203\.0\.113\.7(:\d+)?$/);
    expect(f.entries[0].numbers[0].uri).toMatch(/^sip:4112@203\.0\.113\.7(:\d+)?;transport=tcp$/);
    await patch({ auto_forward_rules: { is_enabled: false, device_protocol: 'UDP', use_address: 'internal_ip' } });
    f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f).toMatchObject({ auto_forward_rules: false, protocol: 'UDP' });
    expect(f.address).toMatch(/^10\.0\.0\.5(:\d+)?$/);
    // Devices told TLS dial the SIP over TLS port the server listens on (5061 is left unsaid).
    t.app.sipWs.tls = 5071;
    try {
      await patch({ auto_forward_rules: { is_enabled: false, device_protocol: 'TLS', use_address: 'internal_ip' } });
      f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
      expect(f).toMatchObject({ protocol: 'TLS', address: '10.0.0.5:5071' });
      expect(f.entries[0].numbers[0].uri).toBe('sip:4112@10.0.0.5:5071;transport=tls');
      t.app.sipWs.tls = 5061;
      f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
      expect(f.address).toBe('10.0.0.5');
    } finally {
      t.app.sipWs.tls = null;
    }
    const general = await admin.patch('/settings/general', { server_url: 'https://door.example.org' });
    expect(general.statusCode, general.body).toBe(200);
    await patch({ auto_forward_rules: { is_enabled: true, device_protocol: 'UDP', use_address: 'server_url' } });
    f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f.address).toMatch(/^door\.example\.org(:\d+)?$/);
  });

  it('resident phonebook: off by default; on, the residents of groups with the phonebook to devices', async () => {
    let f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f.phonebook).toEqual([]);
    const on = await admin.patch('/settings/sip', { resident_phonebook_settings: { is_enabled: true, show_all_groups: false } });
    expect(on.statusCode, on.body).toBe(200);
    // No group sends its phonebook yet.
    f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f.phonebook).toEqual([]);
    expect((await admin.patch(`/domains/${flat12}`, { is_resident_phonebook_enabled: true })).statusCode).toBe(200);
    f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    // Rita by her master number; a resident without one (added to the flat above) by the flat's number.
    expect(f.phonebook).toHaveLength(2);
    expect(f.phonebook).toContainEqual({ domain_id: flat12, domain: 'Flat 12', logic_address: 12, name: 'Rita Resident', number: '4112' });
    expect(f.phonebook).toContainEqual(expect.objectContaining({ domain_id: flat12, number: '4012' }));
    expect(JSON.stringify(f.phonebook)).not.toContain('Tom Tenant');
    // The project switch turns it off for every group.
    await admin.patch('/settings/sip', { resident_phonebook_settings: { is_enabled: false, show_all_groups: false } });
    f = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data;
    expect(f.phonebook).toEqual([]);
  });

  it('show all groups: residents of every group with the phonebook on, not only below the panel', async () => {
    const elsewhere = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'Annex');
    const ann = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [elsewhere], name: 'Ann Annex' });
    expect(
      (
        await admin.put('/sip-numbers', {
          password: PW,
          number: '4300',
          user_id: ann.id,
          domain_id: elsewhere,
          purpose: 'master_sip_number',
        })
      ).statusCode,
    ).toBe(200);
    expect((await admin.patch(`/domains/${elsewhere}`, { is_resident_phonebook_enabled: true })).statusCode).toBe(200);
    await admin.patch('/settings/sip', { resident_phonebook_settings: { is_enabled: true, show_all_groups: false } });
    let names = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data.phonebook.map((p: { name: string }) => p.name);
    expect(names).toContain('Rita Resident');
    expect(names).not.toContain('Ann Annex');
    await admin.patch('/settings/sip', { resident_phonebook_settings: { is_enabled: true, show_all_groups: true } });
    names = (await admin.get(`/devices/${panelId}/forwards/settings`)).json().data.phonebook.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['Ann Annex', 'Rita Resident']));
  });
});

describe('a group’s number and what devices still dial (spec §8)', () => {
  it('is not deactivated while its forward rules reach the devices, nor while the group’s phonebook goes to devices', async () => {
    const g = await makeGroup(t.database.db, t.project.projectId, entrance, 'Flat 14');
    const put = await admin.put('/sip-numbers', {
      password: PW,
      number: '4014',
      domain_id: g,
      purpose: 'group_sip_number',
      forward_mode: 'manual',
      forward_rules: { redirect_if_no_answer: { timeout: 20, numbers: ['4012'] }, redirect_if_error: null },
    });
    expect(put.statusCode, put.body).toBe(200);
    const id = put.json().data.id;
    let res = await admin.patch(`/sip-numbers/${id}`, { is_active: false });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('group forward rules on devices must be disabled');
    expect((await admin.patch(`/domains/${g}`, { is_resident_phonebook_enabled: true })).statusCode).toBe(200);
    // Disabling the forward rules in the same change is enough for them; the phonebook is still on.
    res = await admin.patch(`/sip-numbers/${id}`, { is_active: false, forward_mode: 'disabled' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('the phonebook to devices must be disabled');
    expect((await admin.get(`/sip-numbers/${id}`)).json().data).toMatchObject({ is_active: true, forward_mode: 'manual' });
    expect((await admin.patch(`/domains/${g}`, { is_resident_phonebook_enabled: false })).statusCode).toBe(200);
    res = await admin.patch(`/sip-numbers/${id}`, { is_active: false, forward_mode: 'disabled' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ is_active: false, forward_mode: 'disabled' });
    // An ordinary number is deactivated with its rules on.
    const plain = await admin.put('/sip-numbers', {
      password: PW,
      number: '4015',
      domain_id: g,
      forward_mode: 'manual',
      forward_rules: { redirect_if_no_answer: { timeout: 20, numbers: ['4012'] }, redirect_if_error: null },
    });
    expect((await admin.patch(`/sip-numbers/${plain.json().data.id}`, { is_active: false })).statusCode).toBe(200);
  });
});
