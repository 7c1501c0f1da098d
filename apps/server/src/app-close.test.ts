import net from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { cutConnectionsLeftOnClose } from './app.js';

// A closing server waits for requests in flight, then cuts what is still open (app.ts).

describe('closing the HTTP server', () => {
  it('cuts a connection that never finishes its request after the grace period, and waits for one that does', async () => {
    const app = Fastify();
    cutConnectionsLeftOnClose(app, 400);
    app.get('/slow', async () => {
      await new Promise((r) => setTimeout(r, 200));
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    // Half a request: the server waits for the rest of its headers (not an idle connection).
    const stuck = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => stuck.once('connect', () => r()));
    stuck.write('GET /slow HTTP/1.1\r\nHost: x\r\n');
    let stuckClosed = false;
    stuck.on('close', () => {
      stuckClosed = true;
    });
    stuck.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    // A request in flight when the close begins is answered.
    const inFlight = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await app.close();
    const took = Date.now() - t0;
    expect(await inFlight).toEqual({ ok: true });
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(3000);
    await expect.poll(() => stuckClosed).toBe(true);
  });
});
