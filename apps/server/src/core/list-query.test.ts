import { ListQuerySchema } from '@atrium/contract';
import { and, eq, inArray, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeUser } from '../../test/factories/user.factory.js';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { userGroups, users } from '../modules/users/users.table.js';
import { AppError } from './errors.js';
import {
  filterShape,
  filtersSql,
  inPageOrder,
  type ListSpec,
  listPage,
  pageOffset,
  pageOfIds,
  sortSql,
  withRelations,
} from './list-query.js';

const spec: ListSpec = {
  fields: {
    id: { expr: sql`${users.id}`, type: 'number' },
    name: { expr: sql`${users.name}`, type: 'text' },
    email: { expr: sql`${users.email}`, type: 'text' },
    is_group_admin: { expr: sql`${users.isGroupAdmin}`, type: 'boolean' },
    created_at: { expr: sql`${users.createdAt}`, type: 'date' },
    groups: {
      expr: sql`ARRAY(SELECT ug.group_id FROM ${userGroups} ug WHERE ug.user_id = ${users.id})`,
      type: 'int_array',
      sortable: false,
    },
    description: { expr: sql`${users.description}`, type: 'text', filterable: false, sortable: false },
  },
  defaultSort: 'name',
  tiebreak: sql`${users.id} ASC`,
};

let t: TestApp;
let projectId: number;
let g1: number;
let g2: number;
beforeAll(async () => {
  t = await buildTestApp();
  projectId = t.project.projectId;
  g1 = await makeGroup(t.app.database.db, projectId, t.project.rootGroupId, 'A');
  g2 = await makeGroup(t.app.database.db, projectId, t.project.rootGroupId, 'B');
  const db = t.app.database.db;
  await makeUser(db, { projectId, login: 'l-anna', name: 'Anna', email: 'anna@x.org', groupIds: [g1] });
  await makeUser(db, { projectId, login: 'l-boris', name: 'Boris', email: null as never, groupIds: [g2] });
  await makeUser(db, { projectId, login: 'l-bella', name: 'Bella_50%', email: 'bella@y.org', groupIds: [g1, g2] });
  await db.update(users).set({ isGroupAdmin: true }).where(eq(users.login, 'l-bella'));
});
afterAll(() => t?.close());

/** Runs a list query the way every repository does and answers the matching names. */
async function names(raw: Record<string, string>): Promise<string[]> {
  const q = ListQuerySchema.parse(raw);
  const rows = await t.app.database.db
    .select({ name: users.name })
    .from(users)
    .where(and(eq(users.projectId, projectId), sql`${users.login} LIKE 'l-%'`, filtersSql(spec, q)))
    .orderBy(...sortSql(spec, q))
    .limit(q.size)
    .offset(pageOffset(q));
  return rows.map((r) => r.name);
}
const f = (rules: unknown[], match = 'match_all') => ({ filters: JSON.stringify({ match, rules }) });

describe('list engine: number fields', () => {
  it('compares a whole number as a bigint (an integer column keeps its index), any other as numeric', async () => {
    const rendered = (value: unknown) => {
      const q = ListQuerySchema.parse(f([{ field: 'id', operator: 'equals', value }]));
      return t.app.database.db.select({ id: users.id }).from(users).where(filtersSql(spec, q)).toSQL().sql;
    };
    expect(rendered(42)).toContain('::bigint');
    expect(rendered('42')).toContain('::bigint');
    expect(rendered(1.5)).toContain('::numeric');
    const [one] = await t.app.database.db.select({ id: users.id }).from(users).where(eq(users.login, 'l-anna'));
    expect(await names(f([{ field: 'id', operator: 'equals', value: (one?.id ?? 0) + 0.5 }]))).toEqual([]);
    expect(await names(f([{ field: 'id', operator: 'below', value: (one?.id ?? 0) + 0.5 }]))).toContain('Anna');
  });

  it('compares numbers as numbers (above, below, equals, not_equals), whether sent as numbers or text', async () => {
    const rows = await t.app.database.db
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(and(eq(users.projectId, projectId), sql`${users.login} LIKE 'l-%'`))
      .orderBy(users.id);
    const [first, second, third] = rows;
    if (!first || !second || !third) throw new Error('fixture users missing');
    const byName = (list: string[]) => [...list].sort();
    expect(await names(f([{ field: 'id', operator: 'above', value: first.id }]))).toEqual(byName([second.name, third.name]));
    expect(await names(f([{ field: 'id', operator: 'below', value: String(third.id) }]))).toEqual(byName([first.name, second.name]));
    expect(await names(f([{ field: 'id', operator: 'equals', value: String(second.id) }]))).toEqual([second.name]);
    expect(await names(f([{ field: 'id', operator: 'not_equals', value: second.id }]))).toEqual(byName([first.name, third.name]));
    // 10 sorts after 9 as a number, though not as text.
    expect(
      await names(
        f([
          { field: 'id', operator: 'above', value: 9 },
          { field: 'id', operator: 'below', value: 10 },
        ]),
      ),
    ).toEqual([]);
  });
});

