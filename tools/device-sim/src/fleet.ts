import { DEVICE_TYPES, type DeviceType, ipv4ToNumber, numberToIpv4 } from '@atrium/contract';
import { SimDevice, type SimDeviceOptions } from './device.js';

export interface FleetDevice {
  serial: string;
  password: string;
  type?: DeviceType;
  model?: string;
}

export interface FleetOptions extends Omit<SimDeviceOptions, 'serial' | 'password' | 'type' | 'model' | 'discovery'> {
  devices: readonly FleetDevice[];
  /** Each device answers discovery on its own address from `firstIp` on (127.0.0.x), all on `port`. */
  discovery?: { firstIp: string; port: number };
  /** Devices connecting at once (default 100). */
  concurrency?: number;
  /**
   * Connection attempts per device (default 1). A device the broker did not answer in time (a
   * connect storm on a busy machine) is tried again after the others, with fewer at once and after
   * a growing, jittered pause; one the broker refused (wrong password, unknown device) is not.
   */
  attempts?: number;
  /** The first pause before trying again (ms, default 1000; doubled each round). */
  retryDelayMs?: number;
}

/** A refusal by the broker: trying again would change nothing. */
const REFUSED = /bad user ?name|not authori[sz]ed|identifier rejected|banned/i;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Any number of simulated devices, started and stopped together. */
export class Fleet {
  readonly devices: SimDevice[];

  constructor(opts: FleetOptions) {
    const { devices, discovery, concurrency: _c, attempts: _a, retryDelayMs: _r, ...common } = opts;
    const first = discovery ? ipv4ToNumber(discovery.firstIp) : 0;
    this.devices = devices.map(
      (d, i) =>
        new SimDevice({
          ...common,
          serial: d.serial,
          password: d.password,
          ...(d.type ? { type: d.type } : {}),
          ...(d.model ? { model: d.model } : {}),
          ...(discovery ? { discovery: { ip: numberToIpv4(first + i), port: discovery.port } } : {}),
        }),
    );
    this.concurrency = opts.concurrency ?? 100;
    this.attempts = Math.max(1, opts.attempts ?? 1);
    this.retryDelayMs = opts.retryDelayMs ?? 1000;
    this.bySerial = new Map(this.devices.map((d) => [d.serial, d]));
  }

  private readonly concurrency: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly bySerial: Map<string, SimDevice>;
  /** Devices tried again after a first attempt failed, and how many of them came online then. */
  readonly retried = { devices: 0, recovered: 0 };

  get(serial: string): SimDevice | undefined {
    return this.bySerial.get(serial);
  }

  /** Starts every device; resolves with those that did not come online (and why). */
  async start(): Promise<{ serial: string; error: string }[]> {
    let pending = this.devices;
    let failed: { device: SimDevice; error: string }[] = [];
    const final: { serial: string; error: string }[] = [];
    for (let attempt = 1; ; attempt++) {
      failed = await this.startSome(pending, Math.max(1, Math.ceil(this.concurrency / 2 ** (attempt - 1))));
      const again = failed.filter((f) => !REFUSED.test(f.error));
      for (const f of failed) if (REFUSED.test(f.error)) final.push({ serial: f.device.serial, error: f.error });
      if (attempt === 1) this.retried.devices = again.length;
      if (!again.length || attempt >= this.attempts) {
        final.push(...again.map((f) => ({ serial: f.device.serial, error: f.error })));
        break;
      }
      // Backing off, jittered so the retried devices do not arrive together again.
      await sleep(this.retryDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random()));
      pending = again.map((f) => f.device);
    }
    const retriedLeft = final.filter((f) => !REFUSED.test(f.error)).length;
    this.retried.recovered = this.retried.devices - retriedLeft;
    return final;
  }

  private async startSome(devices: readonly SimDevice[], concurrency: number): Promise<{ device: SimDevice; error: string }[]> {
    const failed: { device: SimDevice; error: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < devices.length) {
        const d = devices[next++] as SimDevice;
        await d.start().catch((e: Error) => failed.push({ device: d, error: e.message }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, devices.length) }, worker));
    return failed;
  }

  async stop(options?: { graceful?: boolean }): Promise<void> {
    await Promise.all(this.devices.map((d) => d.stop(options)));
  }
}

/** `count` devices of each type (serials `{prefix}-{type}-{n}`), all with one password. */
export function generateDevices(
  count: number,
  password: string,
  { prefix = 'SIM', types = DEVICE_TYPES }: { prefix?: string; types?: readonly DeviceType[] } = {},
): FleetDevice[] {
  return types.flatMap((type) =>
    Array.from({ length: count }, (_, i) => ({
      serial: `${prefix}-${type.replace('_', '')}-${String(i + 1).padStart(4, '0')}`,
      password,
      type,
    })),
  );
}
