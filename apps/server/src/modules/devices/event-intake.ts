/**
 * The event intake of the device plane's thread (gateways/mqtt/worker): the events the gateway takes
 * wait here, unacknowledged, and go to their sink in batches (what arrives while one batch is being
 * stored joins the next, so under load batches grow instead of queueing). A batch is tried again
 * until it is stored; only then are its events acknowledged (PUBACK). Past `heldMax` unstored events
 * the gateway is asked to stop reading: a database that is slow or away costs bounded memory.
 */
import type { EventReport, EventStored } from './devices.gateway.js';

/** An event as the intake holds it: whose (serial number), what, and when the plane heard of it (ms). */
export interface IntakeEvent {
  serial: string;
  report: EventReport;
  receivedAt: number;
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

/** Longest wait between two attempts at storing a batch (ms). */
const RETRY_MAX_MS = 5000;

export class EventIntake {
  private pending: IntakeEvent[] = [];
  private acks: (EventStored | undefined)[] = [];
  /** The batch being stored, and its acknowledgements. */
  private writing: { events: IntakeEvent[]; acks: (EventStored | undefined)[] } | null = null;
  private scheduled = false;
  private closed = false;
  private running: Promise<void> = Promise.resolve();
  private roomWaiters: (() => void)[] = [];
  private readonly counts = { stored: 0, writeRetries: 0, intakeFull: 0, unstoredAtStop: 0 };

  constructor(
    private readonly sink: EventSink,
    private readonly opts: { heldMax: number; maxBatch: number; countsStored: boolean },
  ) {}

  /** Takes an event at once (the gateway's fast path): `stored` acknowledges it once committed. */
  acceptEvent(serial: string, report: EventReport, stored?: EventStored): boolean {
    if (this.closed) return false;
    this.pending.push({ serial, report, receivedAt: Date.now() });
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

  get held(): number {
    return this.pending.length + (this.writing?.events.length ?? 0);
  }

  snapshot(now = Date.now()): IntakeSnapshot {
    const first = this.writing?.events[0] ?? this.pending[0];
    return {
      backlog: this.held,
      oldestUnstoredMs: first ? Math.max(0, now - first.receivedAt) : 0,
      ...this.counts,
    };
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    // One turn later: the events of a burst share the batch; while one is stored the next grows.
    this.running = this.running.then(() => new Promise<void>((r) => setImmediate(r))).then(() => this.next());
  }

  private async next(): Promise<void> {
    this.scheduled = false;
    if (!this.pending.length || this.closed) return;
    const n = Math.min(this.pending.length, this.opts.maxBatch);
    const events = n === this.pending.length ? this.pending : this.pending.slice(0, n);
    const acks = n === this.acks.length ? this.acks : this.acks.slice(0, n);
    this.pending = n === this.pending.length ? [] : this.pending.slice(n);
    this.acks = n === this.acks.length ? [] : this.acks.slice(n);
    this.writing = { events, acks };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sink.store(events);
        break;
      } catch {
        if (this.closed) return; // close() answers them: unacknowledged, their devices send them again
        this.counts.writeRetries++;
        await new Promise((r) => setTimeout(r, Math.min(RETRY_MAX_MS, 250 * 2 ** attempt)));
        if (this.closed) return;
      }
    }
    this.writing = null;
    if (this.opts.countsStored) this.counts.stored += events.length;
    // Committed: now, and only now, the devices may be told (PUBACK).
    for (const ack of acks) ack?.();
    if (this.pending.length) this.schedule();
    if (this.roomWaiters.length && this.held < this.opts.heldMax / 2) for (const w of this.roomWaiters.splice(0)) w();
  }

  /** Waits (at most `waitMs`) for what was taken to be stored; what is left is not acknowledged (its devices send it again). */
  async close(waitMs = 5000): Promise<void> {
    if (this.closed) return;
    const drained = this.running;
    await Promise.race([drained, new Promise((r) => setTimeout(r, waitMs).unref())]);
    this.closed = true;
    const left = [...(this.writing?.acks ?? []), ...this.acks];
    this.counts.unstoredAtStop += left.length;
    this.writing = null;
    this.pending = [];
    this.acks = [];
    // Never acknowledged: the broker's connections close with the plane, and what had no PUBACK is sent again.
    for (const w of this.roomWaiters.splice(0)) w();
  }
}
