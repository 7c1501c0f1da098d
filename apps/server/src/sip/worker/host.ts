import type { ResourceLimits, Worker } from 'node:worker_threads';
import { answerOf, levelsOf, SpareWorkers, WorkerSupervisor } from '../../core/worker-threads.js';
import type { SipActiveCall } from '../call.js';
import type { SipNetworkSettings } from '../local-address.js';
import type { SipServer, SipServerOptions } from '../server.js';
import type { TransportCounters } from '../transport.js';
import type { SipCallEvent, SipContact } from '../types.js';
import type { Answer, ControlMethod, FromWorker, SipPorts, SipWorkerData, SipWorkerServerOptions, ToWorker } from './protocol.js';

/**
 * The SIP server in a worker thread that this (main) thread supervises. The worker runs the whole
 * of sip/ (sockets, transactions, registrar, proxy); the directory and the observer stay here, on
 * the database, and the worker calls them over the thread's channel. When the worker dies (an
 * uncaught exception, out of memory, terminated), it is started again at once on the same ports,
 * with the UDP contacts it had registered: the registrations are mirrored here from its observer
 * events, so they outlive it. Calls and stream (TCP, TLS, WebSocket) connections die with it: their
 * calls are ended in the records, their phones register again.
 */

const ENTRY = new URL('./entry.mjs', import.meta.url);
const STREAM: ReadonlySet<SipContact['transport']> = new Set(['tcp', 'tls', 'ws', 'wss']);

/** SIP worker threads loaded in advance (core/worker-threads.ts): a dead one's replacement serves at once. */
export class SpareSipWorkers extends SpareWorkers {
  /** `resourceLimits`: heap limits of each worker, so that a runaway SIP server dies alone (and is started again). */
  constructor(resourceLimits?: ResourceLimits) {
    super(ENTRY, 'atrium-sip', resourceLimits);
  }
}

export interface SipWorkerOptions extends SipServerOptions {
  /** Where the worker comes from (and its replacements); absent: a set of its own, closed with the server. */
  spares?: SpareSipWorkers;
  /** How long a directory call may take before the SIP transaction that made it fails, default 10 s. */
  callTimeoutMs?: number;
}

export interface SupervisedSipServer extends SipServer {
  /** How often the worker died and was started again since start. */
  readonly crashes: number;
  /** Whether a worker is up and serving (false between a crash and its replacement's start). */
  readonly running: boolean;
  /** Where its replacement comes from. */
  readonly spares: SpareSipWorkers;
  /** The worker's thread, for tests that kill it (terminate()). */
  readonly worker: Worker;
  /** Resolves once the worker after the next crash (or the current one) serves. */
  whenRunning(): Promise<void>;
  /**
   * Tests of the supervisor: 'throw' throws inside the worker outside every handler, as a bug in the
   * SIP code would; 'oom' allocates until the worker's heap limit (resourceLimits) ends it.
   */
  crashForTest(how: 'throw' | 'oom', message?: string): void;
}

/** The names of an object's methods, its class's included (a class instance's are on its prototype). */
function methodNames(o: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const name of Object.getOwnPropertyNames(p))
      if (name !== 'constructor' && typeof (o as Record<string, unknown>)[name] === 'function') names.add(name);
  return [...names];
}

