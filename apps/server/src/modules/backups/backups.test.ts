import { BACKUP_ENTITIES, BACKUP_LIMITS, type BackupEntity } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { BackupSigner, readArchive, writeArchive } from './backups.archive.js';
import { BACKUP_CATALOG } from './backups.catalog.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let P: number;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  P = t.project.projectId;
});
afterAll(() => t.close());

const q = <T = Record<string, unknown>>(s: ReturnType<typeof sql>) => queryRows<T>(t.database.db, s);
const one = async (s: ReturnType<typeof sql>): Promise<number> => ((await q<{ id: number }>(s))[0] as { id: number }).id;

/** Every table of every entity of the project, as the database holds it (JSON text per row, by key). */
async function snapshot(projectId: number, entities: readonly BackupEntity[] = BACKUP_ENTITIES): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const e of entities) {
    for (const table of BACKUP_CATALOG[e]) {
      const where =
        'projectColumn' in table.scope
          ? sql`t.project_id = ${projectId}`
          : sql`t.${sql.raw(table.scope.column)} IN (SELECT id FROM ${sql.raw(table.scope.parent)} WHERE project_id = ${projectId})`;
      const rows = await q<{ j: string }>(sql`SELECT to_jsonb(t)::text AS j FROM ${sql.raw(table.name)} t WHERE ${where}`);
      out[table.name] = rows.map((r) => r.j).sort();
    }
  }
  return out;
}

