import { LOGIN_MAX_FAILURES } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeTree } from '../src/modules/users/scope.fixture.js';
import { makeUser } from './factories/user.factory.js';
import { adminClient, buildTestApp, type TestApp } from './helpers.js';

// Issue 9: ten wrong passwords from one address no longer lock the owner out everywhere, and an
// administrator can lift a lock.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
});
afterAll(() => t.close());

const signIn = (login: string, password: string, ip: string) =>
  t.app.inject({ method: 'POST', url: '/api/v0/login', payload: { login, password }, headers: { 'x-forwarded-for': ip } });

async function lockFrom(login: string, ip: string) {
  for (let i = 0; i < LOGIN_MAX_FAILURES; i++) expect((await signIn(login, 'wrong-password', ip)).statusCode).toBe(401);
  expect((await signIn(login, 'wrong-password', ip)).statusCode).toBe(429);
}

describe('sign-in lockout', () => {
  it('locks the guessing address, not the owner signing in from another one', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    await lockFrom(u.login, '198.51.100.7');
    // Even the right password is refused from the guessing address while it is locked…
    expect((await signIn(u.login, u.password, '198.51.100.7')).statusCode).toBe(429);
    // …but the owner at another address gets in.
    expect((await signIn(u.login, u.password, '203.0.113.9')).statusCode).toBe(200);
  });

  it('an administrator unlocks an account, from every address', async () => {
    const u = await makeUser(t.app.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId] });
    await lockFrom(u.login, '198.51.100.8');
    const admin = await adminClient(t);
    const res = await admin.post(`/users/${u.id}/unlock`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ id: u.id });
    expect((await signIn(u.login, u.password, '198.51.100.8')).statusCode).toBe(200);
  });

  it('unlocking follows the rules of acting on another user', async () => {
    const tree = await scopeTree(t);
    const viewer = await tree.actor(['can_view_descendant_users'], ['A']);
    expect((await viewer.api.post(`/users/${tree.users.A1}/unlock`)).statusCode).toBe(403);
    const groupAdmin = await tree.actor(['can_view_descendant_users', 'can_edit_descendant_users'], ['A']);
    const administrator = await makeUser(t.app.database.db, {
      projectId: t.project.projectId,
      roleId: t.project.roleId,
      groupIds: [tree.groups.A1],
    });
    expect((await groupAdmin.api.post(`/users/${administrator.id}/unlock`)).statusCode).toBe(403);
    expect((await groupAdmin.api.post(`/users/${tree.users.A1}/unlock`)).statusCode).toBe(200);
    expect((await groupAdmin.api.post(`/users/${tree.users.B1}/unlock`)).statusCode).toBe(404);
  });
});
