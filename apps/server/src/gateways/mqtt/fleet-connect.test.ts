import { Fleet } from '@atrium/device-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedBroker, newInternalCredential, startEmbeddedBroker } from './broker.js';

// A connect storm: a broker too busy to answer a device in time must not leave it offline for good;
// the simulated fleet tries it again (fewer at once, after a pause), but never a device the broker refused.

const PASSWORD = 'fleet-device-password';
/** Sign-ins per serial; the first one of each "slow" device is answered only after its client gave up. */
const signIns = new Map<string, number>();
const internal = newInternalCredential();
let broker: EmbeddedBroker;

beforeAll(async () => {
  broker = await startEmbeddedBroker({
    port: 0,
    host: '127.0.0.1',
    internal,
    credentials: {
      verify: async (serial, password) => {
        const n = (signIns.get(serial) ?? 0) + 1;
        signIns.set(serial, n);
        if (serial.startsWith('SLOW') && n === 1) await new Promise((r) => setTimeout(r, 5000));
        return password === PASSWORD ? { projectId: 1, deviceId: 1 } : null;
      },
    },
  });
});
afterAll(async () => {
  await broker.close();
});

const url = () => `mqtt://127.0.0.1:${broker.port}`;

describe('simulated fleet connecting to a busy broker', () => {
  it('tries the devices the broker did not answer in time again until they are online, and reports how many', async () => {
    const fleet = new Fleet({
      url: url(),
      devices: [
        ...Array.from({ length: 4 }, (_, i) => ({ serial: `SLOW-${i}`, password: PASSWORD })),
        ...Array.from({ length: 4 }, (_, i) => ({ serial: `FAST-${i}`, password: PASSWORD })),
      ],
      connectTimeoutMs: 2000,
      reconnectMs: 0,
      attempts: 3,
      retryDelayMs: 50,
    });
    try {
      expect(await fleet.start()).toEqual([]);
      expect(fleet.devices.every((d) => d.connected)).toBe(true);
      // Every slow device was tried again and came online (a fast one may be too, on a loaded machine).
      expect(fleet.retried.devices).toBeGreaterThanOrEqual(4);
      expect(fleet.retried.recovered).toBe(fleet.retried.devices);
      for (let i = 0; i < 4; i++) expect(signIns.get(`SLOW-${i}`)).toBeGreaterThanOrEqual(2);
    } finally {
      await fleet.stop({ graceful: false });
    }
  }, 30_000);

  it('reports a device still unanswered after its last attempt, and does not retry one the broker refused', async () => {
    const fleet = new Fleet({
      url: url(),
      devices: [
        { serial: 'SLOW-once', password: PASSWORD },
        { serial: 'WRONG-1', password: 'not-the-password' },
      ],
      connectTimeoutMs: 2000,
      reconnectMs: 0,
      attempts: 1,
    });
    try {
      const failed = await fleet.start();
      expect(failed.map((f) => f.serial).sort()).toEqual(['SLOW-once', 'WRONG-1']);
      expect(failed.find((f) => f.serial === 'SLOW-once')?.error).toMatch(/timeout/i);
      expect(fleet.retried).toEqual({ devices: 1, recovered: 0 });
    } finally {
      await fleet.stop({ graceful: false });
    }
    const again = new Fleet({ url: url(), devices: [{ serial: 'WRONG-2', password: 'not-the-password' }], reconnectMs: 0, attempts: 4 });
    const refused = await again.start();
    expect(refused).toEqual([{ serial: 'WRONG-2', error: expect.stringMatching(/bad user ?name or password/i) }]);
    expect(signIns.get('WRONG-2')).toBe(1);
    await again.stop({ graceful: false });
  }, 30_000);
});
