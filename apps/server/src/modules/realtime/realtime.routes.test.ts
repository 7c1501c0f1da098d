import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { connectSocket, listenForSockets } from '../../../test/realtime-client.js';

let t: TestApp;
let base: string;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listenForSockets(t.app);
  const u = await makeUser(t.app.database.db, { projectId: t.project.projectId });
  token = await login(t.app, u.login, u.password);
});
afterAll(() => t?.close());

describe('the access_token query parameter', () => {
  it('is taken by the realtime socket', async () => {
    const c = await connectSocket(base, token, 'query');
    c.send({ command: 'ping' });
    expect((await c.next((m) => m.event === 'pong')).topic).toBe('system');
    c.close();
  });

  it('is refused on every other route', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v0/profile?access_token=${token}` });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('unauthenticated');
    expect((await client(t.app).get(`/notifications?access_token=${token}`)).statusCode).toBe(401);
    expect((await client(t.app, token).get('/profile')).statusCode).toBe(200);
  });
});
