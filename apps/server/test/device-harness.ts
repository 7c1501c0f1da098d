import type { DeviceType } from '@atrium/contract';
import { SimDevice, type SimDeviceOptions } from '@atrium/device-sim';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { queryRows } from '../src/core/db/client.js';
import { type EmbeddedBroker, newInternalCredential, startEmbeddedBroker } from '../src/gateways/mqtt/broker.js';
import { MqttGateway } from '../src/gateways/mqtt/gateway.js';
import type { TestApp } from './helpers.js';
import { adminClient } from './helpers.js';

/**
 * A test app wired to a real embedded broker and Atrium's own gateway, as `npm start` wires them,
 * with simulated devices made through the API (created, initialised, online): the test double of
 * every area that speaks to devices.
 */
export interface DeviceHarness {
  broker: EmbeddedBroker;
  /** Atrium's own client of the broker (its counters of dropped messages). */
  gateway: MqttGateway;
  url: string;
  /** Creates a device through the API, initialises it, brings its simulator online and waits for its first full sync. */
  device(opts: {
    serial: string;
    type?: DeviceType;
    model?: string;
    groupId?: number;
    sim?: Partial<SimDeviceOptions>;
  }): Promise<{ id: number; serial: string; sim: SimDevice }>;
  /** Waits until every sync task of a device is completed (or stopped: superseded by a full sync). */
  synced(deviceId: number): Promise<void>;
  close(): Promise<void>;
}

export async function deviceHarness(t: TestApp): Promise<DeviceHarness> {
  const internal = newInternalCredential();
  const broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1', credentials: t.app.services.devices, internal });
  t.app.services.devices.attachAccounts(broker.accounts);
  const url = `mqtt://127.0.0.1:${broker.port}`;
  // Quiet, but for a close that hangs: its warning says where (the broker link or which devices' messages).
  const log = {
    info: () => undefined,
    error: () => undefined,
    warn: (o: object, m: string) => (m.includes('still closing') ? console.warn(`${m} ${JSON.stringify(o)}`) : undefined),
  };
  const gateway = await MqttGateway.connect({ url, ...internal, handlers: t.app.services.devices, log });
  t.app.services.devices.attachGateway(gateway);
  const sims: SimDevice[] = [];
  const synced = async (deviceId: number) => {
    await expect
      .poll(
        async () =>
          (
            await queryRows<{ n: number }>(
              t.database.db,
              sql`SELECT count(*)::int AS n FROM device_tasks WHERE device_id = ${deviceId} AND type = 'sync' AND state NOT IN ('completed', 'stopped')`,
            )
          )[0]?.n,
        { timeout: 10_000 },
      )
      .toBe(0);
  };
  return {
    broker,
    gateway,
    url,
    async device({ serial, type = 'panel', model, groupId = t.project.rootGroupId, sim: extra = {} }) {
      const admin = await adminClient(t);
      const created = await admin.put('/devices', {
        name: serial,
        type,
        model: model ?? (type === 'panel' ? 'AP-100' : undefined),
        serial_number: serial,
        domain_id: groupId,
      });
      expect(created.statusCode, created.body).toBe(200);
      const d = created.json().data as { id: number; model: string };
      const { password } = (await admin.post(`/devices/${d.id}/init/apply`, {})).json().data as { password: string };
      const sim = new SimDevice({ url, serial, password, type, model: d.model, heartbeatMs: 500, ...extra });
      sims.push(sim);
      await sim.start();
      await expect.poll(async () => (await admin.get(`/devices/${d.id}`)).json().data.online, { timeout: 10_000 }).toBe(true);
      await expect.poll(() => sim.initialized, { timeout: 10_000 }).toBe(true);
      // The full sync every init brings is done too: the device is ready, and a test's own tasks come after it.
      await synced(d.id);
      return { id: d.id, serial, sim };
    },
    synced,
    async close() {
      // A close that once hung past the hook's minute under load: each step names itself when slow.
      const step = async (name: string, p: Promise<unknown>) => {
        const slow = setTimeout(() => console.warn(`device harness: ${name} still closing after 15 s`), 15_000);
        try {
          await p;
        } finally {
          clearTimeout(slow);
        }
      };
      await step('simulators', Promise.all(sims.map((s) => s.stop({ graceful: false }))));
      t.app.services.devices.attachGateway(null);
      await step('gateway', gateway.close());
      await step('broker', broker.close());
    },
  };
}
