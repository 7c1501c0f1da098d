// The device plane serialises each event's data once and writes that text both into the COPY and
// into the `stored` message for the main thread: both must say what serialising each on its own said.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from './devices.repository.js';
import { copyChunks, storedJson } from './event-copy.js';
import { intakeEvent } from './event-intake.js';

const received = new Date('2026-01-02T03:04:05.678Z');
const rows: NewEvent[] = [
  {
    projectId: 1,
    deviceId: 7,
    type: 'sensor',
    identifier: null,
    eventId: 'A-1',
    data: { sensor: 't', value: 1.5, event_id: 'A-1' },
    occurredAt: new Date('2026-01-02T03:04:00Z'),
    receivedAt: received,
  },
  {
    projectId: 2,
    deviceId: 8,
    type: 'access_granted',
    identifier: 'card "7"\t\\x',
    eventId: null,
    data: { lock: 1, note: 'tab\there, quote " and back\\slash, line\nbreak, nul\u0000gone', nested: { a: [1, null] } },
    occurredAt: received,
    receivedAt: received,
  },
  { projectId: 3, deviceId: 9, type: 'door_opened', identifier: 'ключ', data: {}, occurredAt: received, receivedAt: received },
];

/** Each row's data as the device plane's intake keeps it (made when the event is taken). */
const dataTexts = (list: readonly NewEvent[]) => list.map((r) => intakeEvent('SN-1', { type: r.type, data: r.data }, 0).data);

describe('event rows serialised once for the COPY and for the main thread', () => {
  it('writes the same COPY text with the texts given as without them', () => {
    const texts = dataTexts(rows);
    expect([...copyChunks(rows, texts)].join('')).toBe([...copyChunks(rows)].join(''));
    expect(texts[1]).not.toContain('\\u0000');
  });

  it('tells the main thread the rows as the tuples it parses, piece by piece', () => {
    const texts = dataTexts(rows);
    const tuple = (r: NewEvent) => [
      r.projectId,
      r.deviceId,
      r.type,
      r.identifier,
      r.eventId ?? null,
      JSON.parse(JSON.stringify(r.data).replace('\\u0000', '')),
      r.occurredAt.getTime(),
      (r.receivedAt ?? r.occurredAt).getTime(),
    ];
    expect(JSON.parse(storedJson(rows, texts, 0, 10))).toEqual(rows.map(tuple));
    expect(JSON.parse(storedJson(rows, texts, 1, 1))).toEqual([tuple(rows[1] as NewEvent)]);
    expect(JSON.parse(storedJson(rows, texts, 2, 5))).toEqual([tuple(rows[2] as NewEvent)]);
    expect(JSON.parse(storedJson(rows, texts, 3, 5))).toEqual([]);
  });
});
