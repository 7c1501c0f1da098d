/**
 * The device plane's thread (host.ts starts it through entry.mjs): the embedded MQTT broker (or
 * Atrium's client of an external one), the gateway that reads and validates every device message,
 * and the event intake, on an event loop of their own, so that a flood of device events cannot slow
 * the HTTP API. The devices service stays on the main thread: every device message but events is a
 * call to it (those of one turn in one message); events are stored here on PostgreSQL, or cross to
 * the main thread in batches on PGlite. It loads its code, then waits for its start message.
 */
import { readlinkSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import pg from 'pg';
import {
  answerControl,
  forwardingLog,
  nameThisThread,
  PendingCalls,
  type ThreadLogger,
  toWireError,
} from '../../../core/worker-threads.js';
import { type DeviceMessageHandlers, InvalidTaskError, type PresenceReport } from '../../../modules/devices/devices.gateway.js';
import type { NewEvent } from '../../../modules/devices/devices.repository.js';
import { idsOfSerialsOn, jsonText, storedJson, storeEventsByCopy } from '../../../modules/devices/event-copy.js';
import { EventIntake, type EventSink, type IntakeEvent } from '../../../modules/devices/event-intake.js';
import { type BrokerTls, type EmbeddedBroker, startEmbeddedBroker } from '../broker.js';
import { MqttGateway } from '../gateway.js';
import type { DevicePlaneData, FromPlane, PlaneCall, PlaneCallMethod, ToPlane } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('thread.ts runs as a worker thread');
const send = (msg: FromPlane) => port.postMessage(msg);
/** Set by the start message; nothing below runs before it. */
let data = null as unknown as DevicePlaneData;

let levels = new Set<string>();

const log: ThreadLogger = forwardingLog(send, () => levels);

/**
 * DEVICE_PLANE_CPU_PROF=file: a V8 CPU profile of this thread alone, written when the plane closes.
 * Node's --cpu-prof writes a worker's profile only when the thread ends by itself, and the
 * supervisor ends it with terminate(); a profile of the whole process would mix in the HTTP thread.
 */
const profileTo = process.env.DEVICE_PLANE_CPU_PROF;
const profiler = profileTo ? new Session() : null;
/** Started with the plane, once its log levels are known, so that a failure is told. */
function startProfiler(): void {
  if (!profiler) return;
  profiler.connect();
  profiler
    .post('Profiler.enable')
    .then(() => profiler.post('Profiler.start'))
    .catch((e: unknown) => log.warn({ err: (e as Error).message }, 'device plane: no CPU profile (the profiler did not start)'));
}
async function writeProfile(): Promise<void> {
  if (!profiler || !profileTo) return;
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profileTo, JSON.stringify(profile));
}

// --- calls on the main thread, those of one turn in one message ---------------------------------

const pending = new PendingCalls();
let outgoing: PlaneCall[] = [];

function call(method: PlaneCallMethod, args: unknown[], timeout = true): Promise<unknown> {
  // A main thread that does not answer fails this one call (a sign-in refused, a status not
  // recorded), not the plane. A batch of events is never timed out: sent twice, its events without
  // an event id would be stored twice; it waits for as long as the database does.
  return pending.add(`devices ${method}`, timeout ? data.callTimeoutMs : undefined, (id) => {
    if (!outgoing.length) setImmediate(flushCalls);
    outgoing.push({ id, method, args });
  });
}

function flushCalls(): void {
  const calls = outgoing;
  outgoing = [];
  if (calls.length) send({ type: 'calls', calls });
}

// --- where events go ----------------------------------------------------------------------------

/**
 * PostgreSQL: batches stored here on the plane's own small pool (COPY into the staging table, the new
 * ones moved on, commit), then told to the main thread for its listeners. The main thread pays
 * nothing per event but that one message per batch.
 */
class DatabaseSink implements EventSink {
  private readonly pool: pg.Pool;
  /** Which device each serial number is, remembered for a while (null: no such device). */
  private readonly devices = new Map<string, { device: { id: number; projectId: number } | null; until: number }>();
  /** Until when batches go the staged way (storeEventsByCopy) without trying the direct COPY first. */
  private stagedUntil = 0;

