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
}

/** Any number of simulated devices, started and stopped together. */
export class Fleet {
  readonly devices: SimDevice[];

  constructor(opts: FleetOptions) {
    const { devices, discovery, concurrency: _c, ...common } = opts;
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
  }

  private readonly concurrency: number;

  get(serial: string): SimDevice | undefined {
    return this.devices.find((d) => d.serial === serial);
  }

  /** Starts every device; resolves with those the broker refused (and why). */
  async start(): Promise<{ serial: string; error: string }[]> {
    const refused: { serial: string; error: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < this.devices.length) {
        const d = this.devices[next++] as SimDevice;
        await d.start().catch((e: Error) => refused.push({ serial: d.serial, error: e.message }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, this.devices.length) }, worker));
    return refused;
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