describe('list engine: operators', () => {
  it.each([
    ['equals text', [{ field: 'name', operator: 'equals', value: 'Anna' }], ['Anna']],
    ['equals null', [{ field: 'email', operator: 'equals', value: null }], ['Boris']],
    ['not_equals text keeps nulls', [{ field: 'email', operator: 'not_equals', value: 'anna@x.org' }], ['Bella_50%', 'Boris']],
    ['not_equals null', [{ field: 'email', operator: 'not_equals', value: null }], ['Anna', 'Bella_50%']],
    ['above text', [{ field: 'name', operator: 'above', value: 'Bella_50%' }], ['Boris']],
    ['below text', [{ field: 'name', operator: 'below', value: 'B' }], ['Anna']],
    ['has is case-insensitive', [{ field: 'name', operator: 'has', value: 'ORI' }], ['Boris']],
    ['has escapes % and _', [{ field: 'name', operator: 'has', value: '_50%' }], ['Bella_50%']],
    ['begins_with', [{ field: 'name', operator: 'begins_with', value: 'b' }], ['Bella_50%', 'Boris']],
    ['begins_with escapes wildcards', [{ field: 'name', operator: 'begins_with', value: '%' }], []],
    ['boolean equals', [{ field: 'is_group_admin', operator: 'equals', value: true }], ['Bella_50%']],
    ['boolean as text', [{ field: 'is_group_admin', operator: 'equals', value: 'false' }], ['Anna', 'Boris']],
    ['date above', [{ field: 'created_at', operator: 'above', value: '2000-01-01T00:00:00Z' }], ['Anna', 'Bella_50%', 'Boris']],
    ['date below', [{ field: 'created_at', operator: 'below', value: '2000-01-01' }], []],
    ['array has', [{ field: 'groups', operator: 'has', value: 'G1' }], ['Anna', 'Bella_50%']],
    ['array not_equals', [{ field: 'groups', operator: 'not_equals', value: 'G1' }], ['Boris']],
  ])('%s', async (_label, rules, expected) => {
    const withIds = JSON.parse(JSON.stringify(rules).replaceAll('"G1"', String(g1)));
    expect(await names(f(withIds))).toEqual(expected);
  });

  it('match_all needs every rule, match_any one of them', async () => {
    const rules = [
      { field: 'name', operator: 'begins_with', value: 'B' },
      { field: 'email', operator: 'equals', value: null },
    ];
    expect(await names(f(rules, 'match_all'))).toEqual(['Boris']);
    expect(await names(f([{ field: 'name', operator: 'equals', value: 'Anna' }, ...rules.slice(1)], 'match_any'))).toEqual([
      'Anna',
      'Boris',
    ]);
  });

  it('sorts by several fields with a stable tiebreak, and pages', async () => {
    expect(await names({ sort: '-name' })).toEqual(['Boris', 'Bella_50%', 'Anna']);
    expect(await names({ sort: 'is_group_admin,name' })).toEqual(['Anna', 'Boris', 'Bella_50%']);
    expect(await names({ size: '2', page: '2' })).toEqual(['Boris']);
  });
});

