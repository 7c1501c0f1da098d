import { spawn } from 'node:child_process';
import path from 'node:path';
import { Fleet } from '@atrium/device-sim';
import { baseURL, mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, test } from './support/console';

// The simulator started first, as the README has it, then the device initialised: it waits for its
// initialisation against the server's real broker, or initialises itself through the API.

async function newDevice(admin: Api, tag: string) {
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const serial = `${tag}${Date.now().toString(36).toUpperCase()}`;
  const device = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Simulated ${serial}`,
    type: 'panel',
    model: 'AP-100',
    serial_number: serial,
    domain_id: profile.domains[0]?.id,
  });
  return { id: device.id, serial, domainId: profile.domains[0]?.id as number };
}

test('a simulator started before its device is initialised waits, then comes online once it is', async ({ request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const { id, serial } = await newDevice(admin, 'WAIT');
  const password = 'waiting-device-password';
  const lines: string[] = [];
  const fleet = new Fleet({
    url: `mqtt://127.0.0.1:${mqttPort}`,
    devices: [{ serial, password, type: 'panel', model: 'AP-100' }],
    waitForInit: true,
    retryDelayMs: 200,
    maxRetryDelayMs: 800,
    reconnectMs: 0,
    log: (line) => lines.push(line),
  });
  try {
    // Refused (not initialised): not given up, waiting.
    expect(await fleet.start()).toEqual([]);
    expect([...fleet.waitingSerials]).toEqual([serial]);
    const device = fleet.get(serial);
    expect(device?.connected).toBe(false);
    await expect.poll(() => lines.filter((l) => l.includes('trying again')).length).toBeGreaterThanOrEqual(2);
    // The installer initialises it with the password typed on the device: it comes online by itself.
    await admin.call('POST', `/devices/${id}/init/apply`, { password });
    await expect.poll(() => device?.connected, { timeout: 15_000 }).toBe(true);
    await expect.poll(() => device?.initialized, { timeout: 15_000 }).toBe(true);
    expect(fleet.waitingSerials.size).toBe(0);
    expect((await admin.call<{ online: boolean }>('GET', `/devices/${id}`)).online).toBe(true);
  } finally {
    await fleet.stop();
  }
});

test('the simulator initialises its device through the API with an API key, and signs in', async ({ request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const { id, serial, domainId } = await newDevice(admin, 'APIK');
  const role = await admin.call<{ id: number }>('PUT', '/roles', {
    name: `Installer key ${serial}`,
    permissions: ['can_view_all_devices', 'can_edit_devices'],
  });
  const { key } = await admin.call<{ key: string }>('PUT', '/api-keys', {
    name: `Simulator ${serial}`,
    role: role.id,
    domains: [domainId],
  });
  const cli = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.resolve(import.meta.dirname, '../../tools/device-sim/src/cli.ts'),
      '--url',
      `mqtt://127.0.0.1:${mqttPort}`,
      '--device',
      `${serial}::panel:AP-100`,
      '--api',
      baseURL,
      '--api-key',
      key,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  cli.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  cli.stderr.on('data', (b: Buffer) => {
    out += b.toString();
  });
  try {
    await expect.poll(() => out, { timeout: 30_000 }).toContain('1 of 1 devices online');
    expect(out).toContain(`${serial}: initialised through ${baseURL}`);
    await expect.poll(async () => (await admin.call<{ online: boolean }>('GET', `/devices/${id}`)).online).toBe(true);
  } finally {
    cli.kill('SIGTERM');
    await new Promise((r) => cli.once('exit', r));
  }
});