/** Starts the SIP server in a supervised worker thread; rejects as startSipServer would (EADDRINUSE and all). */
export async function startSipWorker(opts: SipWorkerOptions): Promise<SupervisedSipServer> {
  const { directory, observer, log, spares: given, callTimeoutMs = 10_000, ...serverOptions } = opts;
  const spares = given ?? new SpareSipWorkers();
  const directoryMethods = methodNames(directory);
  const logLevels = levelsOf(log);
  const base: SipWorkerServerOptions = serverOptions;

  // What outlives a worker: its ports, the network settings, the registrations, the open calls.
  let ports: SipPorts = {
    udp: opts.udpPort,
    tcp: opts.tcpPort,
    ws: opts.wsPort,
    ...(opts.tlsPort === undefined ? {} : { tls: opts.tlsPort }),
  };
  let network: SipNetworkSettings | null = null;
  const contacts = new Map<string, SipContact[]>();
  let calls: SipActiveCall[] = [];
  // The edge's counters: what dead workers counted, and the running one's latest.
  const zero = (): TransportCounters => ({ malformed: 0, sendFailures: 0, streamsClosed: 0 });
  const counted = zero();
  let current = zero();
  /** Calls told 'created' and not yet 'ended': the records a worker's death must close. */
  const open = new Map<string, { answered: boolean }>();

  const onRegistration = (contact: SipContact, change: 'added' | 'refreshed' | 'removed' | 'expired') => {
    const list = (contacts.get(contact.number) ?? []).filter((c) => c.uri !== contact.uri);
    if (change === 'added' || change === 'refreshed') list.unshift(contact);
    if (list.length > 0) contacts.set(contact.number, list);
    else contacts.delete(contact.number);
    observer.onRegistration?.(contact, change);
  };
  const onCallEvent = (event: SipCallEvent) => {
    if (event.type === 'created') open.set(event.callId, { answered: false });
    else if (event.type === 'answered') {
      const call = open.get(event.callId);
      if (call) call.answered = true;
    } else if (event.type === 'ended') open.delete(event.callId);
    observer.onCallEvent(event);
  };
  const notify = (method: string, args: unknown[]) => {
    if (method === 'onRegistration') onRegistration(args[0] as SipContact, args[1] as 'added');
    else if (method === 'onCallEvent') onCallEvent(args[0] as SipCallEvent);
    else (observer as unknown as Record<string, ((...a: unknown[]) => void) | undefined>)[method]?.(...args);
  };

  const directoryCall = (method: string, args: unknown[], id: number): Promise<Answer> =>
    answerOf(id, () => {
      const fn = (directory as unknown as Record<string, (...a: unknown[]) => unknown>)[method];
      if (typeof fn !== 'function') throw new Error(`the sip directory has no ${method}`);
      return fn.apply(directory, args);
    });

  const supervisor = new WorkerSupervisor<FromWorker, ControlMethod>({
    what: 'sip worker',
    log,
    spares,
    ownsSpares: !given,
    begin: (w) => {
      const live = Date.now();
      const seed = [...contacts.values()].flat().filter((c) => c.expiresAt > live);
      const data: SipWorkerData = {
        options: {
          ...base,
          udpPort: ports.udp,
          tcpPort: ports.tcp,
          wsPort: ports.ws,
          ...(ports.tls === undefined ? {} : { tlsPort: ports.tls }),
          ...(network ? { network } : {}),
          registrar: { ...base.registrar, contacts: seed },
        },
        directoryMethods,
        callTimeoutMs,
        logLevels,
      };
      w.postMessage({ type: 'start', data } satisfies ToWorker);
      return {
        message: (msg) => {
          switch (msg.type) {
            case 'call':
              void directoryCall(msg.method, msg.args, msg.id).then((answer) =>
                w.postMessage({ type: 'answer', ...answer } satisfies ToWorker),
              );
              return;
            case 'notify':
              notify(msg.method, msg.args);
              return;
            case 'calls':
              calls = msg.calls;
              return;
            case 'counters':
              current = msg.counters;
              return;
          }
        },
      };
    },
    ready: (msg) => {
      ports = msg.ports;
      network = msg.network;
    },
    // What died with the worker goes from the mirrors (and, for the records, from the observer).
    died: () => {
      const at = Date.now();
      for (const [callId, call] of open)
        onCallEvent({ type: 'ended', callId, outcome: call.answered ? 'answered' : 'failed', status: null, at });
      calls = [];
      for (const k of Object.keys(counted) as (keyof TransportCounters)[]) counted[k] += current[k];
      current = zero();
      for (const list of [...contacts.values()]) for (const c of list) if (STREAM.has(c.transport)) onRegistration(c, 'removed');
    },
    logFields: () => ({ ports, contacts: [...contacts.values()].flat().length }),
  });
  await supervisor.start();
  const running = () => supervisor.running;
  const control = (method: ControlMethod, args: unknown[]) => supervisor.control(method, args);

  return {
    get ports() {
      return ports;
    },
    contacts: (number) => {
      const now = Date.now();
      return (contacts.get(number) ?? []).filter((c) => c.expiresAt > now);
    },
    registrationCount: () => {
      const now = Date.now();
      let n = 0;
      for (const list of contacts.values()) n += list.filter((c) => c.expiresAt > now).length;
      return n;
    },
    endCall: async (callId) => (running() ? ((await control('endCall', [callId])) as boolean) : false),
    activeCalls: () => calls,
    counters: () => ({
      malformed: counted.malformed + current.malformed,
      sendFailures: counted.sendFailures + current.sendFailures,
      streamsClosed: counted.streamsClosed + current.streamsClosed,
    }),
    configure: (next) => {
      // Applied here at once (what `network` reads), and in the worker; a worker started again gets it too.
      network = { ...(network as SipNetworkSettings), ...next };
      if (running())
        control('configure', [next]).catch((err: unknown) =>
          log.warn({ err }, 'sip network settings: the worker died before it applied them'),
        );
    },
    get network() {
      return network as SipNetworkSettings;
    },
    get crashes() {
      return supervisor.crashes;
    },
    get running() {
      return supervisor.running;
    },
    get worker() {
      return supervisor.worker;
    },
    spares,
    whenRunning: () => supervisor.whenRunning(),
    crashForTest: (how, message = 'crash asked by a test') =>
      supervisor.worker.postMessage({ type: 'crash', how, message } satisfies ToWorker),
    // The worker closes its sockets itself (its BYEs and final answers go out), then goes.
    close: () => supervisor.close(5000),
  };
}
