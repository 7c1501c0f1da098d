/**
 * The event intake of the device plane's thread (gateways/mqtt/worker): the events the gateway takes
 * wait here, unacknowledged, and go to their sink in batches (what arrives while one batch is being
 * stored joins the next, so under load batches grow instead of queueing). A batch is tried again
 * until it is stored; only then are its events acknowledged (PUBACK). Past `heldMax` unstored events
 * the gateway is asked to stop reading: a database that is slow or away costs bounded memory.
 */
import type { EventReport, EventStored } from './devices.gateway.js';
import { withoutNul } from './event-copy.js';

/**
 * An event as the intake holds it: whose (serial number), what, and when the plane heard of it (ms).
 * Its data is kept as the JSON text the COPY writes (without NUL), made when the event is taken: a
 * database outage holds a fleet's in-flight windows here (2,000 devices × 100), and a decoded data
 * object costs several times its text in the heap, and more in the collector once it outlives the
 * young generation.
 */
export interface IntakeEvent {
  serial: string;
  type: string;
  identifier: string | null;
  eventId: string | null;
  /** The device's ISO-8601 time, if it gave one. */
  time: string | undefined;
  data: string;
  receivedAt: number;
}

/** The intake's form of a device's event report. */
export function intakeEvent(serial: string, report: EventReport, receivedAt: number): IntakeEvent {
  return {
    serial,
    type: report.type,
    identifier: report.identifier ?? null,
    eventId: report.event_id ?? null,
    time: report.time,
    data: withoutNul(JSON.stringify(report.data ?? {})),
    receivedAt,
  };
}

/** Where batches go: the database on the plane's own connections, or the main thread (PGlite lives there). */
export interface EventSink {
  /** Resolves once the batch is committed; a rejection is tried again. */
  store(batch: readonly IntakeEvent[]): Promise<void>;
}

/** What the intake shows system information and /metrics (DeviceEventsInfo's share of it). */
export interface IntakeSnapshot {
  backlog: number;
  oldestUnstoredMs: number;
  stored: number;
  writeRetries: number;
  intakeFull: number;
  unstoredAtStop: number;
}

/** A batch being stored: its events, their acknowledgements, and whether its last attempt failed. */
interface Batch {
  events: IntakeEvent[];
  acks: (EventStored | undefined)[];
  failed: boolean;
}

/** Longest wait between two attempts at storing a batch (ms). */
const RETRY_MAX_MS = 5000;

export class EventIntake {
  private pending: IntakeEvent[] = [];
  private acks: (EventStored | undefined)[] = [];
  /** Batches being stored, oldest first, with their acknowledgements. */
  private readonly writing = new Set<Batch>();
  private scheduled = false;
  private closed = false;
  private readonly writes = new Set<Promise<void>>();
  private roomWaiters: (() => void)[] = [];
  private readonly counts = { stored: 0, writeRetries: 0, intakeFull: 0, unstoredAtStop: 0 };
  /** When a batch last committed, or writing last began after none ran (ms): how long the writes have stood still. */
  private progressAt = Date.now();

  /**
   * `heldMax`: unstored events past which the gateway stops reading; `maxBatch`: most events in one
   * batch; `concurrency`: batches being stored at once (each on its own connection; a re-sent event
   * in two of them is still stored once, by its event id); `countsStored`: whether this intake counts
   * what it stores (the main thread's service counts what crosses to it).
   */
  constructor(
    private readonly sink: EventSink,
    private readonly opts: { heldMax: number; maxBatch: number; concurrency: number; countsStored: boolean },
  ) {}

  /** Takes an event at once (the gateway's fast path): `stored` acknowledges it once committed. */
  acceptEvent(serial: string, report: EventReport, stored?: EventStored): boolean {
    if (this.closed) return false;
    this.pending.push(intakeEvent(serial, report, Date.now()));
    this.acks.push(stored);
    this.schedule();
    return true;
  }

  /** The same for the gateway's ordered path; a closed intake fails it (the device sends it again). */
  async onEvent(serial: string, report: EventReport, stored?: EventStored): Promise<void> {
    if (!this.acceptEvent(serial, report, stored)) throw new Error('the event intake is closed');
  }

  /** Null while there is room; else a promise resolved once half the room is free again. */
  eventRoom(): Promise<void> | null {
    if (this.held < this.opts.heldMax || this.closed) return null;
    this.counts.intakeFull++;
    return new Promise((r) => this.roomWaiters.push(r));
  }

