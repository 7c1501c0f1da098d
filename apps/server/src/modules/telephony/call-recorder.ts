import { randomUUID } from 'node:crypto';
import { REALTIME_EVENTS, TELEPHONY_DEFAULTS, topics } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import type { Audience } from '../../core/acl.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { baseNumber } from '../../sip/address.js';
import type { SipCallEvent, SipCallObserver } from '../../sip/types.js';
import { ownerIsConcierge } from './call-rules.js';
import { type CallRow, toCallRecord } from './calls.service.js';
import { callInfoSql } from './sip-numbers.service.js';

export interface CallRecorderDeps {
  publish(projectId: number, topic: string, event: string, data: unknown, audience?: Audience): Promise<void>;
  /** Queues an open_lock task to a panel (DTMF '#' from the other party of its call). */
  openLock(deviceId: number, call: { id: string; from: string }): Promise<void>;
  log?: { error(obj: unknown, msg: string): void };
}

/** A call's row as a statement wrote it, with the users owning its numbers. */
type Written = CallRow & { owners: { number: string; user_id: number }[] };

/** Returns the written row and, for CallUpdated, the users owning the call's numbers. */
const RETURNING = sql`RETURNING *, (SELECT coalesce(json_agg(json_build_object('number', o.number, 'user_id', o.user_id)), '[]'::json)
  FROM sip_numbers o WHERE o.user_id IS NOT NULL
    AND o.number = ANY(call_records.numbers || ARRAY[call_records.caller, call_records.callee, call_records.answered_by])) AS owners`;

/**
 * Turns the SIP proxy's call events into call records and call history rows, and tells every
 * number of a call of each change on `calls-management.{number}` (CallUpdated, only to the
 * number's owner). Events of one call are applied in order; `flush()` waits for all of them.
 */
export class CallRecorder implements SipCallObserver {
  private tail: Promise<void> = Promise.resolve();
  /**
   * Events of calls not yet ringing, held back: a new call's first writes would otherwise run
   * between the INVITE going out and its 180 coming back, on the event loop that relays the 180
   * (on PGlite every query runs there). They are written once the call rings (after the 180 has
   * been relayed), ends, or after RINGING_WAIT_MS, whichever comes first.
   */
  private readonly held = new Map<string, { events: SipCallEvent[]; timer: NodeJS.Timeout }>();

  constructor(
    private readonly db: Db,
    private readonly deps: CallRecorderDeps,
    private readonly ringingWaitMs = 250,
  ) {}

  onCallEvent(event: SipCallEvent): void {
    if (event.type === 'created') {
      const timer = setTimeout(() => this.release(event.callId), this.ringingWaitMs);
      timer.unref();
      this.held.set(event.callId, { events: [event], timer });
      return;
    }
    const held = this.held.get(event.callId);
    if (!held) {
      this.enqueue(event);
      return;
    }
    held.events.push(event);
    // The proxy tells 'ringing' just before it relays the 180: the writes start after that.
    if (event.type === 'ringing' || event.type === 'ended') setImmediate(() => this.release(event.callId));
  }

  private release(callId: string): void {
    const held = this.held.get(callId);
    if (!held) return;
    this.held.delete(callId);
    clearTimeout(held.timer);
    const [first, second, ...rest] = held.events;
    // A call created and already ringing is written in one statement: 'calling', with the numbers rung.
    if (first?.type === 'created' && second?.type === 'ringing') {
      this.enqueue(first, second.numbers);
      for (const e of rest) this.enqueue(e);
      return;
    }
    for (const e of held.events) this.enqueue(e);
  }

  private enqueue(event: SipCallEvent, ringing?: string[]): void {
    this.tail = this.tail
      .then(() => this.apply(event, ringing))
      .catch((err: unknown) => this.deps.log?.error({ err, event: event.type }, 'call event not recorded'));
  }

  /** Resolves once every event received so far is written (calls held back are written now). */
  flush(): Promise<void> {
    for (const callId of [...this.held.keys()]) this.release(callId);
    return this.tail;
  }