describe('list engine: bad input is a 400, never a SQL error', () => {
  const expectInvalid = async (raw: Record<string, string>, field?: RegExp) => {
    const parsed = ListQuerySchema.safeParse(raw);
    if (!parsed.success) return; // refused by the schema: a 400 at the route
    try {
      await names(raw);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe('invalid_data');
      if (field) expect(JSON.stringify((e as AppError).details)).toMatch(field);
    }
  };

  it.each<[Record<string, string>, RegExp?]>([
    [{ sort: 'password_hash' }, /sort/],
    [{ sort: 'description' }, /sort/],
    [{ sort: 'name,name' }, /sort/],
    [{ sort: 'name; DROP TABLE users' }],
    [{ page: '0' }],
    [{ size: '1001' }],
    [{ size: 'ten' }],
    [{ filters: '{not json' }],
    [{ filters: '[]' }],
    [f([{ field: 'password_hash', operator: 'equals', value: 'x' }]), /password_hash/],
    [f([{ field: 'description', operator: 'equals', value: 'x' }]), /description/],
    [f([{ field: 'name', operator: 'like', value: 'x' }])],
    [f([{ field: 'id', operator: 'equals', value: 'abc' }]), /number/],
    [f([{ field: 'is_group_admin', operator: 'equals', value: 'maybe' }]), /invalid_value/],
    [f([{ field: 'is_group_admin', operator: 'above', value: true }])],
    [f([{ field: 'created_at', operator: 'above', value: 'yesterday-ish' }]), /date/],
    [f([{ field: 'id', operator: 'has', value: 1 }])],
    [f([{ field: 'groups', operator: 'begins_with', value: 1 }])],
    [f([{ field: 'groups', operator: 'equals', value: 1.5 }])],
    [f([{ field: 'name', operator: 'equals', value: { $ne: 1 } }])],
    [f([{ field: 'name', operator: 'has', value: null }])],
    [{ filters: JSON.stringify({ match: 'some', rules: [] }) }],
  ])('%j', async (raw, field) => {
    await expectInvalid(raw, field);
  });

  it('never lets arbitrary filter values reach SQL as code (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }),
        fc.constantFrom('equals', 'not_equals', 'has', 'begins_with', 'above', 'below'),
        async (value, operator) => {
          const out = await names(f([{ field: 'name', operator, value }]));
          expect(Array.isArray(out)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('checks `with` against the offered relations', () => {
    expect([...withRelations(['groups', 'role'], ['role'])]).toEqual(['role']);
    expect(() => withRelations(['groups'], ['secrets'])).toThrow(AppError);
  });

  // Names every object inherits are not fields of the whitelist.
  const inherited = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

  it.each(inherited)('refuses to sort by %s', async (name) => {
    await expectInvalid({ sort: name }, /"field":"sort"/);
    await expectInvalid({ sort: `-${name}` }, /"field":"sort"/);
    await expectInvalid({ sort: `name,${name}` }, /"field":"sort"/);
  });

  it.each(inherited)('refuses to filter on %s', async (field) => {
    for (const operator of ['equals', 'above', 'has']) {
      await expectInvalid(f([{ field, operator, value: 1 }]), /filters\.rules\.0\.field/);
    }
  });

  it.each(inherited)('refuses the relation %s', (name) => {
    expect(() => withRelations(['groups', 'role'], [name])).toThrow(AppError);
  });

  it.each(['275760-09-13', '+275760-09-13T00:00:00Z', '10000-01-01', '0000-12-31', '-000001-01-01', '9999-12-31T23:00:00-05:00'])(
    'refuses the date %s: years 0001 to 9999 only, with the bounds in the details',
    async (value) => {
      for (const operator of ['above', 'below', 'equals']) {
        await expectInvalid(
          f([{ field: 'created_at', operator, value }]),
          /"message":"validation.date","params":\{"min":"0001-01-01","max":"9999-12-31"\}/,
        );
      }
    },
  );

  it('takes the first and the last day of years 0001 to 9999', async () => {
    expect(await names(f([{ field: 'created_at', operator: 'above', value: '0001-01-01' }]))).toEqual(['Anna', 'Bella_50%', 'Boris']);
    expect(await names(f([{ field: 'created_at', operator: 'below', value: '9999-12-31T23:59:59.999Z' }]))).toEqual([
      'Anna',
      'Bella_50%',
      'Boris',
    ]);
  });

  it.each([3_000_000_000, 2_147_483_648, -2_147_483_649, '3000000000'])(
    'refuses the group id %s beyond a PostgreSQL integer',
    async (value) => {
      await expectInvalid(f([{ field: 'groups', operator: 'equals', value }]), /validation.range/);
    },
  );
});

describe('pageOfIds', () => {
  const where = () => and(eq(users.projectId, projectId), sql`${users.login} LIKE 'l-%'`);

  it('answers the page ids in order and the exact total', async () => {
    const r = await pageOfIds(t.app.database.db, {
      table: users,
      id: sql`${users.id}`,
      where: where(),
      spec,
      query: { page: 1, size: 2, sort: '-name' },
    });
    expect(r.estimated).toBe(false);
    expect(r.total).toBe(3);
    const rows = await t.app.database.db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, r.ids));
    expect(inPageOrder(r.ids, rows).map((x) => x.name)).toEqual(['Boris', 'Bella_50%']);
  });

  it('answers an empty page past the end with the total still right', async () => {
    const r = await pageOfIds(t.app.database.db, {
      table: users,
      id: sql`${users.id}`,
      where: where(),
      spec,
      query: { page: 9, size: 2 },
    });
    expect(r).toEqual({ ids: [], total: 3, estimated: false });
  });

  it('switches to the planner estimate above the cap', async () => {
    const r = await pageOfIds(t.app.database.db, {
      table: users,
      id: sql`${users.id}`,
      where: where(),
      spec,
      query: { page: 1, size: 1 },
      cap: 2,
    });
    expect(r.estimated).toBe(true);
    expect(r.total).toBeGreaterThanOrEqual(3);
    const names = async (ids: number[]) =>
      inPageOrder(ids, await t.app.database.db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids))).map(
        (x) => x.name,
      );
    expect(await names(r.ids)).toEqual(['Anna']);
    // Above the cap the page still comes in order, from the plain ordered query.
    const second = await pageOfIds(t.app.database.db, {
      table: users,
      id: sql`${users.id}`,
      where: where(),
      spec,
      query: { page: 2, size: 2 },
      cap: 2,
    });
    expect(await names(second.ids)).toEqual(['Boris']);
    // Past the end above the cap: no ids, an estimated total.
    const past = await pageOfIds(t.app.database.db, {
      table: users,
      id: sql`${users.id}`,
      where: where(),
      spec,
      query: { page: 5, size: 2 },
      cap: 2,
    });
    expect(past).toMatchObject({ ids: [], estimated: true });
  });

  it('pages by several sort keys with nulls placed as PostgreSQL places them', async () => {
    const r = await pageOfIds(t.app.database.db, {
      table: users,
      id: sql`${users.id}`,
      where: where(),
      spec,
      query: { page: 1, size: 3, sort: 'email,-name' },
    });
    const rows = await t.app.database.db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, r.ids));
    expect(inPageOrder(r.ids, rows).map((x) => x.name)).toEqual(['Anna', 'Bella_50%', 'Boris']);
  });
});

