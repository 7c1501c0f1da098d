import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, client, type TestApp } from '../../../test/helpers.js';
import { type ScopeTree, scopeTree } from '../users/scope.fixture.js';

let t: TestApp;
let tree: ScopeTree;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
});
afterAll(() => t.close());

const anon = () => client(t.app);

describe('domain types', () => {
  it('every project starts with the default set the hierarchy rules use', async () => {
    const res = await tree.admin.get('/domain-types');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((d: { type: number; name: string }) => [d.type, d.name])).toEqual([
      [1, 'Complex'],
      [2, 'Building'],
      [3, 'Entrance'],
      [4, 'Floor'],
      [5, 'Service area'],
      [6, 'Apartment'],
    ]);
    expect(res.json().meta.total).toBe(6);
  });

  it('creates, reads with its groups, updates and deletes a type', async () => {
    const created = await tree.admin.put('/domain-types', { type: 10, name: 'Parking', domain_id: tree.groups.A });
    expect(created.statusCode).toBe(200);
    const id = created.json().data.id;
    expect(created.json().data).toMatchObject({ type: 10, name: 'Parking', domain_id: tree.groups.A, domains: [] });
    const g = await tree.admin.put('/domains', { name: 'P1', parent_id: tree.groups.A, domain_type_id: id });
    expect((await tree.admin.get(`/domain-types/${id}`)).json().data.domains).toEqual([g.json().data.id]);
    expect((await tree.admin.get('/domain-types?with=domains&sort=-type&size=1')).json().data[0].domains).toEqual([g.json().data.id]);
    expect((await tree.admin.patch(`/domain-types/${id}`, { name: 'Car park' })).json().data.name).toBe('Car park');
    // An empty PATCH changes nothing and answers the type as it is.
    const empty = await tree.admin.patch(`/domain-types/${id}`, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toMatchObject({ id, type: 10, name: 'Car park' });
    const codeChange = await tree.admin.patch(`/domain-types/${id}`, { type: 11 });
    expect(codeChange.statusCode).toBe(400);
    const inUse = await tree.admin.delete(`/domain-types/${id}`);
    expect(inUse.statusCode).toBe(400);
    expect(inUse.json().message).toBe("can't perform action");
    await tree.admin.delete(`/domains/${g.json().data.id}`);
    expect((await tree.admin.delete(`/domain-types/${id}`)).statusCode).toBe(200);
    expect((await tree.admin.get(`/domain-types/${id}`)).statusCode).toBe(404);
  });

  it('keeps type codes unique in a project, not across projects', async () => {
    const dup = await tree.admin.put('/domain-types', { type: 2, name: 'Another building' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().details[0].field).toBe('type');
    expect((await tree.other.admin.put('/domain-types', { type: 20, name: 'Mine' })).statusCode).toBe(200);
    expect((await tree.admin.put('/domain-types', { type: 20, name: 'Mine too' })).statusCode).toBe(200);
  });

  it.each([
    [{ name: 'x' }, 'type'],
    [{ type: 'x', name: 'x' }, 'type'],
    [{ type: 30 }, 'name'],
    [{ type: 30, name: '' }, 'name'],
    [{ type: 30, name: 'x', extra: 1 }, ''],
  ])('answers 400 with field details for %j', async (body, field) => {
    const res = await tree.admin.put('/domain-types', body);
    expect(res.statusCode).toBe(400);
    if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a group of another project, needs project settings to change, and sign-in to read', async () => {
    expect((await tree.admin.put('/domain-types', { type: 40, name: 'x', domain_id: tree.other.groupId })).statusCode).toBe(400);
    const member = await tree.actor([], ['A']);
    expect((await member.api.get('/domain-types')).statusCode).toBe(200);
    expect((await member.api.put('/domain-types', { type: 41, name: 'x' })).statusCode).toBe(403);
    const first = (await tree.admin.get('/domain-types')).json().data[0].id;
    expect((await member.api.patch(`/domain-types/${first}`, { name: 'x' })).statusCode).toBe(403);
    expect((await member.api.delete(`/domain-types/${first}`)).statusCode).toBe(403);
    expect((await anon().get('/domain-types')).statusCode).toBe(401);
    expect((await anon().put('/domain-types', { type: 42, name: 'x' })).statusCode).toBe(401);
    const otherType = (await tree.other.admin.get('/domain-types')).json().data[0].id;
    expect((await tree.admin.get(`/domain-types/${otherType}`)).statusCode).toBe(404);
    expect((await tree.admin.patch(`/domain-types/${otherType}`, { name: 'x' })).statusCode).toBe(404);
    expect((await tree.admin.delete(`/domain-types/${otherType}`)).statusCode).toBe(404);
    expect((await tree.admin.get('/domain-types/x')).statusCode).toBe(400);
  });
});
