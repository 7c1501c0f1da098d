import { expect } from 'vitest';
import type { client } from '../helpers.js';

/**
 * An MQTT panel created through the API in `groupId` and initialised: its device password, for a
 * simulated device to sign in with its serial number.
 */
export async function initialisedPanel(admin: ReturnType<typeof client>, groupId: number, serial: string): Promise<string> {
  const created = await admin.put('/devices', { name: serial, type: 'panel', model: 'AP-100', serial_number: serial, domain_id: groupId });
  expect(created.statusCode, created.body).toBe(200);
  const init = await admin.post(`/devices/${(created.json().data as { id: number }).id}/init/apply`, {});
  expect(init.statusCode, init.body).toBe(200);
  return (init.json().data as { password: string }).password;
}
