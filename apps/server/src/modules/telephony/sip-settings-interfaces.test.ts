// The SIP tab's read-only `interfaces` and `nodes`: what the running SIP server is bound to and which
// instance runs, read from the server itself. Checked against the sockets: every interface answered
// is held (a UDP port that cannot be bound again, a TCP port that accepts), and a change of port in
// the tab moves them.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { udpPortFree } from '../../core/ports.js';
import { type SipRuntime, startSip } from './sip-runtime.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let sip: SipRuntime | null = null;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(async () => {
  await sip?.close();
  await t?.close();
});

const tcpAccepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

type Iface = { transport: string; address: string; port: number };

async function held(interfaces: Iface[]) {
  for (const i of interfaces) {
    if (i.transport === 'udp') expect(await udpPortFree(i.port, '127.0.0.1'), `udp ${i.port}`).toBe(false);
    else expect(await tcpAccepts(i.port), `${i.transport} ${i.port}`).toBe(true);
  }
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    if (!(await udpPortFree(port, '127.0.0.1'))) continue;
    const tcp = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (tcp) return port;
  }
}

describe('SIP tab: interfaces and nodes', () => {
  it('are empty while no SIP server runs, and never stored from a request', async () => {
    const res = await admin.get('/settings/sip');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ interfaces: [], nodes: [] });
    // Read-only: the tab's body does not take them.
    expect((await admin.patch('/settings/sip', { interfaces: [] })).statusCode).toBe(400);
    expect((await admin.patch('/settings/sip', { nodes: [] })).statusCode).toBe(400);
  });

  it('are what the running SIP server listens on and its instance, and follow a change of port', async () => {
    sip = await startSip(t.app, {
      ...t.app.config,
      sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
    });
    const ports = sip.server.ports;
    const data = (await admin.get('/settings/sip')).json().data as { interfaces: Iface[]; nodes: unknown[]; codecs: unknown };
    expect(data.interfaces).toEqual([
      { transport: 'udp', address: '127.0.0.1', port: ports.udp },
      { transport: 'tcp', address: '127.0.0.1', port: ports.tcp },
      { transport: 'ws', address: '127.0.0.1', port: ports.ws },
    ]);
    await held(data.interfaces);
    expect(data.nodes).toEqual([{ type: 'embedded', address: '127.0.0.1', state: 'running', started_at: expect.any(String) }]);
    // The codecs stay beside them, for the clients that read them.
    expect(data.codecs).toEqual(expect.any(Array));

    const port = await freePort();
    const saved = await admin.patch('/settings/sip', { port });
    expect(saved.statusCode, saved.body).toBe(200);
    const moved = saved.json().data.interfaces as Iface[];
    expect(moved.filter((i) => i.transport === 'udp' || i.transport === 'tcp').map((i) => i.port)).toEqual([port, port]);
    await held(moved);
    expect((await admin.get('/settings/sip')).json().data.interfaces).toEqual(moved);
  });
});
