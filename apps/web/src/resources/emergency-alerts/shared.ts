import { DEVICE_TYPES, EMERGENCY_DEFAULTS, type EmergencyPlayback, FINAL_TASK_STATES, type Lockdown } from '@atrium/contract';
import type { ApiRoute } from '../../app/kit/apiRoutes';

/** The console's emergency alerts are the API's /emergency; the list searches with `search`. */
export const EMERGENCY_API = 'emergency';
export const EMERGENCY_ROUTES: Record<string, ApiRoute> = { 'emergency-alerts': { path: EMERGENCY_API, queryParams: ['search'] } };
/** Relations the edit page asks for: the names of its groups and devices. */
export const EMERGENCY_WITH = { meta: { with: ['domains', 'devices'] } };

export const deviceTypeChoices = DEVICE_TYPES.map((id) => ({ id, name: `devices.types.${id}` }));

const FIELDS = ['name', 'device_type', 'playback_duration', 'open_locks', 'domains', 'devices'] as const;

/** The body of a create or an update: only the alert's own fields (the form also holds what the server answered). */
export function alertBody(values: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of FIELDS) if (values[f] !== undefined) body[f] = values[f];
  if (typeof body.playback_duration === 'string') body.playback_duration = Number(body.playback_duration);
  for (const f of ['domains', 'devices'] as const) if (body[f] === null) body[f] = [];
  return body;
}

/** An alert must have recipients (spec comms §5): at least one group or device. */
export function validateRecipients(values: Record<string, unknown>): Record<string, string> {
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  return count(values.domains) + count(values.devices) > 0 ? {} : { domains: 'validation.required' };
}

/** Checked before an upload: the server checks again (and the format by its bytes). */
export function soundFileProblem(file: { size: number }): 'too_large' | 'too_small' | null {
  if (file.size > EMERGENCY_DEFAULTS.file_max_kb * 1024) return 'too_large';
  if (file.size < EMERGENCY_DEFAULTS.file_min_kb * 1024) return 'too_small';
  return null;
}

const unfinished = (state: string | undefined) => state !== undefined && !(FINAL_TASK_STATES as readonly string[]).includes(state);

/** Whether the devices of a playback may still change: the console keeps reading it while they do. */
export function playbackInMotion(p: EmergencyPlayback | null | undefined): boolean {
  if (!p) return false;
  if (!p.stopped_at) return true;
  return p.devices.some((d) => unfinished(d.play?.state) || unfinished(d.stop?.state) || d.locks.some((l) => unfinished(l.state)));
}

/** Whether a lockdown's doors are still being told (locked or released). */
export function lockdownInMotion(l: Lockdown): boolean {
  return l.devices.some((d) => unfinished(d.lock?.state) || unfinished(d.release?.state));
}
