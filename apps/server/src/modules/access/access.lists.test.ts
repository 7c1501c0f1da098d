import { AccessEventSchema, IdentifierSchema, listResponse } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { type adminClient, buildTestApp, client, login, memberClient, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let top = 0;
let other = 0;
/** A member of `top` who owns two identifiers and made one more (the identifiers' own scope). */
let holder: { id: number; login: string; password: string };
const doors: Record<'top' | 'below' | 'other', number> = { top: 0, below: 0, other: 0 };

const rules = (match: 'match_all' | 'match_any', ...r: { field: string; operator: string; value: unknown }[]) =>
  encodeURIComponent(JSON.stringify({ match, rules: r }));

beforeAll(async () => {
  t = await buildTestApp();
  admin = client(t.app, await login(t.app, t.adminLogin, t.adminPassword));
  const db = t.database.db;
  top = await makeGroup(db, t.project.projectId, t.project.rootGroupId, 'lists-top');
  const below = await makeGroup(db, t.project.projectId, top, 'lists-below');
  other = await makeGroup(db, t.project.projectId, t.project.rootGroupId, 'lists-other');
  const holderRole = await makeRole(db, t.project.projectId, ['can_view_identifiers', 'can_edit_identifiers', 'can_create_identifiers']);
  holder = await makeUser(db, { projectId: t.project.projectId, roleId: holderRole, groupIds: [top], name: 'Holder Person' });
  const mine = client(t.app, await login(t.app, holder.login, holder.password));
  // Names that tie (pages break ties by id), owned by the holder, by no one, made by the holder.
  for (const [name, value, owner] of [
    ['b card', '0A01', holder.id],
    ['a card', '0A02', null],
    ['b card', '0A03', null],
    ['c code', '0A04', holder.id],
    ['a card', '0A05', null],
  ] as const) {
    const res = await admin.put('/identifiers', { name, value, ...(owner ? { owner_id: owner } : {}) });
    expect(res.statusCode, res.body).toBe(200);
  }
  const own = await mine.put('/identifiers', { name: 'made by holder', value: '0A06' });
  expect(own.statusCode, own.body).toBe(200);
  for (const [key, group] of [
    ['top', top],
    ['below', below],
    ['other', other],
  ] as const) {
    const res = await admin.put('/devices', { name: `door ${key}`, model: 'AP-200', serial_number: `LISTS-${key}`, domain_id: group });
    expect(res.statusCode, res.body).toBe(200);
    doors[key] = res.json().data.id;
  }
  const [card] = await queryRows<{ id: number }>(db, sql`SELECT id FROM identifiers WHERE value = '0A01'`);
  // Events at each door: granted to a known card and its owner, refused for an unknown number, at times that tie.
  for (const [i, door] of [doors.top, doors.below, doors.other, doors.top, doors.other, doors.below, doors.top].entries()) {
    const known = i % 2 === 0;
    await db.execute(sql`INSERT INTO access_events (project_id, device_id, lock_number, granted, reason, value, identifier_id, user_id, occurred_at)
      VALUES (${t.project.projectId}, ${door}, 1, ${known}, ${known ? null : 'unknown identifier'}, ${known ? '0A01' : `FF0${i}`},
        ${known ? card!.id : null}, ${known ? holder.id : null}, now() - (${Math.floor(i / 2)} || ' minutes')::interval)`);
  }
});
afterAll(() => t.close());

const memberWith = (permissions: string[], groupIds: number[]) => memberClient(t, permissions, groupIds);

type Api = Awaited<ReturnType<typeof memberWith>>;

/** Every page of a list, `size` rows at a time, each checked byte for byte against the contract's schema; with the totals the pages answered. */
async function allPages(api: Api, path: string, schema: typeof IdentifierSchema | typeof AccessEventSchema, size: number) {
  const rows: Record<string, unknown>[] = [];
  const totals = new Set<number>();
  for (let page = 1; page < 50; page++) {
    const res = await api.get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&size=${size}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    // Its keys, in its order, and nothing else.
    expect(res.body).toBe(JSON.stringify(listResponse(schema.strict()).strict().parse(body)));
    totals.add(body.meta.total);
    if (!body.data.length) break;
    rows.push(...body.data);
  }
  return { rows, totals: [...totals] };
}

describe('GET /identifiers', () => {
  const callers: [string, () => Promise<Api>][] = [
    ['the administrator', async () => admin],
    ['a viewer of every identifier who may not edit', () => memberWith(['can_view_all_identifiers'], [other])],
    ['a holder, who sees what they own or made', async () => client(t.app, await login(t.app, holder.login, holder.password))],
  ];
  const queries = [
    '/identifiers?sort=name',
    '/identifiers?sort=-created_at',
    `/identifiers?sort=value&filters=${rules('match_any', { field: 'name', operator: 'begins_with', value: 'a' }, { field: 'owner_id', operator: 'equals', value: 0 })}`,
    '/identifiers?sort=name&search=holder',
    '/identifiers?sort=-name&search=card',
  ];
  for (const [who, caller] of callers) {
    it(`answers every page byte for byte as the schema does, each identifier as GET /identifiers/:id, with the total: ${who}`, async () => {
      const api = await caller();
      const visible = (await api.get('/identifiers?size=100&sort=id')).json().data as { id: number }[];
      for (const q of queries) {
        const { rows, totals } = await allPages(api, q, IdentifierSchema, 2);
        const all = (await api.get(`${q}&size=100`)).json();
        expect(totals, q).toEqual([all.meta.total]);
        expect(rows, q).toEqual(all.data);
        for (const r of rows) {
          expect(visible.map((v) => v.id)).toContain(r.id);
          expect(r, `identifier ${r.id} in ${q}`).toEqual((await api.get(`/identifiers/${r.id}`)).json().data);
        }
      }
    });
  }

  it('keeps to what each caller may see, and one call’s values out of the next call’s statement', async () => {
    const mine = client(t.app, await login(t.app, holder.login, holder.password));
    const names = async (api: Api, q: string) => ((await api.get(q)).json().data as { name: string }[]).map((r) => r.name);
    expect(await names(mine, '/identifiers?sort=name')).toEqual(['b card', 'c code', 'made by holder']);
    const begins = (value: string) =>
      `/identifiers?sort=name&filters=${rules('match_all', { field: 'name', operator: 'begins_with', value })}`;
    expect(await names(admin, begins('a'))).toEqual(['a card', 'a card']);
    expect(await names(admin, begins('c'))).toEqual(['c code']);
    expect(await names(mine, begins('a'))).toEqual([]);
    expect(await names(admin, '/identifiers?sort=name&search=0A04')).toEqual(['c code']);
    expect(await names(admin, '/identifiers?sort=name&search=0A05')).toEqual(['a card']);
    // The search also finds an identifier by its owner's name.
    expect(await names(admin, '/identifiers?sort=name&search=Holder%20Person')).toEqual(['b card', 'c code']);
    const noRights = await memberWith(['can_view_devices'], [top]);
    expect((await noRights.get('/identifiers')).json().data).toEqual([]);
  });
});

describe('GET /access-control/logs', () => {
  const callers: [string, () => Promise<Api>, (keyof typeof doors)[]][] = [
    ['the administrator', async () => admin, ['top', 'below', 'other']],
    [
      'a viewer of the devices of their groups and below',
      () => memberWith(['can_view_access_control_events', 'can_view_descendant_devices'], [top]),
      ['top', 'below'],
    ],
    [
      'a viewer of the devices of their own groups',
      () => memberWith(['can_view_access_control_events', 'can_view_devices'], [top]),
      ['top'],
    ],
  ];
  const queries = [
    '/access-control/logs',
    '/access-control/logs?sort=occurred_at',
    `/access-control/logs?filters=${rules('match_all', { field: 'granted', operator: 'equals', value: false })}`,
    `/access-control/logs?sort=-device_id,occurred_at&filters=${rules('match_any', { field: 'reason', operator: 'has', value: 'unknown' }, { field: 'user_id', operator: 'above', value: 0 })}`,
  ];
  for (const [who, caller, sees] of callers) {
    it(`answers every page byte for byte as the schema does, only events of the devices the caller sees: ${who}`, async () => {
      const api = await caller();
      const seen = sees.map((k) => doors[k]).sort();
      for (const q of queries) {
        const { rows, totals } = await allPages(api, q, AccessEventSchema, 2);
        const all = (await api.get(`${q}${q.includes('?') ? '&' : '?'}size=100`)).json();
        expect(totals, q).toEqual([all.meta.total]);
        expect(rows, q).toEqual(all.data);
        for (const r of rows) expect(seen, q).toContain(r.device_id);
        if (q === queries[0]) expect([...new Set(rows.map((r) => r.device_id as number))].sort()).toEqual(seen);
      }
      const first = (await api.get('/access-control/logs?size=100')).json().data as Record<string, unknown>[];
      const granted = first.find((r) => r.granted);
      expect(granted).toMatchObject({ identifier_name: 'b card', identifier_type: 'card', user_id: holder.id, user_name: 'Holder Person' });
      // Newest first, ties by id downwards.
      for (let i = 1; i < first.length; i++) {
        const [a, b] = [first[i - 1]!, first[i]!];
        expect((a.occurred_at as string) >= (b.occurred_at as string)).toBe(true);
        if (a.occurred_at === b.occurred_at) expect(a.id as number).toBeGreaterThan(b.id as number);
      }
    });
  }

  it('keeps one call’s values out of the next call’s statement', async () => {
    const at = async (device: number) =>
      (
        (
          await admin.get(`/access-control/logs?filters=${rules('match_all', { field: 'device_id', operator: 'equals', value: device })}`)
        ).json().data as { device_id: number }[]
      ).map((r) => r.device_id);
    expect(await at(doors.top)).toEqual([doors.top, doors.top, doors.top]);
    expect(await at(doors.other)).toEqual([doors.other, doors.other]);
    const none = await memberWith(['can_view_devices'], [top]);
    expect((await none.get('/access-control/logs')).statusCode).toBe(403);
  });
});