  constructor(url: string, statementTimeoutMs: number) {
    this.pool = new pg.Pool({
      connectionString: url,
      // Two batches written at once, or one beside a background look-up of senders.
      max: 3,
      statement_timeout: statementTimeoutMs,
      connectionTimeoutMillis: 5000,
      application_name: 'atrium-devices',
    });
    // A connection lost while idle (the database restarted) is replaced at the next batch.
    this.pool.on('error', () => undefined);
    // And one lost while checked out: pg-pool hears a client's errors only while it is idle, and an
    // unheard error would end the thread; the batch's statement fails and is written again.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  async store(batch: readonly IntakeEvent[]): Promise<void> {
    const now = Date.now();
    const client = await this.pool.connect();
    let rows: NewEvent[];
    let texts: string[];
    try {
      // A sender never seen (or seen not to be a device) is looked up before its batch is stored; a
      // known one is used while it is looked up again in the background, so a flood's batches do
      // not wait for ten thousand serial numbers every ten seconds.
      const unknown = new Set<string>();
      const stale = new Set<string>();
      for (const e of batch) {
        const hit = this.devices.get(e.serial);
        if (!hit || (hit.until <= now && !hit.device)) unknown.add(e.serial);
        else if (hit.until <= now) stale.add(e.serial);
      }
      if (unknown.size) await this.lookUp(client, unknown, now);
      if (stale.size) this.refresh(stale, now);
      rows = [];
      // Each event's data as the intake made it at take time: for the COPY, and again below for the main thread.
      texts = [];
      let at = 0;
      let atDate = new Date(0);
      for (const e of batch) {
        const d = this.devices.get(e.serial)?.device;
        if (!d) continue; // not a device (any more): answered, nothing to store
        if (e.receivedAt !== at) {
          at = e.receivedAt;
          atDate = new Date(at);
        }
        rows.push(newEvent(d, e, atDate));
        texts.push(e.data);
      }
      const direct = Date.now() >= this.stagedUntil;
      const { staged } = await storeEventsByCopy(client, rows, texts, direct);
      if (staged && direct) this.stagedUntil = Date.now() + STAGED_FOR_MS;
    } catch (e) {
      client.release(e instanceof Error ? e : true);
      throw e;
    }
    client.release();
    // In pieces of STORED_PIECE rows: each is one task of the main thread's loop (its JSON read and
    // its listeners), so a backlog of fifty thousand committed at once never holds an HTTP answer
    // behind it for long.
    for (let i = 0; i < rows.length; i += STORED_PIECE) {
      const types = new Set<string>();
      for (let j = i; j < Math.min(rows.length, i + STORED_PIECE); j++) types.add((rows[j] as NewEvent).type);
      send({ type: 'stored', events: storedJson(rows, texts, i, STORED_PIECE), types: [...types] });
    }
  }

  private async lookUp(client: pg.ClientBase, serials: ReadonlySet<string>, now: number): Promise<void> {
    const found = await idsOfSerialsOn(client, [...serials]);
    if (this.devices.size + serials.size > 100_000) this.devices.clear();
    for (const serial of serials) this.devices.set(serial, { device: found.get(serial) ?? null, until: now + 10_000 });
  }

  private refresh(serials: ReadonlySet<string>, now: number): void {
    // One refresh at a time per serial: asked again only if this one fails.
    for (const serial of serials) {
      const hit = this.devices.get(serial);
      if (hit) hit.until = now + 10_000;
    }
    void this.pool.connect().then(
      (client) =>
        this.lookUp(client, serials, now).then(
          () => client.release(),
          (e: unknown) => {
            client.release(e instanceof Error ? e : true);
            for (const serial of serials) {
              const hit = this.devices.get(serial);
              if (hit) hit.until = 0;
            }
          },
        ),
      () => undefined,
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * After a batch the direct COPY could not take (a re-sent event), how long the next go the staged
 * way at once: devices re-send in runs after reconnecting, and each failed COPY is work thrown away.
 */
const STAGED_FOR_MS = 2000;

/** Rows of a committed batch told to the main thread in one message. */
const STORED_PIECE = 2000;

/**
 * An event as the table takes it (DevicesService.queueEvent's rules: a bad device time is the arrival
 * time). Its data goes as the intake's text beside it (storeEventsByCopy's `dataTexts`), never as an object.
 */
function newEvent(d: { id: number; projectId: number }, e: IntakeEvent, receivedAt: Date): NewEvent {
  const at = e.time ? new Date(e.time) : receivedAt;
  return {
    projectId: d.projectId,
    deviceId: d.id,
    type: e.type,
    identifier: e.identifier,
    eventId: e.eventId,
    data: DATA_AS_TEXT,
    occurredAt: Number.isNaN(at.getTime()) ? receivedAt : at,
    receivedAt,
  };
}

/** The data of a row whose data travels as text. */
const DATA_AS_TEXT: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * PGlite: the batch crosses to the main thread as one text of [serial, report, receivedAt] tuples,
 * answered once stored there; each report's data is spliced in as the intake's JSON text.
 */
const mainThreadSink: EventSink = {
  store: async (batch) => {
    let text = '[';
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i] as IntakeEvent;
      text += `${i ? ',' : ''}[${JSON.stringify(e.serial)},{"type":${JSON.stringify(e.type)},"identifier":${jsonText(e.identifier)},"event_id":${jsonText(e.eventId)},${e.time === undefined ? '' : `"time":${JSON.stringify(e.time)},`}"data":${e.data}},${e.receivedAt}]`;
    }
    await call('takeEvents', [`${text}]`], false);
  },
};

// --- the plane ------------------------------------------------------------------------------------

let broker: EmbeddedBroker | null = null;
let gateway: MqttGateway | null = null;
let intake: EventIntake | null = null;
let database: DatabaseSink | null = null;
let started: Promise<void> | null = null;

const credentials = {
  verify: (serial: string, password: string) =>
    call('verify', [serial, password]) as Promise<{ projectId: number; deviceId: number } | null>,
};

/** `port`: where it listens (a restart keeps the port the first start was given, 0 included). */
function startBroker(tls: BrokerTls | null, port?: number): Promise<EmbeddedBroker> {
  const b = data.broker;
  if (b.kind !== 'embedded') throw new Error('the device plane has no embedded broker');
  return startEmbeddedBroker({
    port: port ?? b.port,
    host: b.host,
    credentials,
    internal: b.internal,
    tls,
    onRefused: (reason, who) => log.debug({ reason, who }, 'mqtt broker: refused'),
  });
}

/**
 * Lowers this thread's CPU priority (its nice value), not the process's: on Linux setpriority() with
 * a thread id applies to that thread alone, and /proc/thread-self names it (`<pid>/task/<tid>`). The
 * HTTP thread keeps the default priority, so when the cores are short (a flood of events on a small
 * machine) the console's requests run first and the device plane takes what is left; with spare
 * cores nothing changes. Lowering needs no privilege. Where there is no /proc/thread-self (not
 * Linux) the plane runs at the process's priority, and says so once. Off unless DEVICE_PLANE_NICE
 * asks for it: see docs/decisions.md, "The device plane's thread priority".
 */
function lowerPriority(nice: number): void {
  if (nice <= 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) throw new Error('/proc/thread-self names no thread of its own');
    // Never raised: a process started at a lower priority than asked keeps it.
    if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
  } catch (e) {
    log.info({ err: (e as Error).message, nice }, 'device plane: its thread runs at the process priority (could not lower it)');
  }
}

