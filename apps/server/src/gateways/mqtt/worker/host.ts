import type { ResourceLimits, Worker } from 'node:worker_threads';
import { type Answer, answerOf, levelsOf, SpareWorkers, type ThreadLogger, WorkerSupervisor } from '../../../core/worker-threads.js';
import {
  type DeviceAccounts,
  type DeviceGateway,
  type DeviceInputMessage,
  type DeviceTaskMessage,
  InvalidTaskError,
  type PlaneHealth,
} from '../../../modules/devices/devices.gateway.js';
import type { IntakeSnapshot } from '../../../modules/devices/event-intake.js';
import type { BrokerControl } from '../../../modules/settings/project-settings.service.js';
import type { BrokerTls } from '../broker.js';
import type { GatewayStats } from '../gateway.js';
import type { DevicePlaneData, FromPlane, PlaneBroker, PlaneCall, PlaneCallMethod, PlaneControl, ToPlane } from './protocol.js';

/**
 * The device plane (embedded broker or Atrium's client of an external one, gateway, event intake)
 * in a worker thread that this (main) thread supervises, as sip/worker/host.ts does for SIP: the
 * devices service stays here and the plane calls it over the channel; when the worker dies it is
 * started again at once on the same port. Its devices reconnect and send again what had no PUBACK;
 * events are stored once per (device, event id), so nothing acknowledged is lost and nothing is
 * stored twice. See docs/decisions.md, "The device plane in its own thread".
 */

const ENTRY = new URL('./entry.mjs', import.meta.url);

/** The plane thread's nice value unless told otherwise (DEVICE_PLANE_NICE). */
export const DEFAULT_NICE = 0;

/** The devices service as the plane calls it: `takeEvents` stores a batch crossing from the plane (PGlite). */
export type PlaneServices = { [K in PlaneCallMethod]: (...args: never[]) => Promise<unknown> } & {
  /** A batch the plane committed itself (PostgreSQL), for the listeners of stored events. */
  eventsStored(events: string, types: readonly string[]): void;
};

export interface DevicePlaneOptions {
  broker: PlaneBroker;
  /** PostgreSQL's URL: the plane stores events itself; null (PGlite): batches cross to `services.takeEvents`. */
  databaseUrl: string | null;
  services: PlaneServices;
  log: ThreadLogger;
  statementTimeoutMs?: number;
  eventsHeldMax?: number;
  callTimeoutMs?: number;
  /** The plane thread's nice value (default 0: the process's priority). See thread.ts lowerPriority. */
  nice?: number;
  /** Where the worker and its replacements come from; absent: a set of its own, closed with the plane. */
  spares?: SpareWorkers;
}

export interface DevicePlane extends DeviceGateway {
  /** The embedded broker's port (null with an external broker). */
  readonly port: number | null;
  readonly stats: GatewayStats;
  /** The plane's event intake (backlog, stored, retries), for system information. */
  readonly eventIntake: IntakeSnapshot;
  /** The devices' accounts on the embedded broker: it checks passwords at sign-in, so only sessions are ended. */
  readonly accounts: DeviceAccounts;
  /**
   * The broker tab's status, restart and own certificate: `tls` reads the stored pair at each
   * restart; `tlsPort` is where MQTT over TLS opens when it did not listen yet.
   */
  brokerControl(tls: () => Promise<BrokerTls | null>, tlsPort: number): BrokerControl;
  readonly crashes: number;
  readonly running: boolean;
  /** The worker's thread, for tests that kill it (terminate()). */
  readonly worker: Worker;
  /** Resolves once the worker after the next crash (or the current one) serves. */
  whenRunning(): Promise<void>;
  /** Tests of the supervisor: throws inside the worker outside every handler, as a bug in the plane would. */
  crashForTest(message?: string): void;
  close(): Promise<void>;
}

/**
 * The plane's young generation (MB; V8's default in a worker is 32). A flood keeps each event alive
 * until its batch commits, so many survive a small nursery's scavenges and are copied again and
 * again: at 64 the garbage collector's share of the plane's CPU in `npm run bench -- devices` went
 * from 8.9 s to 6.0 s (2,000 devices, 650,000 events), for at most 32 MB more memory.
 */
const PLANE_YOUNG_GENERATION_MB = 64;

