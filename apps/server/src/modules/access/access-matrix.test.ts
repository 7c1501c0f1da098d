// The unfiltered access matrix pages by counting lines per person, door or rule instead of ordering
// every line: whatever the order and page size, the pages put together are exactly the matrix (the
// union of what each rule gives, as the filtered query reads it), with an exact total, and a caller
// sees only the doors they may see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let ruleIds: number[] = [];
let branch: number;

interface Line {
  identifier_id: number;
  device_id: number;
  lock_number: number;
  rule_id: number;
  user_name: string | null;
  device_name: string;
  rule_name: string;
}
const key = (l: Line) => `${l.identifier_id}/${l.device_id}/${l.lock_number}/${l.rule_id}`;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  const db = t.database.db;
  const p = t.project.projectId;
  branch = await makeGroup(db, p, t.project.rootGroupId, 'branch');
  const flat = await makeGroup(db, p, branch, 'flat');
  const other = await makeGroup(db, p, t.project.rootGroupId, 'other');
  const ok = async (res: { statusCode: number; body: string; json(): { data: { id: number } } }) => {
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.id;
  };
  // People: two share a name (ties are broken by id), one has no owner name (an unowned card).
  const people = [
    ['anna a', flat],
    ['boris b', branch],
    ['anna a', other],
    ['vera c', flat],
  ] as const;
  const users: number[] = [];
  for (const [name, g] of people) users.push((await makeUser(db, { projectId: p, groupIds: [g], name })).id);
  const cards: number[] = [];
  for (const [i, u] of users.entries())
    cards.push(await ok(await admin.put('/identifiers', { name: `card ${i}`, value: `0C0${i}`, owner_id: u })));
  const spare = await ok(await admin.put('/identifiers', { name: 'spare card', value: '0D01' }));
  // Not in the matrix: inactive, revoked.
  await ok(await admin.put('/identifiers', { name: 'off', value: '0D02', owner_id: users[0], is_active: false }));
  const revoked = await ok(await admin.put('/identifiers', { name: 'gone', value: '0D03', owner_id: users[1] }));
  await admin.post(`/identifiers/${revoked}/revoke`);
  const doors: number[] = [];
  for (const [i, g] of [branch, branch, flat, other].entries())
    doors.push(
      await ok(
        await admin.put('/devices', {
          name: `door ${String.fromCharCode(100 - i)}`,
          model: 'AP-200',
          serial_number: `MXT-${i}`,
          domain_id: g,
        }),
      ),
    );
  ruleIds = [
    await ok(
      await admin.put('/access-rules', {
        name: 'rule by group',
        domains: [branch],
        devices: [
          { id: doors[0], lock_number: 1 },
          { id: doors[0], lock_number: 2 },
          { id: doors[2], lock_number: 1 },
        ],
      }),
    ),
    await ok(
      await admin.put('/access-rules', {
        name: 'rule by user',
        users: [users[2], users[3]],
        devices: [
          { id: doors[1], lock_number: 1 },
          { id: doors[3], lock_number: 2 },
        ],
      }),
    ),
    await ok(
      await admin.put('/access-rules', {
        name: 'a rule by card',
        identifiers: [spare, cards[1]],
        devices: [{ id: doors[3], lock_number: 1 }],
      }),
    ),
    await ok(
      await admin.put('/access-rules', {
        name: 'no entry',
        prohibition: true,
        users: [users[0]],
        devices: [{ id: doors[1], lock_number: 2 }],
      }),
    ),
  ];
});
afterAll(() => t.close());

async function everything(api: typeof admin, sort: string, size: number): Promise<{ lines: Line[]; total: number }> {
  const lines: Line[] = [];
  let total = -1;
  for (let page = 1; page < 100; page++) {
    const res = (await api.get(`/access-matrix?sort=${sort}&size=${size}&page=${page}`)).json();
    total = res.meta.total;
    lines.push(...res.data);
    if (res.data.length < size) break;
  }
  return { lines, total };
}

async function byRules(api: typeof admin): Promise<Line[]> {
  const lines: Line[] = [];
  for (const id of ruleIds) lines.push(...(await api.get(`/access-matrix?rule_id=${id}&size=500`)).json().data);
  return lines;
}

describe('the whole access matrix', () => {
  for (const sort of ['user_name', '-user_name', 'device_name', '-device_name', 'rule_name', '-rule_name']) {
    it(`pages ordered by ${sort} put together to exactly the matrix, with an exact total`, async () => {
      const expected = (await byRules(admin)).map(key).sort();
      const whole = await everything(admin, sort, 500);
      expect(whole.lines.map(key).sort()).toEqual(expected);
      expect(whole.total).toBe(expected.length);
      for (const size of [1, 3, 7]) {
        const paged = await everything(admin, sort, size);
        expect(paged.lines.map(key), `size ${size}`).toEqual(whole.lines.map(key));
        expect(paged.total).toBe(expected.length);
      }
      // The order holds: by the sort's name, then the pivot's id, lines of one pivot together.
      const name = (l: Line) => (sort.includes('user') ? l.user_name : sort.includes('device') ? l.device_name : l.rule_name);
      const names = whole.lines.map(name);
      // Lines without a name (an unowned card) come last either way.
      const named = names.filter((n): n is string => n !== null);
      expect(names.slice(named.length).every((n) => n === null)).toBe(true);
      const sorted = [...named].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(named).toEqual(sort.startsWith('-') ? sorted.reverse() : sorted);
    });
  }

  it('past the end is empty, and an operator counts only the doors they see', async () => {
    const res = (await admin.get('/access-matrix?page=999&size=20')).json();
    expect(res.data).toEqual([]);
    expect(res.meta.total).toBeGreaterThan(0);
    const role = await makeRole(t.database.db, t.project.projectId, ['can_view_access_matrix', 'can_view_devices']);
    const op = await makeUser(t.database.db, { projectId: t.project.projectId, roleId: role, groupIds: [branch] });
    const api = client(t.app, await login(t.app, op.login, op.password));
    const mine = await everything(api, 'user_name', 2);
    const expected = (await byRules(api)).map(key).sort();
    expect(mine.lines.map(key).sort()).toEqual(expected);
    expect(mine.total).toBe(expected.length);
    expect(expected.length).toBeLessThan((await everything(admin, 'user_name', 500)).total);
  });
});