  /** Whether the intake holds all it may (eventRoom would wait). */
  get full(): boolean {
    return !this.closed && this.held >= this.opts.heldMax;
  }

  /** Whether a batch being stored has failed and waits to be tried again (the database slow or away). */
  get failing(): boolean {
    for (const w of this.writing) if (w.failed) return true;
    return false;
  }

  /**
   * Whether batches are being written and none has committed for `ms`: a database that answers
   * slowly but answers drains what is held, one that stands still (a lock, an outage not yet failed)
   * does not.
   */
  stalledFor(ms: number, now = Date.now()): boolean {
    return this.writing.size > 0 && now - this.progressAt >= ms;
  }

  get held(): number {
    let n = this.pending.length;
    for (const w of this.writing) n += w.events.length;
    return n;
  }

  snapshot(now = Date.now()): IntakeSnapshot {
    const first = this.writing.values().next().value?.events[0] ?? this.pending[0];
    return {
      backlog: this.held,
      oldestUnstoredMs: first ? Math.max(0, now - first.receivedAt) : 0,
      ...this.counts,
    };
  }

  private schedule(): void {
    if (this.scheduled || this.closed || this.writing.size >= this.opts.concurrency) return;
    this.scheduled = true;
    // One turn later: the events of a burst share the batch; while writes run, the next one grows.
    setImmediate(() => {
      this.scheduled = false;
      this.startWrite();
    });
  }

  private startWrite(): void {
    if (!this.pending.length || this.closed || this.writing.size >= this.opts.concurrency) return;
    const n = Math.min(this.pending.length, this.opts.maxBatch);
    const events = n === this.pending.length ? this.pending : this.pending.slice(0, n);
    const acks = n === this.acks.length ? this.acks : this.acks.slice(0, n);
    this.pending = n === this.pending.length ? [] : this.pending.slice(n);
    this.acks = n === this.acks.length ? [] : this.acks.slice(n);
    const batch: Batch = { events, acks, failed: false };
    if (!this.writing.size) this.progressAt = Date.now();
    this.writing.add(batch);
    const write = this.store(batch).finally(() => {
      this.writes.delete(write);
      this.writing.delete(batch);
      if (this.pending.length) this.schedule();
      if (this.roomWaiters.length && this.held < this.opts.heldMax / 2) for (const w of this.roomWaiters.splice(0)) w();
    });
    this.writes.add(write);
    // Room for another write at once: a backlog is taken by several connections.
    if (this.pending.length) this.schedule();
  }

  private async store(batch: Batch): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sink.store(batch.events);
        batch.failed = false;
        break;
      } catch {
        if (this.closed) return; // close() counts them: unacknowledged, their devices send them again
        batch.failed = true;
        this.counts.writeRetries++;
        await new Promise((r) => setTimeout(r, Math.min(RETRY_MAX_MS, 250 * 2 ** attempt)));
        if (this.closed) return;
      }
    }
    this.progressAt = Date.now();
    if (this.opts.countsStored) this.counts.stored += batch.events.length;
    // Committed: now, and only now, the devices may be told (PUBACK).
    for (const ack of batch.acks) ack?.();
  }

  /** Waits (at most `waitMs`) for what was taken to be stored; what is left is not acknowledged (its devices send it again). */
  async close(waitMs = 5000): Promise<void> {
    if (this.closed) return;
    const deadline = Date.now() + waitMs;
    while ((this.pending.length || this.writes.size) && Date.now() < deadline) {
      if (this.pending.length) this.schedule();
      // Nothing being written yet (a write is scheduled): a turn of the loop, so this never spins on a settled promise.
      if (!this.writes.size) await new Promise((r) => setImmediate(r));
      else await Promise.race([Promise.all(this.writes), new Promise((r) => setTimeout(r, Math.max(1, deadline - Date.now())).unref())]);
    }
    this.closed = true;
    let left = this.pending.length;
    for (const w of this.writing) left += w.events.length;
    this.counts.unstoredAtStop += left;
    this.writing.clear();
    this.pending = [];
    // Never acknowledged: the broker's connections close with the plane, and what had no PUBACK is sent again.
    this.acks = [];
    for (const w of this.roomWaiters.splice(0)) w();
  }
}
