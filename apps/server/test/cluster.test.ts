// Two Atrium processes (src/main.ts, as `npm start` runs them) on one PostgreSQL database behind
// HAProxy with deploy/haproxy/haproxy.cfg: requests spread over both, a realtime socket through the
// proxy hears changes made on either instance, a public route's limit holds across both, and when
// one instance is killed (-9) the proxy keeps serving reads from the other without a failed request.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { APP_CHANGES_TOPIC, REALTIME_EVENTS } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type Instance, InstanceRig, waitFor } from './instances.js';
import { connectSocket } from './realtime-client.js';

const HAPROXY_CFG = path.resolve(import.meta.dirname, '../../../deploy/haproxy/haproxy.cfg');
const HAPROXY = '/usr/sbin/haproxy';
const PG = process.env.TEST_DATABASE_URL;

const rig = new InstanceRig(
  PG ?? '',
  'cluster',
  { login: 'admin', password: 'cluster-admin-pass-1' },
  'cluster-test-secret-cluster-test-secret-1',
);
const startInstance = (name: string) => rig.start(name, { env: { TRUST_PROXY: '127.0.0.1' }, timeoutMs: 120_000 });

let a: Instance;
let b: Instance;
let proxy = '';

describe.runIf(PG && existsSync(HAPROXY))('two instances behind HAProxy', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    rig.createDatabase();
    // One after the other: the first creates the schema and the project, the second finds them.
    a = await startInstance('front-a');
    b = await startInstance('front-b');
    const bind = await freePort();
    const hp = rig.spawnLogged(HAPROXY, ['-db', '-f', HAPROXY_CFG], {
      ATRIUM_PROXY_BIND: `127.0.0.1:${bind}`,
      ATRIUM_1: `127.0.0.1:${a.port}`,
      ATRIUM_2: `127.0.0.1:${b.port}`,
    });
    proxy = `http://127.0.0.1:${bind}`;
    await waitFor(
      async () => (await fetch(`${proxy}/api/v0/info`).catch(() => null))?.status === 200,
      () => `haproxy\n${hp.output()}`,
      90_000,
    );
  }, 300_000);

  afterAll(() => rig.close(), 60_000);

  const signIn = async (base: string) => (await rig.signIn(base)).token;
  const api = (base: string, token: string, url: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v0${url}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  it('spreads requests over both instances, which list each other', async () => {
    const token = await signIn(proxy);
    const answered = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const info = (
        (await (await api(proxy, token, '/system/info')).json()) as { data: { instance: { name: string }; instances: { name: string }[] } }
      ).data;
      answered.add(info.instance.name);
      expect(info.instances.map((x) => x.name).sort()).toEqual(['front-a', 'front-b']);
    }
    expect([...answered].sort()).toEqual(['front-a', 'front-b']);
  });

  it('a realtime socket through the proxy hears changes made on either instance', async () => {
    const token = await signIn(proxy);
    const role = (await (
      await api(proxy, token, '/roles', { method: 'PUT', body: JSON.stringify({ name: 'Night desk', permissions: ['can_view_users'] }) })
    ).json()) as {
      data: { id: number };
    };
    const groups = (await (await api(proxy, token, '/domains')).json()) as { data: { id: number }[] };
    const created = await api(proxy, token, '/users', {
      method: 'PUT',
      body: JSON.stringify({
        login: 'night1',
        name: 'Night One',
        password: 'night-pass-12',
        role: role.data.id,
        domains: [groups.data[0]!.id],
        send_registration_link: false,
      }),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const userToken = await (async () => {
      const res = await fetch(`${proxy}/api/v0/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'night1', password: 'night-pass-12' }),
      });
      return ((await res.json()) as { data: { sessions: { token: string }[] } }).data.sessions[0]!.token;
    })();
    const socket = await connectSocket(proxy.replace('http', 'ws'), userToken);
    expect((await socket.subscribe(APP_CHANGES_TOPIC)).event).toBe('subscribed');
    // Straight to each instance: whichever one the socket reached, one of the changes is the other's.
    for (const [i, direct] of [`http://127.0.0.1:${a.port}`, `http://127.0.0.1:${b.port}`].entries()) {
      const perms = i === 0 ? ['can_view_users', 'can_view_all_users'] : ['can_view_users'];
      expect(
        (await api(direct, token, `/roles/${role.data.id}`, { method: 'PATCH', body: JSON.stringify({ permissions: perms }) })).status,
      ).toBe(200);
      expect((await socket.next((m) => m.event === REALTIME_EVENTS.roleChanged, 10_000)).data).toEqual({ roleId: role.data.id });
    }
    socket.close();
  });

  it('holds a public route’s limit across both instances (30 a minute on a guest page)', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 31; i++)
      codes.push(
        (await fetch(`${proxy}/api/v0/guest-access/key/${'D'.repeat(24)}`, { headers: { 'x-forwarded-for': '198.51.100.90' } })).status,
      );
    expect(codes.filter((c) => c === 429)).toEqual([429]);
    expect(codes[30]).toBe(429);
  });

  it('keeps serving through the other instance when one is killed, without a failed read', async () => {
    const token = await signIn(proxy);
    const statuses: number[] = [];
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const res = await api(proxy, token, '/profile').catch(() => null);
        statuses.push(res?.status ?? 0);
        await res?.arrayBuffer();
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await new Promise((r) => setTimeout(r, 1000));
    b.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 4000));
    stop = true;
    await reader;
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // And writes still work, on the instance that is left.
    const write = await api(proxy, token, '/roles', { method: 'PUT', body: JSON.stringify({ name: 'After the kill', permissions: [] }) });
    expect(write.status).toBe(200);
  });
});
