import { randomBytes } from 'node:crypto';

/**
 * Initialising a device through Atrium's API, as the console's Initialise does: the simulator finds
 * its device by serial number and asks for initialisation with a password it chose, so it knows the
 * password it must sign in with (the console shows a generated one to a person, which a simulator
 * started from a script cannot read).
 */
export interface ApiAccess {
  /** Atrium's address, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** An API key (`atr_…`) of a role that may view and initialise devices. */
  apiKey: string;
}

/** A device password: 24 characters of base64url, well above the server's minimum of 8. */
export const newDevicePassword = (): string => randomBytes(18).toString('base64url');

async function call<T>(api: ApiAccess, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(`/api/v0${path}`, api.url), {
    method,
    headers: { 'X-Api-Key': api.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {}
    throw new Error(`${method} ${path}: ${res.status} ${message}`);
  }
  return (JSON.parse(text) as { data: T }).data;
}

/**
 * Initialises the device `serial` through the API with `password` (a new one when absent) and
 * resolves with the password to sign in with. Fails when no device of the key's scope has that serial.
 */
export async function initThroughApi(api: ApiAccess, serial: string, password: string = newDevicePassword()): Promise<string> {
  const filters = JSON.stringify({ rules: [{ field: 'serial_number', operator: 'equals', value: serial }] });
  const found = await call<{ id: number; serial_number: string }[]>(api, 'GET', `/devices?filters=${encodeURIComponent(filters)}&size=1`);
  const device = found.find((d) => d.serial_number === serial);
  if (!device) throw new Error(`no device ${serial} in Atrium (add it in the console first, or check the API key's groups)`);
  const answer = await call<{ password: string | null }>(api, 'POST', `/devices/${device.id}/init/apply`, { password });
  return answer.password ?? password;
}
