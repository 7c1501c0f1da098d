import { type AlarmStatus, type DeviceAlarm, type DeviceAlarmLog, KNOWN_ALARM_KINDS } from '@atrium/contract';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** An alarm's kind in words: the console's name for a known kind, the device's own word otherwise. */
export function kindText(kind: string, translate: Translate): string {
  return (KNOWN_ALARM_KINDS as readonly string[]).includes(kind) ? translate(`device_alarms.kinds.${kind}`) : kind;
}

/** What the alarm is, in one line: "Fire · entrance". */
export function alarmTitle(a: Pick<DeviceAlarm, 'kind' | 'zone'>, translate: Translate): string {
  return a.zone ? `${kindText(a.kind, translate)} · ${a.zone}` : kindText(a.kind, translate);
}

/** The colour of a status chip: an active alarm is what needs eyes first. */
export const STATUS_COLORS: Record<AlarmStatus, 'error' | 'warning' | 'success'> = {
  active: 'error',
  cleared: 'warning',
  processed: 'success',
};

/** One log line in words. */
export function logText(l: Pick<DeviceAlarmLog, 'event' | 'user'>, translate: Translate): string {
  return translate(`device_alarms.log_events.${l.event}`, { user: l.user?.name || '—' });
}

/** The device's words of a log entry (zone, kind, part), without the event id it carries. */
export function logInfo(info: Record<string, unknown>): string {
  return ['kind', 'zone', 'part']
    .map((k) => info[k])
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .join(' · ');
}

/** A call's length: m:ss, or h:mm:ss from an hour on; empty for none. */
export function callDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '';
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
