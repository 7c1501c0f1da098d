import { mqttTopics } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { type Db, queryRows } from '../src/core/db/client.js';

/**
 * A device that floods QoS 1 events and records every PUBACK it gets: what Atrium promised to keep.
 * Each event carries an event id (`<serial>-<n>`); the device keeps at most `window` unacknowledged in
 * flight, and sends again after a reconnect whatever has no PUBACK yet (mqtt.js's own store, clean
 * session off), as a real device does.
 */
export class AckingPublisher {
  readonly acked = new Set<number>();
  /** When each PUBACK arrived (ms since the epoch), by event number. */
  readonly ackedAt = new Map<number, number>();
  /** Connections lost (each followed by a reconnect): a device whose pings went unanswered loses its own. */
  closes = 0;
  private next = 0;
  private inFlight = 0;
  private done: (() => void) | null = null;

  private constructor(
    readonly serial: string,
    readonly client: MqttClient,
  ) {}

  /** `keepaliveS`: its MQTT keep-alive (seconds, default 30). */
  static async connect(url: string, serial: string, password: string, keepaliveS = 30): Promise<AckingPublisher> {
    const client = await mqtt.connectAsync(url, {
      username: serial,
      password,
      clientId: `acking-${serial}`,
      clean: false,
      protocolVersion: 4,
      reconnectPeriod: 200,
      connectTimeout: 5000,
      keepalive: keepaliveS,
    });
    client.on('error', () => undefined);
    const publisher = new AckingPublisher(serial, client);
    client.on('close', () => publisher.closes++);
    return publisher;
  }

  /** Sends `count` more events, at most `window` unacknowledged at once; resolves once every one is acknowledged. */
  send(count: number, window: number): Promise<void> {
    const last = this.next + count;
    return new Promise<void>((resolve) => {
      this.done = resolve;
      const pump = () => {
        while (this.inFlight < window && this.next < last) {
          const n = this.next++;
          this.inFlight++;
          const event = { event_id: `${this.serial}-${n}`, type: 'sensor', identifier: null, data: { sensor: 'durability', value: n } };
          this.client.publish(mqttTopics.events(this.serial), JSON.stringify(event), { qos: 1 }, (err) => {
            this.inFlight--;
            if (!err) {
              this.acked.add(n);
              this.ackedAt.set(n, Date.now());
            }
            if (this.next >= last && this.inFlight === 0) this.done?.();
            else pump();
          });
        }
      };
      pump();
    });
  }

  /** From the first event again, as a device that lost the PUBACKs it had: the same event ids. */
  rewind(): void {
    this.next = 0;
    this.acked.clear();
    this.ackedAt.clear();
  }

  async close(): Promise<void> {
    await this.client.endAsync(true).catch(() => undefined);
  }
}

/**
 * What the publishers were promised and what the table holds: events acknowledged and not stored
 * (lost), and events stored more than once (by their event id).
 */
export async function countAcknowledged(
  db: Db,
  publishers: readonly AckingPublisher[],
): Promise<{ acknowledged: number; lost: number; storedTwice: number; stored: number }> {
  let acknowledged = 0;
  let lost = 0;
  let storedTwice = 0;
  let stored = 0;
  for (const p of publishers) {
    // By the event id the device sent inside the event (data), which does not depend on the column made to keep it once.
    const rows = await queryRows<{ n: string; times: number }>(
      db,
      sql`SELECT e.data->>'value' AS n, count(*)::int AS times FROM device_events e JOIN devices d ON d.id = e.device_id
          WHERE d.serial_number = ${p.serial} GROUP BY 1`,
    );
    const times = new Map(rows.map((r) => [Number(r.n), Number(r.times)]));
    acknowledged += p.acked.size;
    for (const n of p.acked) if (!times.has(n)) lost++;
    for (const t of times.values()) {
      stored += t;
      if (t > 1) storedTwice += t - 1;
    }
  }
  return { acknowledged, lost, storedTwice, stored };
}