describe('listPage', () => {
  // One owner for every call below: its statements are compiled once per shape and run with each call's values.
  const owner = {};
  async function page(raw: Record<string, string>, cap?: number) {
    const q = ListQuerySchema.parse(raw);
    const values: Record<string, unknown> = { project: projectId };
    const filters = filtersSql(spec, q, values);
    const r = await listPage<{ name: string; total: number }>(t.app.database.db, {
      owner,
      shape: filterShape(q),
      spec,
      query: q,
      values,
      ...(cap ? { cap } : {}),
      statement: () => ({
        table: users,
        id: sql`${users.id}`,
        where: and(sql`${users.projectId} = ${sql.placeholder('project')}`, sql`${users.login} LIKE 'l-%'`, filters),
        columns: { name: sql`${users.name}` },
      }),
    });
    return { names: r.rows.map((x) => x.name), total: r.total, estimated: r.estimated };
  }

  it('answers a page with its rows in order and the exact total, in one statement', async () => {
    const before = t.app.database.statements();
    expect(await page({ size: '2', sort: '-name' })).toEqual({ names: ['Boris', 'Bella_50%'], total: 3, estimated: false });
    expect(t.app.database.statements() - before).toBe(1);
    expect(await page({ size: '2', page: '2', sort: '-name' })).toEqual({ names: ['Anna'], total: 3, estimated: false });
    expect(await page({ size: '3', sort: 'email,-name' })).toEqual({ names: ['Anna', 'Bella_50%', 'Boris'], total: 3, estimated: false });
  });

  it('answers an empty page past the end with the total still counted', async () => {
    expect(await page({ size: '2', page: '9' })).toEqual({ names: [], total: 3, estimated: false });
  });

  it('runs a compiled statement again with each call’s filter values', async () => {
    const rule = (value: string) => f([{ field: 'name', operator: 'begins_with', value }]);
    expect(await page(rule('b'))).toMatchObject({ names: ['Bella_50%', 'Boris'], total: 2 });
    expect(await page(rule('a'))).toMatchObject({ names: ['Anna'], total: 1 });
    expect(await page(rule('zz'))).toMatchObject({ names: [], total: 0 });
    expect(await page(f([{ field: 'groups', operator: 'has', value: g2 }]))).toMatchObject({ names: ['Bella_50%', 'Boris'] });
    expect(await page(f([{ field: 'groups', operator: 'has', value: g1 }]))).toMatchObject({ names: ['Anna', 'Bella_50%'] });
  });

  it('switches to the ordered page and the planner estimate above the cap', async () => {
    const first = await page({ size: '1' }, 2);
    expect(first).toMatchObject({ names: ['Anna'], estimated: true });
    expect(first.total).toBeGreaterThanOrEqual(3);
    expect(await page({ size: '2', page: '2' }, 2)).toMatchObject({ names: ['Boris'], estimated: true });
    expect(await page({ size: '2', page: '5' }, 2)).toMatchObject({ names: [], estimated: true });
  });

  it('checks the sort and the filters on every call, compiled or not', async () => {
    await page({ sort: 'name' });
    await expect(page({ sort: 'description' })).rejects.toBeInstanceOf(AppError);
    await page(f([{ field: 'id', operator: 'equals', value: 1 }]));
    await expect(page(f([{ field: 'id', operator: 'equals', value: 'x' }]))).rejects.toBeInstanceOf(AppError);
  });
});