async function start(given: DevicePlaneData): Promise<void> {
  data = given;
  nameThisThread('atrium-devices');
  levels = new Set(data.logLevels);
  startProfiler();
  lowerPriority(data.nice);
  database = data.databaseUrl ? new DatabaseSink(data.databaseUrl, data.statementTimeoutMs) : null;
  const events = new EventIntake(database ?? mainThreadSink, {
    heldMax: data.eventsHeldMax,
    // COPY takes a backlog in few transactions; a batch crossing to the main thread stays smaller.
    maxBatch: database ? 50_000 : 10_000,
    // Two connections write at once; PGlite's side takes one batch at a time.
    concurrency: database ? 2 : 1,
    countsStored: database !== null,
  });
  intake = events;
  const handlers: DeviceMessageHandlers = {
    onPresence: (serial: string, report: PresenceReport) => call('onPresence', [serial, report]),
    onTaskUpdate: async (serial, report) => void (await call('onTaskUpdate', [serial, report])),
    onSyncAck: async (serial, report) => void (await call('onSyncAck', [serial, report])),
    onSyncRequest: async (serial, report) => void (await call('onSyncRequest', [serial, report])),
    onScreenFrame: async (serial, frame) => void (await call('onScreenFrame', [serial, frame])),
    onLastSeen: async (seen) => void (await call('onLastSeen', [seen])),
    onEvent: (serial, report, stored) => events.onEvent(serial, report, stored),
    acceptEvent: (serial, report, stored) => events.acceptEvent(serial, report, stored),
    eventRoom: () => events.eventRoom(),
    eventsFull: () => events.full,
    // Read past once full while writes fail (the database away); at half as much again when the
    // writes stand still (a lock, a database not answering yet); at three times the bound whatever
    // the cause; and once the heap nears its limit. While batches commit, a full intake only grows
    // by what connections had already read when they were left waiting (aedes handles every packet
    // of a socket read): with ten thousand devices in a burst that passed half as much again, and
    // reading past then made thousands of devices reconnect against a database that was keeping up.
    // Three times bounds what a write that fails only after a while lets in meanwhile. On PGlite
    // the main thread tries a failed batch again itself, so a write that fails looks slow from here:
    // half as much again reads past at once, as before.
    eventsAway: () =>
      events.full &&
      (events.failing ||
        heapTight() ||
        events.held >= data.eventsHeldMax * 3 ||
        (events.held >= data.eventsHeldMax * 1.5 && (database === null || events.stalledFor(STALLED_MS)))),
  };
  const b = data.broker;
  if (b.kind === 'embedded') {
    try {
      broker = await startBroker(b.tls);
    } catch (e) {
      if (!b.tls) throw e;
      // MQTT over TLS could not open (its port taken): the broker runs without it, and says why.
      log.warn({ err: (e as Error).message, port: b.tls.port }, 'MQTT over TLS could not open; set MQTTS_PORT to a free port');
      broker = await startBroker(null);
    }
    gateway = MqttGateway.start({ local: broker.local, handlers, log });
  } else if (b.kind === 'amqp') {
    gateway = MqttGateway.start({ amqp: b.url, amqpQueue: b.queue, handlers, log });
  } else {
    const url = new URL(b.url);
    const username = url.username ? decodeURIComponent(url.username) : undefined;
    const password = url.password ? decodeURIComponent(url.password) : undefined;
    gateway = MqttGateway.start({
      url: b.url,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(b.clientId ? { clientId: b.clientId } : {}),
      shared: b.shared,
      handlers,
      log,
    });
  }
  setInterval(sendCounters, 1000).unref();
  send({ type: 'ready', port: broker?.port ?? null, tlsPort: broker?.tlsPort() ?? null });
}

