import type { ACCESS_DENIED_REASONS, SyncIdentifier, SyncSchedule } from '@atrium/contract';

export type AccessDeniedReason = (typeof ACCESS_DENIED_REASONS)[number];
export type AccessDecision = { granted: true; identifier: SyncIdentifier } | { granted: false; reason: AccessDeniedReason };

/** What a device holds after its sync tasks: identifiers by value, schedules by id. */
export class SyncedData {
  readonly identifiers = new Map<number, SyncIdentifier>();
  readonly schedules = new Map<number, SyncSchedule>();
  private byValue = new Map<string, SyncIdentifier>();

  clear(): void {
    this.identifiers.clear();
    this.schedules.clear();
    this.byValue.clear();
  }

  putIdentifier(i: SyncIdentifier): void {
    const old = this.identifiers.get(i.id);
    if (old) this.byValue.delete(old.value);
    this.identifiers.set(i.id, i);
    this.byValue.set(i.value, i);
  }

  removeIdentifier(id: number): void {
    const old = this.identifiers.get(id);
    if (old) this.byValue.delete(old.value);
    this.identifiers.delete(id);
  }

  find(value: string): SyncIdentifier | undefined {
    return this.byValue.get(value);
  }
}

/** Day of week (0 = Sunday) and second of the day of `at` in a time zone. */
function localTime(at: Date, timeZone: string): { day: number; second: number } {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch {
    return localTime(at, 'UTC');
  }
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '0';
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { day, second: Number(get('hour')) * 3600 + Number(get('minute')) * 60 + Number(get('second')) };
}

/** Is the schedule open at `at`? */
export function scheduleOpen(s: SyncSchedule, at: Date): boolean {
  const { day, second } = localTime(at, s.time_zone);
  return s.intervals.some((i) => i.days.includes(day) && second >= i.from && second < i.to);
}

/** Decides access as a device does, from its synced data alone. */
export function decideAccess(data: SyncedData, value: string, lock: number, at: Date): AccessDecision {
  const i = data.find(value);
  if (!i) return { granted: false, reason: 'unknown' };
  if (i.revoked) return { granted: false, reason: 'revoked' };
  if (i.valid_from && new Date(i.valid_from) > at) return { granted: false, reason: 'not_yet_valid' };
  if (i.valid_to && new Date(i.valid_to) <= at) return { granted: false, reason: 'expired' };
  if (i.locks?.length && !i.locks.includes(lock)) return { granted: false, reason: 'lock' };
  if (i.schedule_ids?.length) {
    const open = i.schedule_ids.some((id) => {
      const s = data.schedules.get(id);
      return s !== undefined && scheduleOpen(s, at);
    });
    if (!open) return { granted: false, reason: 'schedule' };
  }
  return { granted: true, identifier: i };
}
