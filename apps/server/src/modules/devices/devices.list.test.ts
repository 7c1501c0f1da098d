import { DeviceSchema, listResponse } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup } from '../../../test/factories/user.factory.js';
import { type adminClient, buildTestApp, client, login, memberClient, type TestApp } from '../../../test/helpers.js';
import { DevicesRepository } from './devices.repository.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let seq = 0;
const made: { id: number; name: string }[] = [];
let top = 0;

beforeAll(async () => {
  t = await buildTestApp();
  admin = client(t.app, await login(t.app, t.adminLogin, t.adminPassword));
  top = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'list-top');
  const below = await makeGroup(t.database.db, t.project.projectId, top, 'list-below');
  const other = await makeGroup(t.database.db, t.project.projectId, t.project.rootGroupId, 'list-other');
  // Names that tie, so pages must break ties by id; groups at every depth a scope speaks of.
  for (const [name, group] of [
    ['b panel', top],
    ['a panel', below],
    ['b panel', other],
    ['c panel', t.project.rootGroupId],
    ['a panel', top],
    ['d panel', other],
    ['b panel', below],
  ] as const) {
    const res = await admin.put('/devices', { name, model: 'AP-200', serial_number: `LIST-${++seq}`, domain_id: group });
    expect(res.statusCode, res.body).toBe(200);
    made.push(res.json().data);
  }
  // Presence as the gateway keeps it: some online with a firmware, some never heard of.
  for (const [i, d] of made.entries()) {
    if (i % 3 === 2) continue;
    await t.database.db.execute(
      sql`INSERT INTO device_status (device_id, online, firmware, last_seen_at) VALUES (${d.id}, ${i % 2 === 0}, ${`1.${i}`}, now())`,
    );
  }
});
afterAll(() => t.close());

const memberWith = (permissions: string[], groupIds: number[]) => memberClient(t, permissions, groupIds);

type Api = Awaited<ReturnType<typeof memberWith>>;

describe('devices list answer text', () => {
  it('writes each shared settings object once, in its place, whatever the names and descriptions hold', async () => {
    const mark = '"device_settings":0,"capabilities":';
    const res0 = await admin.put('/devices', {
      name: 'zz "device_settings":0,',
      description: `${mark}{"x":1}`,
      model: 'AP-100',
      serial_number: `LIST-${++seq}`,
      domain_id: top,
    });
    expect(res0.statusCode, res0.body).toBe(200);
    const changed = await admin.patch(`/devices/${res0.json().data.id}`, { device_settings: { sip: { enabled: true } } });
    expect(changed.statusCode, changed.body).toBe(200);
    try {
      const res = await admin.get('/devices?page=1&size=100&sort=-name');
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(res.body).toBe(JSON.stringify(listResponse(DeviceSchema).strict().parse(body)));
      const mine = body.data.find((d: { id: number }) => d.id === res0.json().data.id);
      expect(mine.name).toBe('zz "device_settings":0,');
      expect(mine.description).toBe(`${mark}{"x":1}`);
      expect(mine.device_settings).toEqual(changed.json().data.device_settings);
      // The others share the default settings' text.
      const text = (d: { device_settings: unknown }) => JSON.stringify(d.device_settings);
      expect(body.data.filter((d: { device_settings: unknown }) => text(d) === text(body.data.at(-1))).length).toBeGreaterThan(1);
      expect(text(mine)).not.toBe(text(body.data.at(-1)));
    } finally {
      await admin.post('/devices/delete', { items: [res0.json().data.id] });
    }
  });
});

