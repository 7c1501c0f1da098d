import type { CallHistoryItem } from '@atrium/contract';

/** A call's length as the list shows it: m:ss, or h:mm:ss from an hour on; nothing for an unanswered call. */
export function durationText(seconds: unknown): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return '';
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** One side of a call as the list shows it: "101 · Anna Smith", or the number alone. */
export const partyText = (p: CallHistoryItem['from'] | null | undefined): string =>
  p ? (p.user?.name ? `${p.number} · ${p.user.name}` : p.number) : '';