/**
 * The plane's old generation (MB). Without a bound V8 lets a heap that allocates fast grow to
 * several times what is alive: under a flood of 20,000 events/s the plane's heap reached 300–570 MB
 * with some 90–130 MB alive, and the server's RSS 680–960 MiB. Bounded, it collects sooner. At 256
 * (2,000 devices: peak RSS 541 MiB over the outage bench) ten thousand connected devices left too
 * little room: their connections alone hold some 130 MB (aedes' client, its socket and streams, about
 * 13 KB each), a held event some 830 bytes, so a burst against a working database ran the collector
 * without pause (its threads took more CPU than the plane) and twice killed the plane, dropping every
 * connection. At 512: capacity at 10,000 devices 0.30 of COPY against 0.08–0.19, and peak RSS over a
 * 120 s outage at 2,000 devices 544 MiB. The intake reads past before the heap nears it (thread.ts
 * heapTight); a plane that passed it anyway would die alone and be replaced, its devices sending again
 * what had no PUBACK.
 */
const PLANE_OLD_GENERATION_MB = 512;

/**
 * Device plane threads (core/worker-threads.ts); `resourceLimits` bound each one's heap. None waits
 * loaded: a whole idle thread costs some 150 MB, and devices whose plane died retry on their own
 * (a replacement loads in a second or two).
 */
export class SpareDevicePlanes extends SpareWorkers {
  constructor(resourceLimits?: ResourceLimits) {
    super(ENTRY, 'atrium-devices', resourceLimits, false);
  }
}

const zeroStats = (): GatewayStats => ({
  received: 0,
  handled: 0,
  dropped: { too_large: 0, not_json: 0, invalid: 0, unknown_topic: 0, overloaded: 0, handler_failed: 0 },
  tasksSent: 0,
  awaitingAck: 0,
  acknowledged: 0,
  acksOfClosedConnections: 0,
  readPaused: 0,
  deferred: 0,
  reconnectAsked: 0,
});
const zeroIntake = (): IntakeSnapshot => ({
  backlog: 0,
  oldestUnstoredMs: 0,
  stored: 0,
  writeRetries: 0,
  intakeFull: 0,
  unstoredAtStop: 0,
});