/** Every page of the list, `size` rows at a time, and the totals each page answered. */
async function allPages(api: Api, sort: string, size: number) {
  const rows: Record<string, unknown>[] = [];
  const totals = new Set<number>();
  for (let page = 1; page < 50; page++) {
    const res = await api.get(`/devices?page=${page}&size=${size}&sort=${sort}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    // Byte for byte what the contract's schema makes of the answer: its keys, in its order, and nothing else.
    expect(res.body).toBe(JSON.stringify(listResponse(DeviceSchema).strict().parse(body)));
    totals.add(body.meta.total);
    expect(body.meta.estimated).toBeUndefined();
    if (!body.data.length) break;
    rows.push(...body.data);
  }
  return { rows, totals: [...totals] };
}

describe('GET /devices pages', () => {
  // Callers whose lists take each path: every device (with and without the group path that
  // descendants-scoped editing needs), and the visible ids gathered by scope.
  const callers: [string, () => Promise<Api>][] = [
    ['the administrator', async () => admin],
    [
      'a viewer of all devices who edits those of their groups and below',
      () => memberWith(['can_view_all_devices', 'can_edit_devices'], [top]),
    ],
    ['a viewer of all devices who may not edit', () => memberWith(['can_view_all_devices'], [top])],
    [
      'a viewer of their groups and below who edits and deletes there',
      () => memberWith(['can_view_descendant_devices', 'can_edit_devices', 'can_delete_devices'], [top]),
    ],
    ['a viewer of their own groups', () => memberWith(['can_view_devices', 'can_edit_devices'], [top])],
  ];

  for (const [who, caller] of callers) {
    it(`answer, page after page, each device as GET /devices/:id does, in order, with the total: ${who}`, async () => {
      const api = await caller();
      for (const sort of ['name', '-name', 'online,-id', '-created_at']) {
        const { rows, totals } = await allPages(api, sort, 2);
        const visible = (await api.get('/devices?size=100&sort=id')).json().data as { id: number }[];
        expect(totals).toEqual([visible.length]);
        expect(rows.map((r) => r.id).sort()).toEqual(visible.map((r) => r.id).sort());
        for (const r of rows) {
          const one = await api.get(`/devices/${r.id}`);
          expect(r, `device ${r.id} sorted by ${sort}`).toEqual(one.json().data);
        }
        const key = (r: Record<string, unknown>) => {
          const [first, second] = sort.split(',');
          const field = (s: string) => s.replace('-', '');
          const dir = (s: string) => (s.startsWith('-') ? -1 : 1);
          const cmp = (a: unknown, b: unknown) => (a === b ? 0 : (a as string | number) < (b as string | number) ? -1 : 1);
          return (a: Record<string, unknown>) => {
            let c = dir(first!) * cmp(r[field(first!)], a[field(first!)]);
            if (!c && second) c = dir(second) * cmp(r[field(second)], a[field(second)]);
            return c || cmp(r.id, a.id);
          };
        };
        for (let i = 1; i < rows.length; i++) expect(key(rows[i - 1]!)(rows[i]!), `order by ${sort} at ${i}`).toBeLessThan(0);
      }
    });
  }

  it('answers a filtered or searched page byte for byte, within the caller’s scope, each call with its own values', async () => {
    const scoped = await memberWith(['can_view_descendant_devices', 'can_edit_devices'], [top]);
    const begins = (value: string) =>
      encodeURIComponent(JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'begins_with', value }] }));
    const names = async (api: Api, q: string) => {
      const res = await api.get(q);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).toBe(JSON.stringify(listResponse(DeviceSchema).strict().parse(res.json())));
      return (res.json().data as { name: string; domain_id: number }[]).map((d) => `${d.name}@${d.domain_id}`);
    };
    const other = made[2]!;
    const otherGroup = (await admin.get(`/devices/${other.id}`)).json().data.domain_id as number;
    expect(await names(admin, `/devices?sort=name,id&filters=${begins('b')}`)).toHaveLength(3);
    expect(await names(admin, `/devices?sort=name&filters=${begins('d')}`)).toEqual([`d panel@${otherGroup}`]);
    expect((await names(scoped, `/devices?sort=name&filters=${begins('b')}`)).every((n) => !n.endsWith(`@${otherGroup}`))).toBe(true);
    expect(await names(scoped, `/devices?sort=name&filters=${begins('d')}`)).toEqual([]);
    expect(await names(admin, '/devices?sort=name&search=LIST-4')).toEqual([`c panel@${t.project.rootGroupId}`]);
    expect(await names(admin, '/devices?sort=name&search=LIST-6')).toEqual([`d panel@${otherGroup}`]);
    expect(await names(scoped, '/devices?sort=name&search=LIST-6')).toEqual([]);
    expect(await names(admin, '/devices?sort=-online,name&size=2&page=2&search=panel')).toHaveLength(2);
  });

  it('a page past the end is empty and still tells the total; a bad sort is a 400', async () => {
    const res = await admin.get('/devices?page=40&size=20&sort=name');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ data: [], meta: { total: made.length, page: 40, size: 20 } });
    expect((await admin.get('/devices?sort=password_hash')).statusCode).toBe(400);
    expect((await admin.get('/devices?sort=name,name')).statusCode).toBe(400);
  });

  it('tells what a scoped caller may do with each device as the device itself does', async () => {
    const editor = await memberWith(['can_view_all_devices', 'can_edit_devices'], [top]);
    const rows = (await editor.get('/devices?size=100')).json().data as {
      id: number;
      domain_id: number;
      can_edit: boolean;
      can_delete: boolean;
    }[];
    // Editable: exactly those in the editor's group and below; deletable: none.
    const inTop = made.filter((_, i) => [0, 1, 4, 6].includes(i)).map((d) => d.id);
    expect(
      rows
        .filter((r) => r.can_edit)
        .map((r) => r.id)
        .sort(),
    ).toEqual(inTop.sort());
    expect(rows.some((r) => r.can_delete)).toBe(false);
  });

  it('prepares one statement per text: repositories sharing a pool list in any order of sorts', async () => {
    const actor = {
      userId: t.project.adminId,
      projectId: t.project.projectId,
      login: 'admin',
      roleId: null,
      permissions: new Set(['can_view_all_devices']),
      groupIds: [],
    };
    const first = new DevicesRepository(t.database.db);
    const second = new DevicesRepository(t.database.db);
    const query = (sort: string) => ({ page: 1, size: 3, sort, filters: undefined, with: [] });
    // Each repository's first statement is a different text; one after the other, on the same pooled
    // connection (the pool hands back the one just released), then each the other's.
    const byName = (await first.list(actor, query('name'))).rows.map((r) => r.id);
    const byNameDesc = (await second.list(actor, query('-name'))).rows.map((r) => r.id);
    expect((await first.list(actor, query('-name'))).rows.map((r) => r.id)).toEqual(byNameDesc);
    expect((await second.list(actor, query('name'))).rows.map((r) => r.id)).toEqual(byName);
    expect(byName).not.toEqual(byNameDesc);
  });
});

describe('GET /devices settings', () => {
  it('shows each device’s own settings as GET /devices/:id does, after a change too, and defaults for stored ones the schema refuses', async () => {
    const make = async (serial: string) => {
      const res = await admin.put('/devices', { name: `settings ${serial}`, model: 'AP-200', serial_number: serial, domain_id: top });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.id as number;
    };
    const custom = await make('LIST-SET-1');
    const twin = await make('LIST-SET-2');
    const broken = await make('LIST-SET-3');
    for (const id of [custom, twin]) {
      const res = await admin.patch(`/devices/${id}`, {
        device_settings: { sip: { enabled: true, login: `door-${id}`, talk_timeout: 90 } },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await t.database.db.execute(sql`UPDATE devices SET device_settings = '{"sip": {"talk_timeout": "long"}}'::jsonb WHERE id = ${broken}`);
    const listed = async () => {
      const res = await admin.get('/devices?size=100&sort=id');
      expect(res.body).toBe(JSON.stringify(listResponse(DeviceSchema).strict().parse(res.json())));
      return new Map((res.json().data as { id: number; device_settings: { sip: { login: string | null } } }[]).map((d) => [d.id, d]));
    };
    let rows = await listed();
    for (const id of [custom, twin, broken]) expect(rows.get(id)).toEqual((await admin.get(`/devices/${id}`)).json().data);
    expect(rows.get(custom)?.device_settings.sip.login).toBe(`door-${custom}`);
    expect(rows.get(twin)?.device_settings.sip.login).toBe(`door-${twin}`);
    expect(rows.get(broken)?.device_settings.sip.login).toBeNull();

    // Listed twice (the second from what the first remembered), then changed: the change shows.
    rows = await listed();
    expect(rows.get(custom)?.device_settings.sip.login).toBe(`door-${custom}`);
    expect((await admin.patch(`/devices/${custom}`, { device_settings: { sip: { login: 'renamed' } } })).statusCode).toBe(200);
    rows = await listed();
    expect(rows.get(custom)).toEqual((await admin.get(`/devices/${custom}`)).json().data);
    expect(rows.get(custom)?.device_settings.sip.login).toBe('renamed');
  });
});
