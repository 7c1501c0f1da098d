import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { flagsOf, type ScopeTree, scopeTree } from '../users/scope.fixture.js';

let t: TestApp;
let tree: ScopeTree;
/** Domain type ids by name. */
let type: Record<'complex' | 'building' | 'entrance' | 'floor' | 'service' | 'apartment', number>;
beforeAll(async () => {
  t = await buildTestApp();
  tree = await scopeTree(t);
  const types = (await tree.admin.get('/domain-types')).json().data as { id: number; type: number }[];
  const id = (code: number) => types.find((x) => x.type === code)?.id as number;
  type = { complex: id(1), building: id(2), entrance: id(3), floor: id(4), service: id(5), apartment: id(6) };
});
afterAll(() => t.close());

const anon = () => client(t.app);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
let seq = 0;
const create = (body: Record<string, unknown>) => tree.admin.put('/domains', { name: `g${++seq}`, ...body });
async function building(extra: Record<string, unknown> = {}) {
  const res = await create({ parent_id: t.project.rootGroupId, domain_type_id: type.building, ...extra });
  expect(res.statusCode).toBe(200);
  return res.json().data.id as number;
}

describe('PUT /domains', () => {
  it('creates a group under a parent, with its settings, and answers it', async () => {
    const res = await create({
      name: 'Tower 1',
      parent_id: t.project.rootGroupId,
      domain_type_id: type.building,
      logic_address: 1,
      description: 'north tower',
      whitelabel_settings: { is_enabled: true, name: 'Tower', email: 'desk@example.com' },
      guest_identifier_limits: { max_passes_count: 5, max_period_days: 7 },
      device_status_notify: [{ user_id: tree.users.A, notify_about_offline_device: true }],
      is_resident_phonebook_enabled: true,
      internal_subnetworks: ['10.0.0.0/24'],
      users: [tree.users.B],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Tower 1',
      parent_id: t.project.rootGroupId,
      domain_type: { id: type.building, type: 2, name: 'Building' },
      logic_address: 1,
      whitelabel_settings: { is_enabled: true, name: 'Tower', email: 'desk@example.com', logo: null },
      guest_identifier_limits: { max_passes_count: 5, max_period_days: 7 },
      device_status_notify: [{ user_id: tree.users.A, notify_about_offline_device: true, notify_about_device_task_failed: false }],
      internal_subnetworks: ['10.0.0.0/24'],
      users: [tree.users.B],
      has_children: false,
    });
    expect(res.json().data.path).toEqual([t.project.rootGroupId, res.json().data.id]);
  });

  it('enforces the hierarchy between domain types with the spec messages', async () => {
    const b = await building();
    const apt = (await create({ parent_id: b, domain_type_id: type.apartment })).json().data.id;
    const wrong = await create({ parent_id: apt, domain_type_id: type.building });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({
      message: 'wrong group hierarchy',
      details: [{ child_type: 'Building', parent_type: 'Apartment' }],
    });
    const entrance = await create({ parent_id: t.project.rootGroupId, domain_type_id: type.entrance });
    expect(entrance.json().message).toBe('a domain needs a building parent');
    expect((await create({ parent_id: b, domain_type_id: type.entrance })).statusCode).toBe(200);
  });

  it('keeps type and logical address unique among siblings, and no address for domain type 5', async () => {
    const b = await building();
    expect((await create({ parent_id: b, domain_type_id: type.floor, logic_address: 3 })).statusCode).toBe(200);
    const dup = await create({ parent_id: b, domain_type_id: type.floor, logic_address: 3 });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('domain with the same type and logical address exists');
    expect((await create({ parent_id: b, domain_type_id: type.apartment, logic_address: 3 })).statusCode).toBe(200);
    const other = await building();
    expect((await create({ parent_id: other, domain_type_id: type.floor, logic_address: 3 })).statusCode).toBe(200);
    const service = await create({ parent_id: b, domain_type_id: type.service, logic_address: 1 });
    expect(service.statusCode).toBe(400);
    expect(service.json().details[0]).toMatchObject({ field: 'logic_address' });
    expect((await create({ parent_id: b, domain_type_id: type.service, logic_address: null })).statusCode).toBe(200);
  });

  it('adds an internal subnetwork address only once', async () => {
    const res = await create({ parent_id: t.project.rootGroupId, internal_subnetworks: ['10.0.0.0/24', '10.0.0.0/24'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('an internal subnetwork address can be added only once');
  });

  it.each([
    [{ parent_id: 1 }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', logic_address: -1 }, 'logic_address'],
    [{ name: 'x', internal_subnetworks: ['999.0.0.1'] }, 'internal_subnetworks.0'],
    [{ name: 'x', whitelabel_settings: { email: 'nope' } }, 'whitelabel_settings.email'],
    [{ name: 'x', license_info: { licenses: [{ type: 'sip', quantity: -1 }] } }, 'license_info.licenses.0.quantity'],
    [{ name: 'x', color: 'red' }, ''],
  ])('answers 400 with field details for %j', async (body, field) => {
    const res = await tree.admin.put('/domains', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses related entities of another project', async () => {
    for (const body of [
      { name: 'x', parent_id: tree.other.groupId },
      { name: 'x', parent_id: t.project.rootGroupId, users: [tree.other.userId] },
      { name: 'x', parent_id: t.project.rootGroupId, device_status_notify: [{ user_id: tree.other.userId }] },
    ]) {
      const res = await tree.admin.put('/domains', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid related entity sent');
    }
  });

  it('needs the create permission for root or descendant groups', async () => {
    const none = await tree.actor([], ['A']);
    expect((await none.api.put('/domains', { name: 'x', parent_id: tree.groups.A })).statusCode).toBe(403);
    const below = await tree.actor(['can_create_descendant_domains'], ['A']);
    expect((await below.api.put('/domains', { name: 'x', parent_id: tree.groups.A1 })).statusCode).toBe(200);
    expect((await below.api.put('/domains', { name: 'x', parent_id: tree.groups.B })).statusCode).toBe(400);
    expect((await below.api.put('/domains', { name: 'x' })).statusCode).toBe(403);
    expect((await tree.admin.put('/domains', { name: 'New root' })).statusCode).toBe(200);
    expect((await anon().put('/domains', { name: 'x' })).statusCode).toBe(401);
  });
});

describe('GET /domains, /domains/completely, /domains/:id, children, floors-and-apartments', () => {
  it('lists with search (minimum length), ids, filters, sort and relations', async () => {
    const b = await building({ name: 'Searchable house', logic_address: 77 });
    let res = await tree.admin.get('/domains?search=searchable&with=users,parent');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((g: { id: number }) => g.id)).toEqual([b]);
    expect(res.json().data[0].parent).toEqual({ id: t.project.rootGroupId, name: 'Test project' });
    res = await tree.admin.get('/domains?search=s');
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ field: 'search', params: { length: 2 } });
    res = await tree.admin.get(`/domains?id=${tree.groups.A},${tree.groups.B}&sort=-name`);
    expect(res.json().data.map((g: { name: string }) => g.name)).toEqual(['B', 'A']);
    const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'parent_id', operator: 'equals', value: tree.groups.A }] }));
    expect((await tree.admin.get(`/domains?filters=${filters}`)).json().data.map((g: { name: string }) => g.name)).toEqual(['A1']);
    // A column that is not sortable (path orders by the tree, for pickers) is refused.
    expect((await tree.admin.get('/domains?sort=password')).statusCode).toBe(400);
    expect((await tree.admin.get('/domains?id=x')).statusCode).toBe(400);
    expect((await anon().get('/domains')).statusCode).toBe(401);
  });

  it('shows members their groups and below only, and never another project', async () => {
    const actor = await tree.actor([], ['A']);
    const ids = (await actor.api.get('/domains/completely')).json().data.map((g: { id: number }) => g.id);
    expect(ids).toEqual(expect.arrayContaining([tree.groups.A, tree.groups.A1, tree.groups.A1a]));
    for (const g of [tree.groups.R, tree.groups.B, tree.groups.B1]) expect(ids).not.toContain(g);
    expect((await actor.api.get(`/domains/${tree.groups.B}`)).statusCode).toBe(404);
    expect((await actor.api.get(`/domains/${tree.groups.A1}`)).statusCode).toBe(200);
    expect((await tree.admin.get(`/domains/${tree.other.groupId}`)).statusCode).toBe(404);
    const all = (await tree.admin.get('/domains/completely')).json().data.map((g: { id: number }) => g.id);
    expect(all).not.toContain(tree.other.groupId);
  });

  it('hides licence info from those who may not view it', async () => {
    const actor = await tree.actor([], ['A']);
    expect((await actor.api.get(`/domains/${tree.groups.A}`)).json().data.license_info).toBeNull();
    expect((await tree.admin.get(`/domains/${tree.groups.A}`)).json().data.license_info).toMatchObject({ is_enabled: false });
  });

  it('answers children and floors with their apartments', async () => {
    const b = await building();
    const gen = await tree.admin.post('/domains/generate', {
      parent_id: b,
      domains: [
        { id: type.floor, count: 2, prefix: 'Floor ' },
        { id: type.apartment, count: 2, prefix: 'Apt ', numeration: { is_start_youngest_num: true } },
      ],
    });
    await tree.admin.post('/domains/generate/save', { parent_id: b, domains: gen.json().data.domains });
    const children = await tree.admin.get(`/domains/${b}/children`);
    expect(children.json().data.map((g: { name: string; has_children: boolean }) => [g.name, g.has_children])).toEqual([
      ['Floor 1', true],
      ['Floor 2', true],
    ]);
    const fa = await tree.admin.get(`/domains/${b}/floors-and-apartments`);
    expect(fa.json().data.map((f: { name: string; apartments: { name: string }[] }) => [f.name, f.apartments.map((a) => a.name)])).toEqual([
      ['Floor 1', ['Apt 101', 'Apt 102']],
      ['Floor 2', ['Apt 201', 'Apt 202']],
    ]);
    expect((await tree.admin.get(`/domains/${tree.other.groupId}/children`)).statusCode).toBe(404);
    expect((await tree.admin.get(`/domains/${tree.other.groupId}/floors-and-apartments`)).statusCode).toBe(404);
    expect((await anon().get(`/domains/${b}/children`)).statusCode).toBe(401);
    expect((await tree.admin.get('/domains/x/children')).statusCode).toBe(400);
  });
});