/** Starts the device plane in a supervised worker thread; rejects when it cannot start (EADDRINUSE and all). */
export async function startDevicePlane(opts: DevicePlaneOptions): Promise<DevicePlane> {
  const { services, log } = opts;
  const spares =
    opts.spares ??
    new SpareDevicePlanes({
      maxYoungGenerationSizeMb: PLANE_YOUNG_GENERATION_MB,
      maxOldGenerationSizeMb: PLANE_OLD_GENERATION_MB,
    });
  const base: DevicePlaneData = {
    broker: opts.broker,
    databaseUrl: opts.databaseUrl,
    statementTimeoutMs: opts.statementTimeoutMs ?? 15_000,
    eventsHeldMax: opts.eventsHeldMax ?? 100_000,
    logLevels: levelsOf(log),
    callTimeoutMs: opts.callTimeoutMs ?? 30_000,
    nice: opts.nice ?? DEFAULT_NICE,
  };
  let port: number | null = null;
  let tlsPort: number | null = null;
  let tls: BrokerTls | null = opts.broker.kind === 'embedded' ? opts.broker.tls : null;
  let startedAt = new Date();
  // What dead workers counted, and the running one's latest.
  const counted = zeroStats();
  let current = zeroStats();
  let intakeCounted = zeroIntake();
  let intake = zeroIntake();
  let heap = { used: 0, limit: 0 };

  /** Answers of one turn go back together. */
  const serviceCall = (c: PlaneCall): Promise<Answer> =>
    answerOf(c.id, () => (services[c.method] as (...a: unknown[]) => Promise<unknown>).apply(services, c.args));
  const answerer = (w: Worker) => {
    let queued: Answer[] = [];
    let gone = false;
    w.once('exit', () => {
      gone = true;
    });
    return (a: Answer) => {
      if (!queued.length)
        setImmediate(() => {
          const answers = queued;
          queued = [];
          // A worker that died meanwhile is gone with its calls: its replacement's devices ask again.
          // One still starting is answered (its devices sign in before it says it serves).
          if (!gone) w.postMessage({ type: 'answers', answers } satisfies ToPlane);
        });
      queued.push(a);
    };
  };

  const supervisor = new WorkerSupervisor<FromPlane, PlaneControl>({
    what: 'device plane',
    log,
    spares,
    ownsSpares: !opts.spares,
    begin: (w) => {
      const data: DevicePlaneData = {
        ...base,
        broker: base.broker.kind === 'embedded' ? { ...base.broker, port: port ?? base.broker.port, tls } : base.broker,
      };
      w.postMessage({ type: 'start', data } satisfies ToPlane);
      const answer = answerer(w);
      return {
        message: (msg) => {
          switch (msg.type) {
            case 'calls':
              for (const c of msg.calls) void serviceCall(c).then(answer);
              return;
            case 'stored':
              services.eventsStored(msg.events, msg.types);
              return;
            case 'counters':
              current = msg.gateway;
              intake = msg.intake;
              tlsPort = msg.tlsPort;
              heap = msg.heap;
              return;
          }
        },
      };
    },
    ready: (msg) => {
      port = msg.port;
      tlsPort = msg.tlsPort;
      startedAt = new Date();
    },
    died: () => {
      for (const k of [
        'received',
        'handled',
        'tasksSent',
        'acknowledged',
        'acksOfClosedConnections',
        'readPaused',
        'deferred',
        'reconnectAsked',
      ] as const)
        counted[k] += current[k];
      for (const [reason, n] of Object.entries(current.dropped)) counted.dropped[reason as keyof GatewayStats['dropped']] += n;
      current = zeroStats();
      // What it held unstored was never acknowledged: its devices send it again.
      intakeCounted = {
        ...intakeCounted,
        stored: intakeCounted.stored + intake.stored,
        writeRetries: intakeCounted.writeRetries + intake.writeRetries,
        intakeFull: intakeCounted.intakeFull + intake.intakeFull,
        unstoredAtStop: intakeCounted.unstoredAtStop + intake.unstoredAtStop + intake.backlog,
      };
      intake = zeroIntake();
    },
    logFields: () => ({ port }),
  });
  await supervisor.start();
  const running = () => supervisor.running;
  const control = (method: PlaneControl, args: unknown[]) => supervisor.control(method, args);
  const endSessions = async (serial: string) => {
    if (opts.broker.kind === 'embedded') await control('endSessions', [serial]);
  };

  return {
    get port() {
      return port;
    },
    get connected() {
      return supervisor.running;
    },
    get stats(): GatewayStats {
      const dropped = { ...counted.dropped };
      for (const [reason, n] of Object.entries(current.dropped)) dropped[reason as keyof typeof dropped] += n;
      return {
        received: counted.received + current.received,
        handled: counted.handled + current.handled,
        dropped,
        tasksSent: counted.tasksSent + current.tasksSent,
        awaitingAck: current.awaitingAck,
        acknowledged: counted.acknowledged + current.acknowledged,
        acksOfClosedConnections: counted.acksOfClosedConnections + current.acksOfClosedConnections,
        readPaused: counted.readPaused + current.readPaused,
        deferred: counted.deferred + current.deferred,
        reconnectAsked: counted.reconnectAsked + current.reconnectAsked,
      };
    },
    get eventIntake(): IntakeSnapshot {
      return {
        backlog: intake.backlog,
        oldestUnstoredMs: intake.oldestUnstoredMs,
        stored: intakeCounted.stored + intake.stored,
        writeRetries: intakeCounted.writeRetries + intake.writeRetries,
        intakeFull: intakeCounted.intakeFull + intake.intakeFull,
        unstoredAtStop: intakeCounted.unstoredAtStop + intake.unstoredAtStop,
      };
    },
    sendTask: async (serial: string, task: DeviceTaskMessage) => {
      try {
        await control('sendTask', [serial, task]);
      } catch (e) {
        if (e instanceof Error && e.name === 'InvalidTaskError') throw new InvalidTaskError(e.message);
        throw e;
      }
    },
    sendInput: async (serial: string, input: DeviceInputMessage) => {
      await control('sendInput', [serial, input]);
    },
    holdsOnline: async (serials: readonly string[]) => (serials.length ? ((await control('holdsOnline', [serials])) as string[]) : []),
    accounts: {
      upsertDevice: async () => undefined,
      enableDevice: async () => undefined,
      disableDevice: endSessions,
      removeDevice: endSessions,
      endSessions,
    },
    brokerControl: (tlsOf, configuredTlsPort) => ({
      status: () => ({ is_running: running(), started_at: running() ? startedAt.toISOString() : null, tls_port: tlsPort }),
      restart: async () => {
        tls = await tlsOf();
        tlsPort = (await control('restartBroker', [tls])) as number | null;
        startedAt = new Date();
      },
      applyTls: async (pair) => {
        // The port it listens on now stays (the configured one may be 0: any free port, chosen once).
        const next = pair ? { port: tlsPort ?? configuredTlsPort, ...pair } : null;
        tlsPort = (await control('setTls', [next])) as number | null;
        tls = next;
      },
    }),
    get crashes() {
      return supervisor.crashes;
    },
    get planeHealth(): PlaneHealth {
      return { heapUsed: heap.used, heapLimit: heap.limit, crashes: supervisor.crashes };
    },
    get running() {
      return supervisor.running;
    },
    get worker() {
      return supervisor.worker;
    },
    whenRunning: () => supervisor.whenRunning(),
    crashForTest: (message = 'crash asked by a test') =>
      supervisor.worker.postMessage({ type: 'crash', how: 'throw', message } satisfies ToPlane),
    // The plane stores what it took and hands over last-seen times, then closes its sockets.
    close: () => supervisor.close(15_000),
  };
}
