import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type ScopeTree, scopeTree } from '../users/scope.fixture.js';

// Issue 9: every group picker names each group by its path, so twelve "Apt 1" can be told apart;
// the path starts at the first group the caller may see.

let t: TestApp;
let tree: ScopeTree;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t.close());

describe('with=path_names', () => {
  it('names a group by its path from the top, searchable by name', async () => {
    const res = await tree.admin.get(
      `/domains?with=path_names&filters=${encodeURIComponent(JSON.stringify({ rules: [{ field: 'name', operator: 'equals', value: 'A1a' }] }))}`,
    );
    expect(res.statusCode).toBe(200);
    const [a1a] = res.json().data;
    expect(a1a.path_names.slice(-3)).toEqual(['A', 'A1', 'A1a']);
    expect(a1a.path_names).toHaveLength(4);
  });

  it('lists groups in tree order, each before its subgroups, as pickers show their paths', async () => {
    const res = await tree.admin.get('/domains?with=path_names&sort=path&size=1000');
    expect(res.statusCode).toBe(200);
    const paths: string[][] = res.json().data.map((g: { path_names: string[] }) => g.path_names);
    paths.forEach((p, i) => {
      // Whatever comes next is this group's subgroup, or belongs to a branch this one does not hold.
      const next = paths[i + 1];
      if (next && next.length > p.length) expect(next.slice(0, p.length), next.join(' › ')).toEqual(p);
    });
    const names = paths.map((p) => p.at(-1));
    expect(names.indexOf('A')).toBeLessThan(names.indexOf('A1'));
    expect(names.indexOf('A1')).toBeLessThan(names.indexOf('A1a'));
  });

  it('starts at the first group the caller may see, naming nothing above it', async () => {
    const actor = await tree.actor(['can_view_descendant_users'], ['A1']);
    const rows = (await actor.api.get('/domains?with=path_names&size=100')).json().data as { name: string; path_names: string[] }[];
    expect(rows.find((g) => g.name === 'A1a')?.path_names).toEqual(['A1', 'A1a']);
    expect(rows.flatMap((g) => g.path_names)).not.toContain('A');
  });
});

describe('GET /domains/:id/delete-impact', () => {
  it('counts the subgroups that go with a group and the users that must be moved first', async () => {
    const res = await tree.admin.get(`/domains/${tree.groups.A}/delete-impact`);
    expect(res.statusCode).toBe(200);
    // u-A, u-A1, u-A1a and the actor the test above placed in A1.
    expect(res.json().data).toEqual({ subgroups: 2, users: 4, devices: 0 });
  });

  it('is refused to whoever may not delete the group', async () => {
    const viewer = await tree.actor(['can_view_descendant_users'], ['A']);
    expect((await viewer.api.get(`/domains/${tree.groups.A1}/delete-impact`)).statusCode).toBe(403);
    expect((await viewer.api.get(`/domains/${tree.groups.B}/delete-impact`)).statusCode).toBe(404);
  });
});

describe('domain types count their groups (issue 9: they always said "0 groups")', () => {
  it('answer with=domains with the groups of the type the caller may see', async () => {
    const type = (await tree.admin.put('/domain-types', { type: 77, name: 'Counted' })).json().data;
    for (const g of [tree.groups.A1, tree.groups.B1]) {
      expect((await tree.admin.patch(`/domains/${g}`, { domain_type_id: type.id })).statusCode).toBe(200);
    }
    const all = (await tree.admin.get('/domain-types?with=domains&size=100')).json().data.find((d: { id: number }) => d.id === type.id);
    expect(all.domains).toEqual([tree.groups.A1, tree.groups.B1].sort((a, b) => a - b));
    const actor = await tree.actor(['can_view_descendant_users'], ['A']);
    const mine = (await actor.api.get('/domain-types?with=domains&size=100')).json().data.find((d: { id: number }) => d.id === type.id);
    expect(mine.domains).toEqual([tree.groups.A1]);
    expect((await actor.api.get(`/domain-types/${type.id}`)).json().data.domains).toEqual([tree.groups.A1]);
  });
});
