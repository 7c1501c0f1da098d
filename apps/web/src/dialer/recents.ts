import type { CallDirection, CallOutcome, HistoryEntry } from './types';

/** The local calendar day of an instant, as YYYY-MM-DD. */
export function dayKey(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Direction of an entry as the server saw it from the own number; by which side it is, failing that. */
export function entryDirection(entry: HistoryEntry, ownNumber: string): CallDirection {
  if (entry.direction === 'incoming' || entry.direction === 'outgoing') return entry.direction;
  return entry.from.number === ownNumber ? 'outgoing' : 'incoming';
}

export interface RecentItem {
  entry: HistoryEntry;
  direction: CallDirection;
  /** The other side's number (what the call button dials). */
  number: string;
  title: string;
  time: number;
  /** answered, noanswer, busy, cancel or failed: picks the icon. */
  outcome: CallOutcome;
}

export interface RecentGroup {
  day: string;
  /** today, yesterday, or null: the date itself is shown. */
  label: 'today' | 'yesterday' | null;
  time: number;
  items: RecentItem[];
}

/** Recents of spec comms §2: newest first, grouped by local date. */
export function groupRecents(entries: readonly HistoryEntry[], ownNumber: string, now = Date.now()): RecentGroup[] {
  const today = dayKey(now);
  const yesterday = dayKey(new Date(now).setDate(new Date(now).getDate() - 1));
  const items = entries
    .map((entry): RecentItem => {
      const direction = entryDirection(entry, ownNumber);
      const other = direction === 'outgoing' ? entry.to : entry.from;
      const name = (other.user?.name ?? '').trim();
      return {
        entry,
        direction,
        number: other.number,
        title: name ? `${name} (${other.number})` : other.number,
        time: Date.parse(entry.created_at),
        outcome: entry.status,
      };
    })
    .filter((i) => Number.isFinite(i.time))
    .sort((a, b) => b.time - a.time);
  const groups: RecentGroup[] = [];
  for (const item of items) {
    const day = dayKey(item.time);
    let group = groups[groups.length - 1];
    if (group?.day !== day) {
      group = { day, label: day === today ? 'today' : day === yesterday ? 'yesterday' : null, time: item.time, items: [] };
      groups.push(group);
    }
    group.items.push(item);
  }
  return groups;
}

/** A call's length as m:ss, or h:mm:ss from an hour. */
export function formatDuration(seconds: number | null | undefined): string {
  const s = Math.max(0, Math.floor(seconds ?? 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}
