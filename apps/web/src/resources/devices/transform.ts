import { type CreateDeviceBody, defaultDeviceSettings, type UpdateDeviceBody } from '@atrium/contract';

const FIELDS = [
  'name',
  'description',
  'type',
  'model',
  'serial_number',
  'ip_address',
  'port',
  'device_login',
  'domain_id',
  'protocol',
  'get_logs',
  'location_latitude',
  'location_longitude',
  'management',
] as const;
const SETTINGS_BLOCKS = ['sip', 'address', 'network', 'additional', 'face_recognition', 'lift_controller', 'integration_axxon'] as const;

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
/** Text inputs give '' for an emptied field; the API wants null. */
const nullIfBlank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

function cleanBlock(block: unknown): Record<string, unknown> | undefined {
  if (!block || typeof block !== 'object') return undefined;
  return Object.fromEntries(Object.entries(block as Record<string, unknown>).map(([k, v]) => [k, nullIfBlank(v)]));
}

/**
 * The form's values → the body the API takes: only the fields it knows (the record carries read-only
 * ones such as `online`), '' → null, a password only when one was typed (empty keeps the stored one).
 */
export function deviceBody(values: Record<string, unknown>, mode: 'create' | 'edit'): CreateDeviceBody | UpdateDeviceBody {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (values[f] !== undefined) out[f] = nullIfBlank(values[f]);
  if (mode === 'create') {
    for (const f of ['description', 'ip_address', 'device_login', 'location_latitude', 'location_longitude'])
      if (out[f] === null) delete out[f];
  }
  if (out.protocol === 'none') delete out.protocol;
  if (!blank(values.device_password)) out.device_password = values.device_password;
  const settings = values.device_settings as Record<string, unknown> | undefined;
  if (settings) {
    const body: Record<string, unknown> = {};
    for (const b of SETTINGS_BLOCKS) {
      const block = cleanBlock(settings[b]);
      if (block) body[b] = block;
    }
    const sip = body.sip as Record<string, unknown> | undefined;
    if (sip && blank(sip.password)) delete sip.password;
    out.device_settings = body;
  }
  return out as CreateDeviceBody | UpdateDeviceBody;
}

/** A new device's form starts with the defaults of spec entities §3. */
export const newDeviceRecord = () => ({
  type: 'panel',
  port: 80,
  protocol: 'mqtt',
  get_logs: false,
  management: { heartbeat: 30, realtime_logging: false },
  device_settings: defaultDeviceSettings(),
});
