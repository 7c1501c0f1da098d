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
  /**
   * Devices the broker refuses (not initialised yet, or initialised with another password) keep
   * trying, after a pause doubled each time from `retryDelayMs` up to `maxRetryDelayMs` (default
   * 30 s), until they are accepted or the fleet stops: a device started before an installer
   * initialises it comes online once they do.
   */
  waitForInit?: boolean;
  maxRetryDelayMs?: number;
  /** Where waiting devices say why they wait. */
  log?: (line: string) => void;
  /**
   * Asked for a device's password again before each new attempt after a refusal (e.g. initialising
   * it through the API); the device's own password when absent.
   */
  passwordOf?: (serial: string) => Promise<string>;
}

/** A refusal by the broker: trying again would change nothing. */
const REFUSED = /bad user ?name|not authori[sz]ed|identifier rejected|banned/i;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Any number of simulated devices, started and stopped together. */
export class Fleet {
  readonly devices: SimDevice[];

  constructor(opts: FleetOptions) {
    const {
      devices,
      discovery,
      concurrency: _c,
      attempts: _a,
      retryDelayMs: _r,
      waitForInit: _w,
      maxRetryDelayMs: _m,
      passwordOf: _p,
      ...common
    } = opts;
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
    this.waitForInit = opts.waitForInit ?? false;
    this.maxRetryDelayMs = opts.maxRetryDelayMs ?? 30_000;
    this.log = opts.log ?? (() => undefined);
    this.passwordOf = opts.passwordOf;
    this.bySerial = new Map(this.devices.map((d) => [d.serial, d]));
  }

  private readonly concurrency: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly waitForInit: boolean;
  private readonly maxRetryDelayMs: number;
  private readonly log: (line: string) => void;
  private readonly passwordOf: ((serial: string) => Promise<string>) | undefined;
  private stopping = false;
  /** Pauses of waiting devices, cut short by stop(). */
  private readonly pauses = new Set<() => void>();
  private readonly waiting = new Set<Promise<void>>();
  /** Devices the broker refused and that are waiting to try again (`waitForInit`). */
  readonly waitingSerials = new Set<string>();
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
    if (!this.waitForInit) return final;
    // Refused devices wait in the background for their initialisation; the others are reported.
    for (const f of final.filter((x) => REFUSED.test(x.error))) {
      const device = this.bySerial.get(f.serial) as SimDevice;
      const waiting = this.waitUntilAccepted(device, f.error).finally(() => this.waiting.delete(waiting));
      this.waiting.add(waiting);
    }
    return final.filter((f) => !REFUSED.test(f.error));
  }

  private pauseUnlessStopped(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.pauses.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pauses.add(done);
    });
  }

  /** Tries a refused device again and again, backing off, until the broker accepts it or the fleet stops. */
  private async waitUntilAccepted(device: SimDevice, firstError: string): Promise<void> {
    this.waitingSerials.add(device.serial);
    let error = firstError;
    for (let round = 0; !this.stopping; round++) {
      const pause = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** round) * (0.75 + Math.random() / 2);
      this.log(`${device.serial}: refused by the broker (${error}); not initialised yet? trying again in ${Math.round(pause / 1000)} s`);
      await this.pauseUnlessStopped(pause);
      if (this.stopping) break;
      try {
        const password = this.passwordOf ? await this.passwordOf(device.serial) : undefined;
        await device.start(password);
        this.log(`${device.serial}: online`);
        break;
      } catch (e) {
        error = (e as Error).message;
      }
    }
    this.waitingSerials.delete(device.serial);
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
    this.stopping = true;
    for (const wake of [...this.pauses]) wake();
    await Promise.all([...this.waiting]);
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
