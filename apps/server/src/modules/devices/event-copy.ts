/**
 * Device events as COPY text and the statements around it: the devices repository writes them
 * through the main thread's pool, the device plane's thread (gateways/mqtt/worker) on connections of
 * its own. Kept apart from the repository so that the plane's thread loads no ORM.
 */
import { CopyIn } from '../../core/db/copy-in.js';
import type { NewEvent } from './devices.repository.js';

/**
 * JSON text without `\u0000` escapes: PostgreSQL's text and jsonb cannot hold NUL, and one device's
 * event carrying it would make the whole batch (everyone's events) refused again and again.
 */
export function withoutNul(json: string): string {
  return json.includes('\\u0000') ? json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1') : json;
}

/** A text field of COPY's text format: backslash, tab, newline and carriage return escaped; null is \N. */
function copyText(v: string | null): string {
  if (v === null) return '\\N';
  if (v.includes('\0')) v = v.replaceAll('\0', '');
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] as string) : v;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export const EVENT_COLUMNS = 'project_id, device_id, type, identifier, event_id, data, occurred_at, received_at';
/**
 * The COPY's staging table (per connection, emptied at each commit) and the statement that moves its
 * rows on: a row conflicting with a stored one of the same device and event id, or with an earlier
 * one of the same batch, is skipped.
 */
export const STAGED_EVENTS = {
  before: [
    `CREATE TEMP TABLE IF NOT EXISTS device_events_in (project_id int, device_id int, type text, identifier text, event_id text,
      data jsonb, occurred_at timestamptz, received_at timestamptz) ON COMMIT DELETE ROWS`,
  ],
  after: [
    `INSERT INTO device_events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM device_events_in u
      WHERE EXISTS (SELECT 1 FROM devices d WHERE d.id = u.device_id) ON CONFLICT DO NOTHING`,
  ],
};

/** idsOfSerials on a connection of the caller's (the device plane's thread): which devices these serial numbers are. */
export async function idsOfSerialsOn(
  client: { query(text: string, values: unknown[]): Promise<{ rows: { id: number; project_id: number; serial_number: string }[] }> },
  serials: readonly string[],
): Promise<Map<string, { id: number; projectId: number }>> {
  const found = new Map<string, { id: number; projectId: number }>();
  if (!serials.length) return found;
  const { rows } = await client.query(
    'SELECT id, project_id, serial_number FROM devices WHERE serial_number IN (SELECT jsonb_array_elements_text($1::jsonb))',
    [JSON.stringify(serials)],
  );
  for (const r of rows) found.set(r.serial_number, { id: Number(r.id), projectId: Number(r.project_id) });
  return found;
}

/** What storeEventsByCopy needs of a PostgreSQL connection (pg's client): plain statements and a COPY. */
export interface CopyConnection {
  query(text: string): Promise<unknown>;
  query(copy: CopyIn): CopyIn;
}

/**
 * What a direct COPY into device_events cannot take and the staged path settles: a unique violation
 * (an event id already stored for its device, or sent twice in the batch: a re-sent event) and a
 * foreign-key violation (a device deleted meanwhile). Any other error fails either way.
 */
const SETTLED_BY_STAGING = new Set(['23505', '23503']);

/**
 * Stores a batch of events on one connection of the caller's (the device plane's thread, which has
 * its own pool), as insertEvents does through the main thread's pool; resolves once committed. With
 * `direct`, first by COPY straight into device_events, one statement in a transaction of its own:
 * a small batch's staging (the temporary table, its truncation at commit, the INSERT … SELECT with
 * its speculative index inserts) costs PostgreSQL half as much again per row as the COPY itself.
 * A batch that holds a re-sent event or a deleted device's fails whole (nothing of it stays) and
 * goes the staged way: COPY into the staging table and the move on, in one transaction. Answers
 * whether it went that way (the caller keeps to it for a while: re-sends come in runs, after
 * reconnects). A failure rolls back; the caller tries again, and a row already stored is skipped.
 */
export async function storeEventsByCopy(
  client: CopyConnection,
  rows: readonly NewEvent[],
  dataTexts?: readonly string[],
  direct = false,
): Promise<{ staged: boolean }> {
  if (!rows.length) return { staged: false };
  // Made once: a batch the direct COPY refused is sent again, the same text, to the staging table.
  // Encoded at once: a chunk built line by line is a rope of some six strings per row until it is
  // first written, and the plane's heap held those of every batch being written (two of up to 50,000
  // rows: some 20 MB of rope in a burst) where its bytes take a buffer outside the heap.
  const chunks = Array.from(copyChunks(rows, dataTexts), (chunk) => Buffer.from(chunk));
  const copy = (statement: string) => client.query(new CopyIn(statement, chunks)).done;
  if (direct) {
    try {
      await copy(`COPY device_events (${EVENT_COLUMNS}) FROM STDIN`);
      return { staged: false };
    } catch (e) {
      if (!SETTLED_BY_STAGING.has(String((e as { code?: unknown }).code))) throw e;
    }
  }
  await client.query('BEGIN');
  try {
    for (const s of STAGED_EVENTS.before) await client.query(s);
    await copy(`COPY device_events_in (${EVENT_COLUMNS}) FROM STDIN`);
    for (const s of STAGED_EVENTS.after) await client.query(s);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
  return { staged: true };
}

/** A text as JSON, null (or absent) as `null`: for rows written as JSON text by hand. */
export const jsonText = (v: string | null | undefined) => (v == null ? 'null' : JSON.stringify(v));

/**
 * `count` rows from `from` as one JSON text of [projectId, deviceId, type, identifier, eventId, data,
 * occurredAt ms, receivedAt ms] tuples (the device plane's `stored` message), each row's data as COPY
 * wrote it (`dataTexts`, serialised once per event).
 */
export function storedJson(rows: readonly NewEvent[], dataTexts: readonly string[], from: number, count: number): string {
  let out = '[';
  const end = Math.min(rows.length, from + count);
  for (let i = from; i < end; i++) {
    const r = rows[i] as NewEvent;
    out += `${i === from ? '' : ','}[${r.projectId},${r.deviceId},${jsonText(r.type)},${jsonText(r.identifier)},${jsonText(r.eventId)},${dataTexts[i]},${r.occurredAt.getTime()},${(r.receivedAt ?? r.occurredAt).getTime()}]`;
  }
  return `${out}]`;
}

/**
 * Event rows as COPY text lines, in chunks of about 64 KiB (one write each). `dataTexts`: each row's
 * data already as JSON text (the device plane's intake makes it when it takes an event).
 */
export function* copyChunks(rows: readonly NewEvent[], dataTexts?: readonly string[]): Generator<string> {
  let chunk = '';
  // Events received in the same millisecond share one Date (DevicesService.receivedNow): written once.
  let at: Date | undefined;
  let atText = '';
  const received = (d: Date) => {
    if (d !== at) {
      at = d;
      atText = d.toISOString();
    }
    return atText;
  };
  const now = new Date();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as NewEvent;
    chunk += `${r.projectId}\t${r.deviceId}\t${copyText(r.type)}\t${copyText(r.identifier)}\t${copyText(r.eventId ?? null)}\t${copyText(dataTexts?.[i] ?? withoutNul(JSON.stringify(r.data)))}\t${r.occurredAt === r.receivedAt ? received(r.occurredAt) : r.occurredAt.toISOString()}\t${received(r.receivedAt ?? now)}\n`;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}