  /**
   * One statement per event: it writes the call's row and returns it with the users owning its
   * numbers, so a call costs the SIP thread no read beside its writes (on PGlite every query runs on
   * the event loop that also forwards the call's messages).
   */
  private async apply(e: SipCallEvent, ringing?: string[]): Promise<void> {
    const at = new Date(e.at);
    if (e.type === 'created') {
      const numbers = [...new Set([e.caller, e.callee, ...(ringing ?? []).map(baseNumber)])];
      // The speech id names the call for the dialer; one already used (a retried or reused id) gets the Call-ID beside it.
      const speech = e.speechId?.trim().slice(0, 100) || randomUUID();
      const [c] = await queryRows<Written>(
        this.db,
        sql`INSERT INTO call_records (id, project_id, sip_call_id, status, type, caller, callee, sos, info, numbers, created_at)
          SELECT CASE WHEN EXISTS (SELECT 1 FROM call_records u WHERE u.id = ${speech}) THEN ${`${speech}:${e.callId}`} ELSE ${speech} END,
            n.project_id, ${e.callId}, ${ringing ? 'calling' : 'new'},
            CASE WHEN coalesce((SELECT ${ownerIsConcierge('c')} FROM sip_numbers c WHERE c.number = ${e.callee}), FALSE) THEN 'awaiting' ELSE 'normal' END,
            ${e.caller}, ${e.callee}, ${e.sos}, ${callInfoSql(e.caller)}::jsonb, ${`{${numbers.join(',')}}`}::text[], ${at}
          FROM sip_numbers n WHERE n.number IN (${e.caller}, ${e.callee}) ORDER BY (n.number = ${e.caller}) DESC LIMIT 1
        ON CONFLICT DO NOTHING ${RETURNING}`,
      );
      return this.publish(c);
    }
    if (e.type === 'ringing' || e.type === 'forwarded') {
      const numbers = `{${e.numbers.map(baseNumber).join(',')}}`;
      const [c] = await queryRows<Written>(
        this.db,
        sql`UPDATE call_records SET
            numbers = ARRAY(SELECT DISTINCT x FROM unnest(numbers || ${numbers}::text[]) x),
            status = CASE WHEN status = 'new' THEN 'calling' ELSE status END
          WHERE sip_call_id = ${e.callId} ${RETURNING}`,
      );
      return this.publish(c);
    }
    if (e.type === 'answered') {
      const [c] = await queryRows<Written>(
        this.db,
        sql`UPDATE call_records SET status = 'answered', answered_by = ${baseNumber(e.by)}, answered_at = ${at}
          WHERE sip_call_id = ${e.callId} AND status <> 'destroyed' ${RETURNING}`,
      );
      return this.publish(c);
    }
    if (e.type === 'held' || e.type === 'resumed') {
      // Spec comms §4 awaiting calls: the concierge who answered a queued call puts it back to
      // wait (answered_waiting) and takes it again (answered). Only the answerer's hold counts:
      // the dialer offers resume to that user alone, and a normal call held stays answered.
      // `waiting` is never written: a stateful proxy has no queue leg to join, so a queued call
      // that rings with nobody answering yet stays `calling` and is picked up by answering it.
      const [from, to] = e.type === 'held' ? ['answered', 'answered_waiting'] : ['answered_waiting', 'answered'];
      const [c] = await queryRows<Written>(
        this.db,
        sql`UPDATE call_records SET status = ${to} WHERE sip_call_id = ${e.callId} AND status = ${from}
          AND type = 'awaiting' AND answered_by = ${baseNumber(e.by)} ${RETURNING}`,
      );
      return this.publish(c);
    }
    if (e.type === 'dtmf') {
      if (e.digit !== TELEPHONY_DEFAULTS.door_dtmf.digit) return;
      return this.openDoor(e.callId, baseNumber(e.from));
    }
    // ended: the record destroyed and its history row, in one statement.
    const [c] = await queryRows<Written>(
      this.db,
      sql`WITH c AS (
          UPDATE call_records SET status = 'destroyed', ended_at = ${at} WHERE sip_call_id = ${e.callId} ${RETURNING}
        ), h AS (
          INSERT INTO call_history
            (project_id, call_id, from_number, to_number, from_user_id, from_name, to_user_id, to_name, status, duration, type, sos, answered_by, created_at)
          SELECT c.project_id, c.id, c.caller, c.callee, fu.id, coalesce(fu.name, fd.name, f.name), tu.id, coalesce(tu.name, td.name, t.name),
            ${e.outcome},
            CASE WHEN c.answered_at IS NULL THEN 0
              ELSE greatest(0, round(extract(epoch FROM (${at}::timestamptz - c.answered_at))))::int END,
            c.type, c.sos, c.answered_by, c.created_at
          FROM c
          LEFT JOIN sip_numbers f ON f.number = c.caller LEFT JOIN users fu ON fu.id = f.user_id LEFT JOIN devices fd ON fd.id = f.device_id
          LEFT JOIN sip_numbers t ON t.number = c.callee LEFT JOIN users tu ON tu.id = t.user_id LEFT JOIN devices td ON td.id = t.device_id
        )
        SELECT * FROM c`,
    );
    return this.publish(c);
  }

  /** DTMF '#' from a user's number on a call with a panel: the panel opens its door. */
  private async openDoor(callId: string, from: string): Promise<void> {
    const [c] = await queryRows<CallRow>(this.db, sql`SELECT * FROM call_records WHERE sip_call_id = ${callId} AND status <> 'destroyed'`);
    if (!c) return;
    const parties = [c.caller, c.callee, c.answered_by].filter((n): n is string => !!n);
    if (!parties.includes(from)) return;
    const rows = await queryRows<{ device_id: number | null; user_id: number | null; number: string }>(
      this.db,
      sql`SELECT n.device_id, n.user_id, n.number FROM sip_numbers n LEFT JOIN devices d ON d.id = n.device_id
        WHERE n.number = ANY(${`{${parties.join(',')}}`}::text[]) AND n.project_id = ${c.project_id}
          AND (n.number = ${from} OR d.type = 'panel')`,
    );
    const sender = rows.find((r) => r.number === from);
    if (!sender || sender.user_id === null) return;
    for (const r of rows) {
      if (r.number !== from && r.device_id !== null) await this.deps.openLock(Number(r.device_id), { id: c.id, from });
    }
  }

  /** CallUpdated to every number of the call, each heard only by the number's owner. */
  private async publish(c: Written | undefined): Promise<void> {
    if (!c) return;
    const record = toCallRecord(c);
    for (const o of c.owners) {
      await this.deps.publish(Number(c.project_id), topics.callsManagement(o.number), REALTIME_EVENTS.callUpdated, record, {
        users: [Number(o.user_id)],
      });
    }
  }
}