/** How long without a commit, batches being written, before a full intake counts as standing still (ms). */
const STALLED_MS = 2000;
/** Share of the heap's limit past which a full intake reads further events past whatever else holds. */
const HEAP_TIGHT = 0.7;
let heapCheckedAt = 0;
let heapWasTight = false;
/**
 * Whether the plane's heap is near the limit it would die at (its resourceLimits): looked at every
 * 100 ms at most, since it is asked for each event while the intake is full. Used size counts garbage
 * not collected yet, so it errs towards reading past (which loses nothing) rather than dying (which
 * drops every device's connection).
 */
function heapTight(now = Date.now()): boolean {
  if (now - heapCheckedAt >= 100) {
    heapCheckedAt = now;
    const h = getHeapStatistics();
    heapWasTight = h.used_heap_size > h.heap_size_limit * HEAP_TIGHT;
  }
  return heapWasTight;
}

function sendCounters(): void {
  if (!gateway || !intake) return;
  // This isolate's heap (a worker's own): what the plane holds against its resourceLimits.
  const heap = getHeapStatistics();
  send({
    type: 'counters',
    gateway: gateway.stats,
    intake: intake.snapshot(),
    tlsPort: broker?.tlsPort() ?? null,
    heap: { used: heap.used_heap_size, limit: heap.heap_size_limit },
  });
}

async function control(method: string, args: unknown[]): Promise<unknown> {
  if (!started) throw new Error('device plane: control before start');
  await started;
  const g = gateway as MqttGateway;
  switch (method) {
    case 'sendTask':
      try {
        return await g.sendTask(args[0] as string, args[1] as Parameters<MqttGateway['sendTask']>[1]);
      } catch (e) {
        // The main thread tells a task that can never go (failed now) from one that waits.
        if (e instanceof InvalidTaskError) e.name = 'InvalidTaskError';
        throw e;
      }
    case 'sendInput':
      return g.sendInput(args[0] as string, args[1] as Parameters<MqttGateway['sendInput']>[1]);
    case 'holdsOnline':
      return (args[0] as string[]).filter((serial) => g.isOnline(serial));
    case 'endSessions':
      return broker?.accounts.endSessions(args[0] as string);
    case 'setTls':
      if (!broker) throw new Error('the broker is not running');
      await broker.setTls(args[0] as BrokerTls | null);
      sendCounters();
      return broker.tlsPort();
    case 'restartBroker': {
      // Every client is dropped and reconnects; the gateway follows the new broker.
      const at = broker?.port;
      await broker?.close();
      broker = null;
      broker = await startBroker(args[0] as BrokerTls | null, at);
      await g.useLocalBroker(broker.local);
      sendCounters();
      return broker.tlsPort();
    }
    case 'close':
      // The gateway first (it hands over last-seen times), then what the intake still stores, then the sockets.
      await g.close();
      await intake?.close();
      await broker?.close();
      await database?.close().catch(() => undefined);
      sendCounters();
      await writeProfile();
      return undefined;
    default:
      throw new Error(`unknown device plane control ${method}`);
  }
}

port.on('message', (msg: ToPlane) => {
  switch (msg.type) {
    case 'answers':
      for (const a of msg.answers) pending.answered(a);
      return;
    case 'control':
      answerControl(send, msg.id, () => control(msg.method, msg.args));
      return;
    case 'start':
      if (started) throw new Error('device plane: started twice');
      started = start(msg.data);
      started.catch((e: unknown) => send({ type: 'failed', error: toWireError(e) }));
      return;
    case 'crash':
      setImmediate(() => {
        throw new Error(msg.message);
      });
      return;
  }
});

send({ type: 'loaded' });