/** A project with a row in every table a backup holds, links included. */
async function seed(projectId: number, root: number) {
  // (Domain type numbers are unique in a project: the building's id serves as one.)
  const db = t.database.db;
  const building = await makeGroup(db, projectId, root, 'Building A');
  const flat = await makeGroup(db, projectId, building, 'Flat 1');
  const type = await one(
    sql`INSERT INTO domain_types (project_id, type, name, domain_id) VALUES (${projectId}, ${1000 + building}, 'Wing', ${building}) RETURNING id`,
  );
  await q(
    sql`UPDATE groups SET domain_type_id = ${type}, description = 'first', internal_subnetworks = '{10.0.0.0/24}' WHERE id = ${flat}`,
  );
  const role = await makeRole(db, projectId, ['can_view_users'], 'Residents');
  const role2 = await makeRole(db, projectId, ['can_view_devices'], 'Guards');
  await q(sql`INSERT INTO role_available_roles (role_id, available_role_id) VALUES (${role2}, ${role})`);
  const user = await makeUser(db, { projectId, roleId: role, groupIds: [flat], name: 'Resident One', email: 'one@example.com' });
  await q(
    sql`UPDATE users SET profile = '{"phone":"+100","nested":{"a":[1,2]}}'::jsonb, license_info = '{"sip":1}'::jsonb WHERE id = ${user.id}`,
  );
  await q(sql`INSERT INTO user_two_factor (user_id, secret, recovery_codes) VALUES (${user.id}, 'SECRET', '{a,b}')`);
  const marker = await one(
    sql`INSERT INTO markers (project_id, group_id, name, color) VALUES (${projectId}, ${building}, 'VIP', '#ff0000') RETURNING id`,
  );
  await q(sql`INSERT INTO user_markers (user_id, marker_id) VALUES (${user.id}, ${marker})`);
  const device = await one(
    sql`INSERT INTO devices (project_id, group_id, name, type, model, serial_number, device_password, location_latitude, management, device_settings)
        VALUES (${projectId}, ${building}, 'Entrance', 'panel', 'P1', ${`SN-${projectId}-${building}`}, 'secret', 55.7512345678901, '{"a":1}', '{"relay":10}') RETURNING id`,
  );
  const identifier = await one(
    sql`INSERT INTO identifiers (project_id, name, type, value, owner_id, period_restrict_from)
        VALUES (${projectId}, 'Card', 'card', ${`CARD-${projectId}-${building}`}, ${user.id}, '2026-01-02T03:04:05.123456Z') RETURNING id`,
  );
  const timeRule = await one(
    sql`INSERT INTO time_rules (project_id, group_id, name, time_zone, repeat_mode, entries, exceptions)
        VALUES (${projectId}, ${building}, 'Weekdays', 'UTC', 'weekly', '[{"from":32400,"to":64800}]', '[]') RETURNING id`,
  );
  const rule = await one(sql`INSERT INTO access_rules (project_id, name) VALUES (${projectId}, 'Front door') RETURNING id`);
  await q(sql`INSERT INTO access_rule_devices (rule_id, device_id, lock_number) VALUES (${rule}, ${device}, 1)`);
  await q(sql`INSERT INTO access_rule_groups (rule_id, group_id) VALUES (${rule}, ${flat})`);
  await q(sql`INSERT INTO access_rule_identifiers (rule_id, identifier_id) VALUES (${rule}, ${identifier})`);
  await q(sql`INSERT INTO access_rule_time_rules (rule_id, time_rule_id) VALUES (${rule}, ${timeRule})`);
  await q(sql`INSERT INTO access_rule_users (rule_id, user_id) VALUES (${rule}, ${user.id})`);
  const elevator = await one(
    sql`INSERT INTO elevators (project_id, group_id, name) VALUES (${projectId}, ${building}, 'Lift') RETURNING id`,
  );
  await q(
    sql`INSERT INTO elevator_controllers (elevator_id, device_id, floor_map, settings) VALUES (${elevator}, ${device}, '[1,2]', '{}')`,
  );
  const eRule = await one(sql`INSERT INTO elevator_rules (project_id, name) VALUES (${projectId}, 'Lift rule') RETURNING id`);
  await q(sql`INSERT INTO elevator_rule_elevators (rule_id, elevator_id, floors) VALUES (${eRule}, ${elevator}, '{1,2}')`);
  await q(sql`INSERT INTO elevator_rule_users (rule_id, user_id) VALUES (${eRule}, ${user.id})`);
  const fwd = await one(
    sql`INSERT INTO forward_groups (project_id, group_id, name, params, forward_rules) VALUES (${projectId}, ${building}, 'Concierge', '{}', '[]') RETURNING id`,
  );
  await q(
    sql`INSERT INTO sip_numbers (project_id, number, password, user_id, group_id, forward_mode, forward_rules, forward_group_id)
        VALUES (${projectId}, ${`${projectId}${building}01`}, 'sip-secret', ${user.id}, ${flat}, 'none', '[]', ${fwd})`,
  );
  const trunk = await one(
    sql`INSERT INTO sip_trunks (project_id, name, outgoing_number, termination_uri) VALUES (${projectId}, 'Trunk', '100', 'sip:trunk.example.com') RETURNING id`,
  );
  await q(sql`INSERT INTO sip_trunk_groups (trunk_id, group_id) VALUES (${trunk}, ${building})`);
  await q(
    sql`INSERT INTO mail_templates (project_id, group_id, kind, locale, subject, body) VALUES (${projectId}, ${building}, 'invitation', 'en', 'Hi', 'Body {link}')`,
  );
  const amenity = await one(
    sql`INSERT INTO amenities (project_id, name, persons_min, persons_max, slot_duration, slot_items) VALUES (${projectId}, 'Gym', 1, 5, 60, '[]') RETURNING id`,
  );
  await q(sql`INSERT INTO amenity_access_rules (amenity_id, rule_id) VALUES (${amenity}, ${rule})`);
  await q(sql`INSERT INTO amenity_domains (amenity_id, group_id) VALUES (${amenity}, ${building})`);
  const alert = await one(
    sql`INSERT INTO emergency_alerts (project_id, name, device_type, playback_duration, open_locks) VALUES (${projectId}, 'Fire', 'panel', 30, true) RETURNING id`,
  );
  await q(sql`INSERT INTO emergency_alert_devices (alert_id, device_id) VALUES (${alert}, ${device})`);
  await q(sql`INSERT INTO emergency_alert_groups (alert_id, group_id) VALUES (${alert}, ${building})`);
  return {
    building,
    flat,
    type,
    role,
    role2,
    user,
    marker,
    device,
    identifier,
    timeRule,
    rule,
    elevator,
    eRule,
    fwd,
    trunk,
    amenity,
    alert,
  };
}