describe('PATCH /domains/:id', () => {
  it('updates settings and moves a group with its subtree', async () => {
    const b1 = await building();
    const b2 = await building();
    const entrance = (await create({ parent_id: b1, domain_type_id: type.entrance })).json().data.id;
    const floor = (await create({ parent_id: entrance, domain_type_id: type.floor })).json().data.id;
    const res = await tree.admin.patch(`/domains/${entrance}`, { parent_id: b2, name: 'Entrance 2' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Entrance 2', parent_id: b2, path: [t.project.rootGroupId, b2, entrance] });
    expect((await tree.admin.get(`/domains/${floor}`)).json().data.path).toEqual([t.project.rootGroupId, b2, entrance, floor]);
    const below = await tree.admin.patch(`/domains/${b2}`, { parent_id: floor });
    expect(below.statusCode).toBe(400);
  });

  it('checks the hierarchy on a type change: parent, children and a type a child already has', async () => {
    const b = await building();
    const entrance = (await create({ parent_id: b, domain_type_id: type.entrance })).json().data.id;
    await create({ parent_id: entrance, domain_type_id: type.floor });
    let res = await tree.admin.patch(`/domains/${entrance}`, { domain_type_id: type.floor });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('a child already contains a type');
    res = await tree.admin.patch(`/domains/${entrance}`, { domain_type_id: type.apartment });
    expect(res.json()).toMatchObject({ message: 'wrong group hierarchy', details: [{ child_type: 'Floor', parent_type: 'Apartment' }] });
    res = await tree.admin.patch(`/domains/${b}`, { domain_type_id: type.floor });
    expect(res.json().message).toBe('wrong group hierarchy');
  });

  it('lets members with self-domain permissions change only those fields of their own group', async () => {
    const actor = await tree.actor(['can_manage_self_domain_general'], ['A']);
    expect((await actor.api.patch(`/domains/${tree.groups.A}`, { description: 'ours' })).statusCode).toBe(200);
    const res = await actor.api.patch(`/domains/${tree.groups.A}`, { whitelabel_settings: { is_enabled: true } });
    expect(res.statusCode).toBe(403);
    expect(res.json().details).toEqual([{ field: 'whitelabel_settings' }]);
    expect((await actor.api.patch(`/domains/${tree.groups.A1}`, { description: 'below' })).statusCode).toBe(403);
    const editor = await tree.actor(['can_edit_descendant_domains'], ['A']);
    expect((await editor.api.patch(`/domains/${tree.groups.A1}`, { description: 'below' })).statusCode).toBe(200);
    expect((await editor.api.patch(`/domains/${tree.groups.B}`, { description: 'other' })).statusCode).toBe(404);
  });

  it('attaches and detaches users, but never the current user from their only group', async () => {
    const g = await building();
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [tree.groups.B] });
    let res = await tree.admin.patch(`/domains/${g}`, { users: [u.id] });
    expect(res.json().data.users).toEqual([u.id]);
    res = await tree.admin.patch(`/domains/${g}`, { users: [] });
    expect(res.json().data.users).toEqual([]);
    res = await tree.admin.patch(`/domains/${t.project.rootGroupId}`, { users: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('cannot remove the current user from their only group or top-level group');
  });

  it('validates licence info against parent and children with each consistency problem', async () => {
    const b = await building({ license_info: { is_enabled: true, licenses: [{ type: 'sip', quantity: 10 }] } });
    const e1 = (await create({ parent_id: b, domain_type_id: type.entrance })).json().data.id;
    let res = await tree.admin.patch(`/domains/${e1}`, { license_info: { is_enabled: true, licenses: [{ type: 'sip', quantity: 6 }] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.license_info.notifications).toEqual({ is_active: true, period: 'everyday', notify_before: 14 });
    const e2 = (await create({ parent_id: b, domain_type_id: type.entrance })).json().data.id;
    res = await tree.admin.patch(`/domains/${e2}`, {
      license_info: {
        is_enabled: true,
        licenses: [
          { type: 'sip', quantity: 5 },
          { type: 'ukey2', quantity: 1 },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('license consistency error');
    expect(res.json().details.map((d: { code: string; type: string }) => [d.code, d.type])).toEqual([
      ['license_quantity_exceeded', 'sip'],
      ['license_type_missing_in_parent', 'ukey2'],
    ]);
    res = await tree.admin.patch(`/domains/${b}`, { license_info: { is_enabled: true, licenses: [{ type: 'sip', quantity: 4 }] } });
    expect(res.json().details.map((d: { code: string }) => d.code)).toEqual(['license_less_than_children']);
  });

  it('needs the licence-count permission to change licence info', async () => {
    const editor = await tree.actor(['can_edit_descendant_domains'], ['A']);
    const res = await editor.api.patch(`/domains/${tree.groups.A1}`, { license_info: { is_enabled: false } });
    expect(res.statusCode).toBe(403);
  });

  it('answers 400, 401 and 404 as every route does', async () => {
    expect((await tree.admin.patch(`/domains/${tree.groups.A}`, { logic_address: 'one' })).json().details[0].field).toBe('logic_address');
    expect((await anon().patch(`/domains/${tree.groups.A}`, { name: 'x' })).statusCode).toBe(401);
    expect((await tree.admin.patch(`/domains/${tree.other.groupId}`, { name: 'x' })).statusCode).toBe(404);
  });
});

describe('DELETE /domains/:id', () => {
  it('deletes an empty group with its subtree', async () => {
    const b = await building();
    const f = (await create({ parent_id: b, domain_type_id: type.floor })).json().data.id;
    expect((await tree.admin.delete(`/domains/${b}`)).statusCode).toBe(200);
    expect((await tree.admin.get(`/domains/${f}`)).statusCode).toBe(404);
  });

  it('wants users moved first, and never deletes the only group of the current user', async () => {
    const b = await building();
    const f = (await create({ parent_id: b, domain_type_id: type.floor })).json().data.id;
    await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [f] });
    const res = await tree.admin.delete(`/domains/${b}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'users must first be moved before deleting a group', details: [{ users_count: 1 }] });
    const only = await tree.admin.delete(`/domains/${t.project.rootGroupId}`);
    expect(only.json().message).toBe('cannot delete the only group of the current user');
  });

  it('follows the delete scopes', async () => {
    const own = await tree.actor(['can_delete_own_domains'], ['A', 'B1']);
    const res = await own.api.delete(`/domains/${tree.groups.A1a}`);
    expect(res.statusCode).toBe(403);
    const below = await tree.actor(['can_delete_descendant_domains'], ['A']);
    const g = (await tree.admin.put('/domains', { name: 'leaf', parent_id: tree.groups.A1a })).json().data.id;
    expect((await below.api.delete(`/domains/${g}`)).statusCode).toBe(200);
    expect((await below.api.delete(`/domains/${tree.groups.B1}`)).statusCode).toBe(404);
    expect((await tree.admin.delete(`/domains/${tree.other.groupId}`)).statusCode).toBe(404);
    expect((await anon().delete(`/domains/${g}`)).statusCode).toBe(401);
    expect((await tree.admin.delete('/domains/0')).statusCode).toBe(400);
  });
});

type G = keyof ScopeTree['groups'];
const ALL: G[] = ['R', 'A', 'A1', 'A1a', 'B', 'B1'];
const BELOW_A: G[] = ['A', 'A1', 'A1a'];

describe('can_edit and can_delete of every group the caller sees', () => {
  const cases: [string, string[], G[], G[], G[], G[]][] = [
    // [case, permissions, the actor's groups, visible, editable, deletable]
    ['edit all', ['can_edit_all_domains'], ['A'], ALL, ALL, []],
    ['edit descendants', ['can_edit_descendant_domains', 'can_create_root_domains'], ['A'], ALL, BELOW_A, []],
    ['self-domain general parameters', ['can_manage_self_domain_general'], ['A'], BELOW_A, ['A'], []],
    ['self-domain users', ['can_manage_self_domain_users'], ['A', 'B1'], [...BELOW_A, 'B1'], ['A', 'B1'], []],
    ['licence counts of my groups', ['can_edit_self_domain_license_counts'], ['A'], BELOW_A, ['A'], []],
    ['licence counts below my groups', ['can_edit_descendant_domain_license_counts'], ['A1'], ['A1', 'A1a'], ['A1', 'A1a'], []],
    ['nothing', [], ['A'], BELOW_A, [], []],
    ['delete all, never the only group', ['can_delete_all_domains'], ['A'], ALL, [], ['R', 'A1', 'A1a', 'B', 'B1']],
    ['delete own', ['can_delete_own_domains'], ['A', 'B1'], [...BELOW_A, 'B1'], [], ['A', 'B1']],
    ['delete descendants', ['can_delete_descendant_domains', 'can_create_root_domains'], ['A', 'B1'], ALL, [], [...BELOW_A, 'B1']],
  ];

  it.each(cases)('%s', async (_name, perms, where, visible, editable, deletable) => {
    const actor = await tree.actor(perms, where);
    const flags = await flagsOf(
      actor.api,
      '/domains',
      visible.map((g) => tree.groups[g]),
    );
    for (const g of visible) {
      expect([g, flags.get(tree.groups[g])]).toEqual([g, { can_edit: editable.includes(g), can_delete: deletable.includes(g) }]);
    }
  });

  it('answers them on children and on a saved group too', async () => {
    const actor = await tree.actor(['can_edit_descendant_domains', 'can_manage_self_domain_general'], ['A1']);
    const children = (await actor.api.get(`/domains/${tree.groups.A1}/children`)).json().data as { id: number; can_edit: boolean }[];
    expect(children.find((c) => c.id === tree.groups.A1a)).toMatchObject({ can_edit: true, can_delete: false });
    const saved = await actor.api.patch(`/domains/${tree.groups.A1}`, { description: 'mine' });
    expect(saved.json().data).toMatchObject({ can_edit: true, can_delete: false });
  });
});

describe('POST and DELETE /domains/:id/logo', () => {
  const upload = async (id: number, token: string | undefined, data: Buffer, field = 'image') => {
    const boundary = '----logo';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="l.png"\r\nContent-Type: image/png\r\n\r\n`),
      data,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return t.app.inject({
      method: 'POST',
      url: `/api/v0/domains/${id}/logo`,
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  };

  it('stores the logo in the white-label settings and removes it', async () => {
    const token = await login(t.app, t.adminLogin, t.adminPassword);
    const g = await building();
    const res = await upload(g, token, PNG);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.whitelabel_settings.logo).toMatch(/^\/api\/v0\/files\/logos\//);
    const del = await tree.admin.delete(`/domains/${g}/logo`);
    expect(del.json().data.whitelabel_settings.logo).toBeNull();
  });

  it('answers 400 for a non-image or a wrong field, 401, 403 and 404', async () => {
    const token = await login(t.app, t.adminLogin, t.adminPassword);
    expect((await upload(tree.groups.A, token, Buffer.from('text'))).json().message).toBe('invalid file');
    expect((await upload(tree.groups.A, token, PNG, 'file')).json().message).toBe('wrong file body');
    expect((await upload(tree.groups.A, undefined, PNG)).statusCode).toBe(401);
    expect((await upload(tree.other.groupId, token, PNG)).statusCode).toBe(404);
    const member = await tree.actor([], ['A']);
    expect((await member.api.delete(`/domains/${tree.groups.A}/logo`)).statusCode).toBe(403);
    const wl = await tree.actor(['can_manage_self_domain_white_label'], ['A']);
    expect((await wl.api.delete(`/domains/${tree.groups.A}/logo`)).statusCode).toBe(200);
  });
});

describe('POST /domains/generate and /domains/generate/save', () => {
  it('previews and saves a building of 3 floors with 4 apartments', async () => {
    const preview = await tree.admin.post('/domains/generate', {
      parent_id: t.project.rootGroupId,
      domains: [
        { id: type.building, count: 1, prefix: 'House ', numeration: { from: 9 } },
        { id: type.floor, count: 3, prefix: 'Floor ' },
        { id: type.apartment, count: 4, prefix: 'Apt ', numeration: { is_in_youngest_num: true, except: [13] } },
      ],
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.json().data.total).toBe(16);
    const saved = await tree.admin.post('/domains/generate/save', {
      parent_id: t.project.rootGroupId,
      domains: preview.json().data.domains,
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data.created).toBe(16);
    const house = saved.json().data.ids[0];
    const fa = (await tree.admin.get(`/domains/${house}/floors-and-apartments`)).json().data;
    expect(fa.flatMap((f: { apartments: { logic_address: number }[] }) => f.apartments.map((a) => a.logic_address))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
    // Saving the same houses again collides with their logical address.
    const again = await tree.admin.post('/domains/generate/save', {
      parent_id: t.project.rootGroupId,
      domains: preview.json().data.domains,
    });
    expect(again.statusCode).toBe(409);
  });

  it('generates root groups only with root_level_only and the root permission', async () => {
    const res = await tree.admin.post('/domains/generate', {
      parent_id: null,
      root_level_only: true,
      domains: [{ id: type.complex, count: 2, prefix: 'Site ' }],
    });
    expect(res.json().data).toMatchObject({ parent_id: null, total: 2 });
    const missing = await tree.admin.post('/domains/generate', { parent_id: null, domains: [{ id: type.complex, count: 2 }] });
    expect(missing.json().details[0].field).toBe('parent_id');
    const actor = await tree.actor(['can_create_descendant_domains'], ['A']);
    expect(
      (await actor.api.post('/domains/generate', { parent_id: null, root_level_only: true, domains: [{ id: type.complex, count: 1 }] }))
        .statusCode,
    ).toBe(403);
  });

  it('checks the hierarchy and the types of a tree to save', async () => {
    const b = await building();
    const res = await tree.admin.post('/domains/generate/save', {
      parent_id: b,
      domains: [
        {
          name: 'A',
          domain_type_id: type.apartment,
          logic_address: 1,
          children: [{ name: 'F', domain_type_id: type.floor, logic_address: 1, children: [] }],
        },
      ],
    });
    expect(res.json()).toMatchObject({ message: 'wrong group hierarchy', details: [{ child_type: 'Floor', parent_type: 'Apartment' }] });
    const dup = await tree.admin.post('/domains/generate/save', {
      parent_id: b,
      domains: [
        { name: 'F1', domain_type_id: type.floor, logic_address: 1, children: [] },
        { name: 'F1bis', domain_type_id: type.floor, logic_address: 1, children: [] },
      ],
    });
    expect(dup.json().message).toBe('domain with the same type and logical address exists');
    const foreign = await tree.admin.post('/domains/generate', { parent_id: b, domains: [{ id: 999999, count: 1 }] });
    expect(foreign.json().message).toBe('invalid related entity sent');
  });

  it('answers 400, 401 and 404 as every route does', async () => {
    expect(
      (await tree.admin.post('/domains/generate', { parent_id: 1, domains: [{ id: type.floor, count: 0 }] })).json().details[0].field,
    ).toBe('domains.0.count');
    expect(
      (
        await tree.admin.post('/domains/generate', {
          parent_id: 1,
          domains: [
            { id: type.floor, count: 1000 },
            { id: type.apartment, count: 1000 },
          ],
        })
      ).statusCode,
    ).toBe(400);
    expect((await anon().post('/domains/generate', { parent_id: 1, domains: [] })).statusCode).toBe(401);
    expect(
      (await tree.admin.post('/domains/generate', { parent_id: tree.other.groupId, domains: [{ id: type.floor, count: 1 }] })).statusCode,
    ).toBe(400);
    expect((await tree.admin.post('/domains/generate/save', { parent_id: 1, domains: [{ name: 'x' }] })).statusCode).toBe(400);
    const member = await tree.actor([], ['A']);
    const one = [{ name: 'x', domain_type_id: type.floor, logic_address: null, children: [] }];
    expect((await member.api.post('/domains/generate/save', { parent_id: tree.groups.A, domains: one })).statusCode).toBe(403);
    expect((await anon().post('/domains/generate/save', { parent_id: tree.groups.A, domains: one })).statusCode).toBe(401);
    expect((await tree.admin.post('/domains/generate/save', { parent_id: tree.other.groupId, domains: one })).statusCode).toBe(400);
    expect((await anon().get('/domains/completely')).statusCode).toBe(401);
    expect((await anon().get(`/domains/${tree.groups.A}`)).statusCode).toBe(401);
  });
});
