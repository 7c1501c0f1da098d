// Webhook deliveries and DNS rebinding (issue 14): the endpoint's name is resolved once per attempt,
// checked, and the connection goes to that very address, whatever the name answers by then.

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { WebhooksService } from './webhooks.service.js';

let t: TestApp;
let server: Server;
let port: number;
const got: { host: string | undefined; path: string | undefined }[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  // The app's own worker (system DNS, private addresses refused) must not take these deliveries.
  await t.app.services.webhooks.stop();
  server = createServer((req, res) => {
    got.push({ host: req.headers.host, path: req.url });
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await t?.close();
});

/** An endpoint and one delivery due now; answers the delivery's id. */
async function due(url: string): Promise<number> {
  const [e] = await queryRows<{ id: number }>(
    t.database.db,
    sql`INSERT INTO webhook_endpoints (project_id, name, url, secret, event_types)
      VALUES (${t.project.projectId}, 'hook', ${url}, 'whsec_test', ARRAY['audit.user']) RETURNING id`,
  );
  const [d] = await queryRows<{ id: number }>(
    t.database.db,
    sql`INSERT INTO webhook_deliveries (endpoint_id, project_id, event_type, event_id, payload)
      VALUES (${e!.id}, ${t.project.projectId}, 'audit.user', ${randomUUID()}, '{"x":1}'::jsonb) RETURNING id`,
  );
  return d!.id;
}

const delivery = async (id: number) =>
  (
    await queryRows<{ status: string; attempts: number; error: string | null; response_status: number | null }>(
      t.database.db,
      sql`SELECT status, attempts, error, response_status FROM webhook_deliveries WHERE id = ${id}`,
    )
  )[0]!;

async function run(svc: WebhooksService, id: number) {
  await svc.start();
  try {
    await expect.poll(async () => (await delivery(id)).attempts, { timeout: 10_000 }).toBeGreaterThan(0);
  } finally {
    await svc.stop();
  }
  return delivery(id);
}

const service = (allowPrivate: boolean, resolve: (host: string) => Promise<string[]>) =>
  new WebhooksService(t.database.db, { log: t.app.log, allowPrivate, resolve, pollMs: 50, retryBaseMs: 60_000, timeoutMs: 700 });

describe('webhook deliveries connect to the address they checked', () => {
  it('connects to the resolved address, sending the endpoint’s own name as the host', async () => {
    // A name no system resolver knows: reached only through the address resolved (and allowed) here.
    const resolved: string[] = [];
    const svc = service(true, async (host) => {
      resolved.push(host);
      return ['127.0.0.1'];
    });
    const id = await due(`http://hooks.atrium-rebind.invalid:${port}/in`);
    const d = await run(svc, id);
    expect(d).toMatchObject({ status: 'succeeded', response_status: 200, error: null });
    expect(got).toContainEqual({ host: `hooks.atrium-rebind.invalid:${port}`, path: '/in' });
    expect(resolved).toEqual(['hooks.atrium-rebind.invalid']);
  });

  it('never reaches a private address through a name that passed the check as a public one', async () => {
    const before = got.length;
    // `localhost` answers the check with a public address; the system would say 127.0.0.1 when connecting.
    let calls = 0;
    const svc = service(false, async () => {
      calls++;
      return calls === 1 ? ['93.184.216.34'] : ['127.0.0.1'];
    });
    const id = await due(`http://localhost:${port}/rebound`);
    const d = await run(svc, id);
    expect(d.status).toBe('pending');
    expect(d.error).toBeTruthy();
    expect(calls).toBe(1);
    expect(got.length).toBe(before);
  });

  it('refuses a name whose addresses include a private one, before connecting', async () => {
    const before = got.length;
    const svc = service(false, async () => ['93.184.216.34', '127.0.0.1']);
    const id = await due(`http://mixed.atrium-rebind.invalid:${port}/mixed`);
    const d = await run(svc, id);
    expect(d.error).toBe('the address is private or cannot be resolved');
    expect(got.length).toBe(before);
  });
});