/** A multipart body with one file in the field `file`. */
function multipart(data: Buffer, name = 'backup.zip', fields: Record<string, string> = {}) {
  const boundary = `----atrium${Date.now()}`;
  const payload = Buffer.concat([
    ...Object.entries(fields).map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/zip\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function applyFile(token: string | undefined, data: Buffer, fields: Record<string, string> = {}) {
  const body = multipart(data, 'backup.zip', fields);
  return t.app.inject({
    method: 'POST',
    url: '/api/v0/backups/apply',
    payload: body.payload,
    headers: { ...body.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
}

async function download(id: number): Promise<Buffer> {
  const res = await admin.get(`/backups/${id}/download`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="atrium-backup-\d+-[A-Za-z0-9._-]+\.zip"$/);
  return res.rawPayload;
}

let seeded: Awaited<ReturnType<typeof seed>>;
let adminToken: string;

// The zip bomb is inflated for real (256 MB): seconds on a busy machine.
describe('backups', { timeout: 120_000 }, () => {
  it('are made of the chosen entities, listed, fetched and refused with bad input', async () => {
    seeded = await seed(P, t.project.rootGroupId);
    adminToken = await login(t.app, t.adminLogin, t.adminPassword);
    const made = await admin.post('/backups/make', { name: 'Before works', entities: ['groups', 'users'] });
    expect(made.statusCode, made.body).toBe(200);
    const b = made.json().data;
    expect(b).toMatchObject({ name: 'Before works', entities: ['groups', 'users'], applied_at: null });
    const count = async (table: string) =>
      (await q<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${sql.raw(table)} WHERE project_id = ${P}`))[0]!.n;
    expect(b.counts.groups).toBe(await count('groups'));
    expect(b.counts.users).toBe(await count('users'));
    expect(b.counts.users).toBeGreaterThanOrEqual(2);
    expect(b.size).toBeGreaterThan(100);
    const zip = await download(b.id);
    expect(zip.length).toBe(b.size);
    const archive = await readArchive(zip);
    expect(Object.keys(archive.manifest.tables).sort()).toEqual(['domain_types', 'groups', 'user_groups', 'user_two_factor', 'users']);
    const uid = (await q<{ uid: string }>(sql`SELECT uid FROM projects WHERE id = ${P}`))[0]!.uid;
    expect(archive.manifest).toMatchObject({ format: 'atrium-backup', version: 1, project_uid: uid, entities: ['groups', 'users'] });
    // A restore must bring accounts back exactly, so the password hashes are in the file (decisions.md).
    expect(JSON.parse(archive.tables.get('users')!)[0].password_hash).toMatch(/^\$argon2id\$/);

    expect((await admin.get(`/backups/${b.id}`)).json().data).toEqual(b);
    const listed = await admin.get('/backups?sort=-created_at&search=before');
    expect(listed.json().data.map((x: { id: number }) => x.id)).toEqual([b.id]);
    expect(listed.json().meta.total).toBe(1);
    expect((await admin.get('/backups?sort=password')).statusCode).toBe(400);

    for (const bad of [
      { name: '', entities: ['groups'] },
      { name: 'x', entities: [] },
      { name: 'x', entities: ['passwords'] },
      { name: 'x', entities: ['groups', 'groups'] },
      { name: 'x', entities: ['groups'], extra: 1 },
    ]) {
      const res = await admin.post('/backups/make', bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
    }
    const audit = await q<{ action: string }>(sql`SELECT action FROM audit_events WHERE entity = 'backup' AND entity_id = ${String(b.id)}`);
    expect(audit.map((a) => a.action)).toEqual(['create']);
  });

  it('restore every chosen entity exactly after edits, deletions and additions, and remove what came after', async () => {
    // Files the rows name travel with them: an avatar removed since comes back at its key.
    const store = t.app.files;
    const avatar = Buffer.from('avatar bytes');
    const avatarKey = await store.put('avatars', 'png', avatar);
    await q(sql`UPDATE users SET avatar_path = ${avatarKey} WHERE id = ${seeded.user.id}`);
    const photoKey = await store.put('identifiers', 'jpg', Buffer.from('photo bytes'));
    await q(sql`UPDATE identifiers SET photo_path = ${photoKey} WHERE id = ${seeded.identifier}`);
    const before = await snapshot(P);
    const groupsBefore = before.groups!.length;
    const made = (await admin.post('/backups/make', { name: 'Everything', entities: [...BACKUP_ENTITIES].reverse() })).json().data;
    expect(made.entities).toEqual([...BACKUP_ENTITIES]);
    const s = seeded;

    // Change everything: edit, delete and add rows in every entity.
    await q(sql`UPDATE groups SET name = 'Renamed', description = NULL WHERE id = ${s.flat}`);
    await q(sql`UPDATE domain_types SET name = 'Other', domain_id = NULL WHERE id = ${s.type}`);
    await q(sql`UPDATE roles SET permissions = '{}' WHERE id = ${s.role}`);
    await q(sql`DELETE FROM role_available_roles WHERE role_id = ${s.role2}`);
    await q(sql`UPDATE users SET name = 'Changed', password_hash = 'x', profile = '{}'::jsonb WHERE id = ${s.user.id}`);
    await q(sql`DELETE FROM user_two_factor WHERE user_id = ${s.user.id}`);
    await q(sql`UPDATE devices SET name = 'Moved', location_latitude = 1.5 WHERE id = ${s.device}`);
    await q(sql`UPDATE identifiers SET period_restrict_from = now() WHERE id = ${s.identifier}`);
    await q(sql`UPDATE time_rules SET entries = '[]' WHERE id = ${s.timeRule}`);
    await q(sql`DELETE FROM access_rule_users WHERE rule_id = ${s.rule}`);
    await q(sql`UPDATE elevator_controllers SET enabled = NOT enabled WHERE elevator_id = ${s.elevator}`);
    await q(sql`UPDATE sip_numbers SET password = 'changed' WHERE forward_group_id = ${s.fwd}`);
    await q(sql`DELETE FROM sip_trunks WHERE id = ${s.trunk}`);
    await q(sql`DELETE FROM mail_templates WHERE project_id = ${P}`);
    await q(sql`DELETE FROM amenities WHERE id = ${s.amenity}`);
    await q(sql`DELETE FROM emergency_alerts WHERE id = ${s.alert}`);
    await q(sql`DELETE FROM elevator_rules WHERE id = ${s.eRule}`);
    await q(sql`DELETE FROM markers WHERE id = ${s.marker}`);
    // A deleted group comes back with its id; the things in it were moved first.
    await q(sql`UPDATE devices SET group_id = ${s.flat} WHERE id = ${s.device}`);
    await q(sql`UPDATE elevators SET group_id = ${s.flat} WHERE id = ${s.elevator}`);
    await q(sql`UPDATE time_rules SET group_id = ${s.flat} WHERE id = ${s.timeRule}`);
    await q(sql`UPDATE forward_groups SET group_id = ${s.flat} WHERE id = ${s.fwd}`);
    await q(sql`DELETE FROM groups WHERE id = ${s.building}`);
    await q(
      sql`UPDATE groups SET parent_id = ${t.project.rootGroupId}, path = ARRAY[${t.project.rootGroupId}, ${s.flat}]::int[] WHERE id = ${s.flat}`,
    );
    // Additions in every entity, linked to each other; a new user takes the login of a restored one.
    await store.remove(avatarKey);
    await q(sql`UPDATE users SET avatar_path = NULL WHERE id = ${s.user.id}`);
    await q(
      sql`UPDATE identifiers SET photo_path = ${await store.put('identifiers', 'jpg', Buffer.from('new photo'))} WHERE id = ${s.identifier}`,
    );
    const added = await seed(P, t.project.rootGroupId);
    await q(sql`UPDATE users SET login = 'taken-later' WHERE id = ${s.user.id}`);
    await q(sql`UPDATE users SET login = ${s.user.login} WHERE id = ${added.user.id}`);
    expect(await snapshot(P)).not.toEqual(before);

    const applied = await admin.post(`/backups/${made.id}/apply`);
    expect(applied.statusCode, applied.body).toBe(200);
    const result = applied.json().data;
    expect(result.restored).toMatchObject({ groups: groupsBefore, users: before.users!.length, devices: 1, sip_trunks: 1 });
    expect(result.removed).toMatchObject({ groups: 2, users: 1, devices: 1, sip_trunks: 1 });
    expect(await snapshot(P)).toEqual(before);
    expect(await store.get(avatarKey)).toEqual(avatar);
    expect((await store.get(photoKey)).toString()).toBe('photo bytes');
    // The devices are told to hold what the restored rules, identifiers and schedules say.
    const syncs = await q<{ n: number }>(sql`SELECT count(*)::int AS n FROM device_tasks WHERE device_id = ${s.device} AND type = 'sync'`);
    expect(syncs[0]!.n).toBeGreaterThan(0);

    // The admin still signs in; restored rows keep working with the services (a group by the API).
    expect((await admin.get(`/domains/${s.building}`)).json().data.name).toBe('Building A');
    // New rows get new ids past the restored ones.
    const next = (await admin.put('/domains', { name: 'After restore', parent_id: t.project.rootGroupId })).json().data.id;
    expect(next).toBeGreaterThan(added.flat);
    expect((await admin.get(`/backups/${made.id}`)).json().data.applied_at).not.toBeNull();
    const audit = await q<{ action: string; after: { removed: Record<string, number> } }>(
      sql`SELECT action, after FROM audit_events WHERE entity = 'backup' AND entity_id = ${String(made.id)} ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual(['create', 'apply']);
    expect(audit[1]!.after.removed.groups).toBe(2);
    await admin.delete(`/domains/${next}`);
  });

  it('apply a downloaded file uploaded again, all or nothing', async () => {
    const before = await snapshot(P);
    const made = (await admin.post('/backups/make', { name: 'For the file', entities: ['groups', 'roles', 'users'] })).json().data;
    const file = await download(made.id);
    await q(sql`UPDATE users SET name = 'Edited' WHERE project_id = ${P}`);
    const extra = await makeGroup(t.database.db, P, t.project.rootGroupId, 'Added later');
    const res = await applyFile(adminToken, file);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.removed.groups).toBe(1);
    expect(await snapshot(P)).toEqual(before);
    expect((await q(sql`SELECT id FROM groups WHERE id = ${extra}`)).length).toBe(0);
    const audit = await q<{ action: string }>(sql`SELECT action FROM audit_events WHERE entity = 'backup' AND action = 'apply_file'`);
    expect(audit.length).toBe(1);
    // Without a file, or with another field: refused.
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/v0/backups/apply',
      payload: {},
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(none.statusCode).toBe(400);
  });

  it('refuse a corrupted, tampered, foreign or crafted file and a zip bomb, changing nothing', async () => {
    const made = (await admin.post('/backups/make', { name: 'Good', entities: ['groups', 'users'] })).json().data;
    const good = await download(made.id);
    await q(sql`UPDATE groups SET description = 'changed since' WHERE id = ${seeded.flat}`);
    const before = await snapshot(P);
    const refused = async (data: Buffer, reason: RegExp) => {
      const res = await applyFile(adminToken, data);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe('invalid backup image');
      expect(res.json().details[0].message).toMatch(reason);
      expect(await snapshot(P)).toEqual(before);
    };
    // Not a zip; a truncated zip; one byte of a data file changed (the zip's own CRC is not all it takes).
    await refused(Buffer.from('hello, this is not a backup'), /not a zip/);
    await refused(good.subarray(0, good.length - 40), /not a zip|damaged/);
    const archive = await readArchive(good);
    // Crafted archives signed with this server's key: what follows is refused by the checks behind the signature.
    const rezip = async (
      tables: Map<string, string>,
      manifest = archive.manifest,
      sign = true,
      signer: BackupSigner | null = t.app.services.backups.signer,
    ) => {
      const zip = new yazl.ZipFile();
      const m = structuredClone(manifest);
      for (const [name, json] of tables) {
        if (sign && m.tables[name]) m.tables[name].sha256 = (await import('node:crypto')).createHash('sha256').update(json).digest('hex');
        zip.addBuffer(Buffer.from(json), `data/${name}.json`);
      }
      for (const [key, f] of Object.entries(m.files ?? {})) zip.addBuffer(archive.files.get(key)!, f.file);
      const manifestBytes = Buffer.from(JSON.stringify(m));
      zip.addBuffer(manifestBytes, 'manifest.json');
      if (signer) zip.addBuffer(Buffer.from(signer.sign(manifestBytes)), 'manifest.sig');
      zip.end();
      const chunks: Buffer[] = [];
      for await (const c of zip.outputStream) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    };
    const tampered = new Map(archive.tables);
    tampered.set('groups', archive.tables.get('groups')!.replace('Building A', 'Building B'));
    await refused(await rezip(tampered, archive.manifest, false), /checksum/);
    // A user made an Administrator by editing the file and recomputing its checksums: only a signature it cannot forge stops it.
    const adminRoleId = (await q<{ role_id: number }>(sql`SELECT role_id FROM users WHERE id = ${t.project.adminId}`))[0]!.role_id;
    const users0 = JSON.parse(archive.tables.get('users')!) as { id: number; role_id: number | null }[];
    const promoted = new Map(archive.tables);
    promoted.set('users', JSON.stringify(users0.map((u) => (u.id === seeded.user.id ? { ...u, role_id: adminRoleId } : u))));
    await refused(await rezip(promoted, archive.manifest, true, null), /not signed by this server/);
    await refused(
      await rezip(promoted, archive.manifest, true, new BackupSigner('another server’s secret, long enough')),
      /does not match/,
    );
    const stolenSig = await rezip(promoted, archive.manifest, true, null);
    // The genuine signature of the file as made does not cover the edited manifest either.
    const withOldSignature = await (async () => {
      const zip = new yazl.ZipFile();
      const back = await readArchive(stolenSig);
      for (const [name, json] of back.tables) zip.addBuffer(Buffer.from(json), `data/${name}.json`);
      for (const [key, f] of Object.entries(back.manifest.files ?? {})) zip.addBuffer(back.files.get(key)!, f.file);
      zip.addBuffer(back.manifestBytes, 'manifest.json');
      zip.addBuffer(Buffer.from(archive.signature!), 'manifest.sig');
      zip.end();
      const chunks: Buffer[] = [];
      for await (const c of zip.outputStream) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    })();
    await refused(withOldSignature, /does not match/);
    // Accepted on purpose: applied, and said so in the answer and the audit log.
    const forced = await applyFile(adminToken, await rezip(tampered, archive.manifest, true, null), { accept_unsigned: 'true' });
    expect(forced.statusCode, forced.body).toBe(200);
    expect(forced.json().data.signature).toBe('unverified');
    const forcedAudit = await q<{ after: { signature: string } }>(
      sql`SELECT after FROM audit_events WHERE entity = 'backup' AND action = 'apply_file' ORDER BY id DESC LIMIT 1`,
    );
    expect(forcedAudit[0]!.after.signature).toBe('unverified');
    expect((await applyFile(adminToken, good, { accept_unsigned: 'maybe' })).statusCode).toBe(400);
    const back = await applyFile(adminToken, good);
    expect(back.json().data.signature).toBe('verified');
    await q(sql`UPDATE groups SET description = 'changed since' WHERE id = ${seeded.flat}`);
    expect(await snapshot(P)).toEqual(before);
    // Not an Atrium backup at all: a zip without our manifest.
    await refused(await rezip(new Map([['groups', '[]']]), { ...archive.manifest, format: 'other' } as never), /manifest/);
    // Rows moved into another project, or a group hanging under another project's group: refused before any write.
    const p2 = await t.app.services.projects.createProject({
      name: 'Other',
      adminLogin: 'other-admin',
      adminName: 'Other',
      adminPassword: 'other-password-1',
    });
    const otherProjectGroups = new Map(archive.tables);
    const groups = JSON.parse(archive.tables.get('groups')!) as { id: number; project_id: number; path: number[] }[];
    otherProjectGroups.set('groups', JSON.stringify(groups.map((g) => ({ ...g, project_id: p2.projectId }))));
    await refused(await rezip(otherProjectGroups), /another project/);
    const stolen = new Map(archive.tables);
    stolen.set('groups', JSON.stringify([...groups, { ...groups[0], id: p2.rootGroupId, path: [p2.rootGroupId], parent_id: null }]));
    await refused(
      await rezip(stolen, {
        ...archive.manifest,
        tables: { ...archive.manifest.tables, groups: { ...archive.manifest.tables.groups!, rows: groups.length + 1 } },
      }),
      /another project/,
    );
    const linked = new Map(archive.tables);
    const ug = JSON.parse(archive.tables.get('user_groups')!) as { user_id: number; group_id: number }[];
    linked.set('user_groups', JSON.stringify([...ug, { user_id: ug[0]!.user_id, group_id: p2.rootGroupId }]));
    await refused(
      await rezip(linked, {
        ...archive.manifest,
        tables: { ...archive.manifest.tables, user_groups: { ...archive.manifest.tables.user_groups!, rows: ug.length + 1 } },
      }),
      /another project/,
    );
    const broken = new Map(archive.tables);
    broken.set('groups', JSON.stringify(groups.map((g, i) => (i === 1 ? { ...g, path: [p2.rootGroupId, g.id] } : g))));
    await refused(await rezip(broken), /ancestry/);
    const badValue = new Map(archive.tables);
    badValue.set('users', archive.tables.get('users')!.replace(/"locale": ?"en"/, '"locale": null'));
    await refused(await rezip(badValue), /does not fit/);

    // A backup of another project, signed and well formed: not this project's.
    const otherAdmin = client(t.app, await login(t.app, 'other-admin', 'other-password-1'));
    const foreign = (await otherAdmin.post('/backups/make', { name: 'Theirs', entities: ['groups'] })).json().data;
    const foreignFile = (await otherAdmin.get(`/backups/${foreign.id}/download`)).rawPayload;
    await refused(foreignFile, /another project/);
    // ... and its stored copy is not seen, downloaded, applied or deleted from here.
    for (const res of [
      await admin.get(`/backups/${foreign.id}`),
      await admin.get(`/backups/${foreign.id}/download`),
      await admin.post(`/backups/${foreign.id}/apply`),
      await admin.delete(`/backups/${foreign.id}`),
    ])
      expect(res.statusCode).toBe(404);
    expect((await admin.get('/backups?size=100')).json().data.map((b: { id: number }) => b.id)).not.toContain(foreign.id);
    expect((await admin.post('/backups/delete', { items: [foreign.id] })).json().data.not_deleted[0].code).toBe('not_found');

    // A row pointing at a file the backup does not hold (another project's avatar) gets no file at all.
    const foreignKey = await t.app.files.put('avatars', 'png', Buffer.from('their avatar'));
    const users = JSON.parse(archive.tables.get('users')!) as { id: number; avatar_path: string | null }[];
    const pointing = new Map(archive.tables);
    pointing.set('users', JSON.stringify(users.map((u) => (u.id === seeded.user.id ? { ...u, avatar_path: foreignKey } : u))));
    const pointed = await applyFile(adminToken, await rezip(pointing));
    expect(pointed.statusCode, pointed.body).toBe(200);
    const after = await q<{ avatar_path: string | null }>(sql`SELECT avatar_path FROM users WHERE id = ${seeded.user.id}`);
    expect(after[0]!.avatar_path).toBeNull();
    await applyFile(adminToken, good);
    expect((await q<{ avatar_path: string | null }>(sql`SELECT avatar_path FROM users WHERE id = ${seeded.user.id}`))[0]!.avatar_path).toBe(
      users.find((u) => u.id === seeded.user.id)!.avatar_path,
    );
    await q(sql`UPDATE groups SET description = 'changed since' WHERE id = ${seeded.flat}`);

    // A zip bomb: a small file that inflates past the limit is stopped while read.
    const bomb = new yazl.ZipFile();
    const zeros = Buffer.alloc(16 * 1024 * 1024);
    for (let i = 0; i < Math.ceil(BACKUP_LIMITS.maxExpandedBytes / zeros.length) + 1; i++) {
      bomb.addBuffer(zeros, `data/t${String.fromCharCode(97 + i)}.json`, { compress: true, compressionLevel: 1 });
    }
    bomb.end();
    const parts: Buffer[] = [];
    for await (const c of bomb.outputStream) parts.push(c as Buffer);
    const bombFile = Buffer.concat(parts);
    expect(bombFile.length).toBeLessThan(BACKUP_LIMITS.maxFileBytes / 8);
    await refused(bombFile, /expands beyond/);
    // A file larger than an upload may be is not read to its end.
    const huge = await applyFile(adminToken, Buffer.alloc(BACKUP_LIMITS.maxFileBytes + 1024));
    expect(huge.statusCode).toBe(413);
    expect(await snapshot(P)).toEqual(before);
    // Too many entries.
    const letters = (n: number): string => (n < 26 ? '' : letters(Math.floor(n / 26) - 1)) + String.fromCharCode(97 + (n % 26));
    const many = new Map<string, string>();
    for (let i = 0; i < BACKUP_LIMITS.maxEntries + 1; i++) many.set(`t_${letters(i)}`, '[]');
    await refused(await rezip(many), /too many entries/);
  });

  it('refuse a backup whose references no longer hold, and rows outside it that still point at what it removes', async () => {
    // Users only: a group of theirs deleted since, with nothing else chosen to bring it back.
    const extra = await makeGroup(t.database.db, P, t.project.rootGroupId, 'Temporary');
    const resident = await makeUser(t.database.db, { projectId: P, groupIds: [extra] });
    const usersOnly = (await admin.post('/backups/make', { name: 'Users', entities: ['users'] })).json().data;
    await q(sql`DELETE FROM groups WHERE id = ${extra}`);
    await q(sql`UPDATE users SET name = 'Changed' WHERE id = ${resident.id}`);
    const before = await snapshot(P);
    const res = await admin.post(`/backups/${usersOnly.id}/apply`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ message: 'the backup cannot be applied', code: 'backup_cannot_be_applied' });
    expect(res.json().details[0]).toMatchObject({ table: 'user_groups', references: 'groups' });
    expect(await snapshot(P)).toEqual(before);

    // Groups only: a group added since holds a device (devices are not in the backup): the device keeps it.
    const groupsOnly = (await admin.post('/backups/make', { name: 'Groups', entities: ['groups'] })).json().data;
    const later = await makeGroup(t.database.db, P, t.project.rootGroupId, 'Later');
    await q(
      sql`INSERT INTO devices (project_id, group_id, name, type, model, serial_number, management, device_settings) VALUES (${P}, ${later}, 'New', 'panel', 'P1', 'SN-LATER', '{}', '{}')`,
    );
    const before2 = await snapshot(P);
    const res2 = await admin.post(`/backups/${groupsOnly.id}/apply`);
    expect(res2.statusCode, res2.body).toBe(409);
    expect(res2.json().details[0]).toMatchObject({ table: 'devices', references: 'groups' });
    expect(await snapshot(P)).toEqual(before2);
    // Moved out, the group goes and the rest is restored.
    await q(sql`UPDATE devices SET group_id = ${t.project.rootGroupId} WHERE serial_number = 'SN-LATER'`);
    expect((await admin.post(`/backups/${groupsOnly.id}/apply`)).json().data.removed.groups).toBe(1);
  });

  it('need each permission, and delete one or many', async () => {
    const made = (await admin.post('/backups/make', { name: 'Perm', entities: ['markers'] })).json().data;
    const file = await download(made.id);
    const as = async (permissions: string[]) => {
      const u = await makeUser(t.database.db, {
        projectId: P,
        roleId: await makeRole(t.database.db, P, permissions),
        groupIds: [t.project.rootGroupId],
      });
      const token = await login(t.app, u.login, u.password);
      return { api: client(t.app, token), token };
    };
    const nobody = await as([]);
    expect((await nobody.api.get('/backups')).statusCode).toBe(403);
    expect((await nobody.api.get(`/backups/${made.id}`)).statusCode).toBe(403);
    expect((await nobody.api.post('/backups/make', { name: 'x', entities: ['groups'] })).statusCode).toBe(403);
    expect((await nobody.api.get(`/backups/${made.id}/download`)).statusCode).toBe(403);
    expect((await nobody.api.post(`/backups/${made.id}/apply`)).statusCode).toBe(403);
    expect((await applyFile(nobody.token, file)).statusCode).toBe(403);
    expect((await nobody.api.delete(`/backups/${made.id}`)).statusCode).toBe(403);
    expect((await nobody.api.post('/backups/delete', { items: [made.id] })).statusCode).toBe(403);
    expect((await client(t.app).get('/backups')).statusCode).toBe(401);

    // Each permission opens its own call only.
    const viewer = await as(['can_view_backups']);
    expect((await viewer.api.get('/backups')).statusCode).toBe(200);
    expect((await viewer.api.get(`/backups/${made.id}/download`)).statusCode).toBe(403);
    expect((await viewer.api.post(`/backups/${made.id}/apply`)).statusCode).toBe(403);
    const maker = await as(['can_create_backups']);
    expect((await maker.api.post('/backups/make', { name: 'By maker', entities: ['markers'] })).statusCode).toBe(200);
    expect((await maker.api.get('/backups')).statusCode).toBe(403);
    const downloader = await as(['can_download_backups']);
    expect((await downloader.api.get(`/backups/${made.id}/download`)).statusCode).toBe(200);
    const applier = await as(['can_apply_backups']);
    expect((await applier.api.post(`/backups/${made.id}/apply`)).statusCode).toBe(200);
    expect((await applyFile(applier.token, file)).statusCode).toBe(403);
    const fileApplier = await as(['can_apply_backups_from_file']);
    expect((await applyFile(fileApplier.token, file)).statusCode).toBe(200);
    expect((await fileApplier.api.post(`/backups/${made.id}/apply`)).statusCode).toBe(403);
    const deleter = await as(['can_delete_backups']);
    const second = (await admin.post('/backups/make', { name: 'Second', entities: ['markers'] })).json().data;
    const third = (await admin.post('/backups/make', { name: 'Third', entities: ['markers'] })).json().data;
    expect((await deleter.api.delete(`/backups/${made.id}`)).statusCode).toBe(200);
    expect((await admin.get(`/backups/${made.id}`)).statusCode).toBe(404);
    expect((await admin.get(`/backups/${made.id}/download`)).statusCode).toBe(404);
    const bulk = (await deleter.api.post('/backups/delete', { items: [second.id, third.id, made.id] })).json().data;
    expect(bulk.deleted.sort()).toEqual([second.id, third.id].sort());
    expect(bulk.not_deleted).toEqual([{ id: made.id, message: 'item not found', code: 'not_found' }]);
    expect((await admin.post('/backups/delete', { items: [] })).statusCode).toBe(400);
    const audit = await q<{ n: number }>(sql`SELECT count(*)::int AS n FROM audit_events WHERE entity = 'backup' AND action = 'delete'`);
    expect(audit[0]!.n).toBe(3);
  });

  it('write and read the same archive', async () => {
    const signer = new BackupSigner('one server secret, long enough to be one');
    const zip = await writeArchive(
      { format: 'atrium-backup', version: 1, project_uid: 'u', name: 'n', entities: ['devices'], created_at: new Date().toISOString() },
      [{ name: 'devices', columns: ['id'], json: '[{"id":1}]', rows: 1 }],
      [],
      signer,
    );
    const back = await readArchive(zip);
    expect(back.tables.get('devices')).toBe('[{"id":1}]');
    expect(signer.verify(back.manifestBytes, back.signature)).toBe(true);
    expect(new BackupSigner('another server secret, long enough too').verify(back.manifestBytes, back.signature)).toBe(false);
  });
});
