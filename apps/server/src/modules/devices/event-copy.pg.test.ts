// The device plane's write of a batch on PostgreSQL: straight into device_events by COPY while no
// event in it is a re-sent one, and through the staging table (each event id once, a deleted
// device's events left out) when the direct COPY cannot take it — nothing half-written either way.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import type { NewEvent } from './devices.repository.js';
import { storeEventsByCopy } from './event-copy.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.runIf(onPostgres)('a batch of device events written by COPY (PostgreSQL)', () => {
  let t: TestApp;
  let conn: pg.Client;
  const ids: number[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    const admin = await adminClient(t);
    for (const serial of ['COPY-1', 'COPY-2']) {
      const r = await admin.put('/devices', {
        name: serial,
        type: 'panel',
        model: 'AP-100',
        serial_number: serial,
        domain_id: t.project.rootGroupId,
      });
      expect(r.statusCode, r.body).toBe(200);
      ids.push((r.json().data as { id: number }).id);
    }
    const [row] = await queryRows<{ name: string }>(t.database.db, sql`SELECT current_database() AS name`);
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.pathname = `/${row?.name}`;
    conn = new pg.Client({ connectionString: url.toString() });
    await conn.connect();
  }, 60_000);
  afterAll(async () => {
    await conn?.end();
    await t?.close();
  });

  const at = new Date('2026-11-29T10:00:00Z');
  const event = (deviceId: number, eventId: string | null): NewEvent => ({
    projectId: t.project.projectId,
    deviceId,
    type: 'sensor',
    identifier: null,
    eventId,
    data: { sensor: 't', value: 1, ...(eventId ? { event_id: eventId } : {}) },
    occurredAt: at,
    receivedAt: at,
  });
  const store = (rows: NewEvent[], direct: boolean) => storeEventsByCopy(conn, rows, undefined, direct);
  const stored = async () =>
    (
      await conn.query<{ device_id: number; event_id: string | null; n: string }>(
        'SELECT device_id, event_id, count(*) AS n FROM device_events GROUP BY device_id, event_id ORDER BY device_id, event_id',
      )
    ).rows.map((r) => `${r.device_id}:${r.event_id}:${r.n}`);

  it('writes a batch of new events directly, and one holding a re-sent event (or one sent twice) through the staging table, each event id once', async () => {
    const [a, b] = ids as [number, number];
    expect(await store([event(a, 'E-1'), event(b, 'E-1'), event(a, null)], true)).toEqual({ staged: false });
    // E-1 of device a again, beside a new one: the direct COPY fails whole, the staged way keeps the new one.
    expect(await store([event(a, 'E-2'), event(a, 'E-1'), event(a, null)], true)).toEqual({ staged: true });
    // Twice in one batch.
    expect(await store([event(b, 'E-3'), event(b, 'E-3')], true)).toEqual({ staged: true });
    // Asked to go the staged way at once.
    expect(await store([event(b, 'E-4')], false)).toEqual({ staged: true });
    expect(await stored()).toEqual([`${a}:E-1:1`, `${a}:E-2:1`, `${a}:null:2`, `${b}:E-1:1`, `${b}:E-3:1`, `${b}:E-4:1`]);
    // The connection is usable after the failed COPY: no transaction left open.
    expect((await conn.query<{ s: string }>('SELECT 1 AS s')).rows).toEqual([{ s: 1 }]);
  });

  it('takes a batch too large for the socket to swallow at once whose COPY the server refuses early, with nothing written late', async () => {
    // The server refuses the direct COPY at its second row while most of the batch still waits to
    // be sent: none of that may be written after the refusal (into the staged COPY that follows).
    const [a] = ids as [number];
    const pad = 'x'.repeat(400);
    const big = [event(a, 'E-1'), ...Array.from({ length: 40_000 }, (_, i) => ({ ...event(a, `BIG-${i}`), data: { pad, i } }))];
    expect(await store(big, true)).toEqual({ staged: true });
    const [row] = (
      await conn.query<{ n: string; bad: string }>(
        `SELECT count(*) AS n, count(*) FILTER (WHERE (data->>'i')::int <> substr(event_id, 5)::int) AS bad FROM device_events WHERE event_id LIKE 'BIG-%'`,
      )
    ).rows;
    expect(row).toEqual({ n: '40000', bad: '0' });
    await conn.query(`DELETE FROM device_events WHERE event_id LIKE 'BIG-%'`);
  }, 60_000);

  it('leaves out the events of a device deleted meanwhile, storing the rest of its batch', async () => {
    const [a, b] = ids as [number, number];
    const admin = await adminClient(t);
    expect((await admin.delete(`/devices/${b}`)).statusCode).toBe(200);
    expect(await store([event(a, 'E-5'), event(b, 'E-5')], true)).toEqual({ staged: true });
    expect(await stored()).toEqual([`${a}:E-1:1`, `${a}:E-2:1`, `${a}:E-5:1`, `${a}:null:2`]);
  });

  it('fails on what the staging table cannot settle either, leaving nothing of the batch', async () => {
    const [a] = ids as [number];
    const before = await stored();
    const bad = { ...event(a, 'E-6'), type: null as unknown as string }; // type is NOT NULL
    await expect(store([event(a, 'E-7'), bad], true)).rejects.toMatchObject({ code: '23502' });
    expect(await stored()).toEqual(before);
    expect((await conn.query('SELECT 1 AS s')).rows).toEqual([{ s: 1 }]);
  });
});
