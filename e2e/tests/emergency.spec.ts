import { SimDevice } from '@atrium/device-sim';
import type { Page } from '@playwright/test';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An operator makes an emergency alert for a building in the console, gives it a sound, and starts
// it: the simulated monitors of the building (the real protocol, on the server's embedded broker)
// fetch and play it and the entrance panel opens its door, each device's state shown live; stopped,
// they fall silent. Then the building is locked down (the panel refuses a resident's card, which
// it accepted before), lifted with a second confirmation, and the muster list shows who is inside.

/** A 16-bit mono WAV of a 1 kHz tone. */
function wav(seconds: number): Buffer {
  const rate = 8000;
  const n = rate * seconds;
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + n * 2, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 1000 * i) / rate) * 12000), 44 + i * 2);
  return b;
}

const pickGroup = async (page: Page, label: string, name: string) => {
  const box = page.getByRole('combobox', { name: label });
  await box.click();
  await box.fill(name);
  await page
    .getByRole('option', { name: new RegExp(name) })
    .first()
    .click();
};

test('an emergency alert plays on the building’s monitors and opens its doors; lockdown and muster', async ({ page, request, browser }) => {
  test.setTimeout(360_000);
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const root = profile.domains[0];
  if (!root) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  const building = await admin.call<{ id: number; name: string }>('PUT', '/domains', { name: `Tower ${stamp}`, parent_id: root.id });

  // Two monitors in flats of the building and its entrance panel, each with its simulator online.
  const sims: SimDevice[] = [];
  const device = async (name: string, type: 'monitor' | 'panel', model: string, direction?: 'in' | 'out') => {
    const serial = `EM${sims.length}${stamp}`;
    const d = await admin.call<{ id: number }>('PUT', '/devices', { name, type, model, serial_number: serial, domain_id: building.id });
    const { password } = await admin.call<{ password: string }>('POST', `/devices/${d.id}/init/apply`, {});
    const sim = new SimDevice({
      url: `mqtt://127.0.0.1:${mqttPort}`,
      serial,
      password,
      type,
      model,
      reconnectMs: 0,
      ...(direction ? { direction } : {}),
    });
    sims.push(sim);
    await sim.start();
    await expect.poll(async () => (await admin.call<{ online: boolean }>('GET', `/devices/${d.id}`)).online).toBe(true);
    return { id: d.id, sim };
  };
  try {
    const flat1 = await device(`Flat 1 monitor ${stamp}`, 'monitor', 'AM-7');
    const flat2 = await device(`Flat 2 monitor ${stamp}`, 'monitor', 'AM-7');
    const entrance = await device(`Entrance ${stamp}`, 'panel', 'AP-100', 'in');

    // A resident whose card opens the entrance: they come in before anything happens.
    const cardValue = `CA${Date.now().toString(16).toUpperCase()}`;
    const resident = await admin.call<{ id: number }>('PUT', '/users', {
      login: `tower-${stamp.toLowerCase()}`,
      name: `Resident ${stamp}`,
      domains: [building.id],
      send_registration_link: false,
    });
    const card = await admin.call<{ id: number }>('PUT', '/identifiers', {
      name: `Card ${stamp}`,
      value: cardValue,
      owner_id: resident.id,
    });
    await admin.call('PUT', '/access-rules', {
      name: `Tower entrance ${stamp}`,
      devices: [{ id: entrance.id, lock_number: 1 }],
      identifiers: [card.id],
    });
    await expect.poll(() => entrance.sim.synced.find(cardValue)?.id ?? null, { timeout: 15_000 }).toBe(card.id);
    expect(await entrance.sim.present(cardValue)).toMatchObject({ granted: true });

    // The alert, made in the console.
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Emergency alerts', exact: true }).click();
    await expect(page).toHaveURL(/\/emergency-alerts$/);
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/emergency-alerts\/(create|add)$/);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Evacuate ${stamp}`);
    await expect(page.getByRole('combobox', { name: 'Plays on' })).toHaveText('Monitor');
    await expect(page.getByRole('spinbutton', { name: 'Playback duration, s' })).toHaveValue('60');
    // Without recipients the form says what is missing.
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Required').first()).toBeVisible();
    await pickGroup(page, 'Groups', building.name);
    await page.getByRole('switch', { name: 'Open the doors' }).check();
    await snapshot(page, 'emergency-alert-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/emergency-alerts\/\d+$/);
    const alertId = Number(page.url().split('/').pop());

    // Its sound: a file that is not a sound is refused; a WAV is kept and can be heard.
    const sound = page.getByRole('region', { name: 'Sound' });
    await expect(sound.getByTestId('emergency-sound-file')).toHaveText('No sound yet');
    await page
      .getByTestId('emergency-sound-input')
      .setInputFiles({ name: 'notes.wav', mimeType: 'audio/wav', buffer: Buffer.alloc(4096, 65) });
    await expect(page.getByText('The file must be a WAV, MP3, OGG, FLAC or M4A sound')).toBeVisible();
    await page
      .getByTestId('emergency-sound-input')
      .setInputFiles({ name: 'huge.wav', mimeType: 'audio/wav', buffer: Buffer.alloc(5121 * 1024) });
    await expect(page.getByText('The file is larger than 5120 KB')).toBeVisible();
    const audio = wav(2);
    await page.getByTestId('emergency-sound-input').setInputFiles({ name: 'evacuate.wav', mimeType: 'audio/wav', buffer: audio });
    await expect(sound.getByTestId('emergency-sound-file')).toHaveText(`evacuate.wav · ${Math.ceil(audio.length / 1024)} KB`);
    const player = sound.getByLabel('Preview of the sound');
    await expect(player).toBeVisible();
    const src = await player.getAttribute('src');
    const served = await request.get(src ?? '');
    expect(served.status()).toBe(200);
    expect((await served.body()).equals(audio)).toBe(true);

    // Started, after a confirmation: the monitors play it and the entrance opens, live.
    const playback = page.getByRole('region', { name: 'Playback' });
    await playback.getByRole('button', { name: 'Start the alert' }).click();
    const confirmStart = page.getByRole('dialog', { name: 'Start the emergency alert?' });
    await expect(confirmStart).toContainText('Their doors open as well.');
    await confirmStart.getByRole('button', { name: 'Start the alert' }).click();
    await expect(playback.getByRole('status')).toHaveText('Played on 2 of 2 · failed: 0 · waiting: 0 · doors opened: 1', {
      timeout: 20_000,
    });
    // A device's row: the one whose device cell carries its id.
    const deviceRow = (id: number) => playback.getByRole('row').filter({ has: page.getByTestId(`playback-device-${id}`) });
    await expect(deviceRow(flat1.id)).toContainText('Played');
    await expect(deviceRow(entrance.id)).toContainText('Lock 1: Opened');
    for (const m of [flat1, flat2]) {
      expect(m.sim.sounds.map((s) => [s.alertId, s.seconds, s.bytes])).toEqual([[alertId, 60, audio.length]]);
      expect(m.sim.playing).not.toBeNull();
    }
    expect(entrance.sim.opened.some((o) => o.by === 'task')).toBe(true);
    expect(entrance.sim.sounds).toEqual([]);
    await snapshot(page, 'emergency-alert-playing');

    // Stopped, after a confirmation: both fall silent.
    await playback.getByRole('button', { name: 'Stop the alert' }).click();
    await page.getByRole('dialog', { name: 'Stop the emergency alert?' }).getByRole('button', { name: 'Stop the alert' }).click();
    await expect.poll(() => [flat1.sim.playing, flat2.sim.playing], { timeout: 15_000 }).toEqual([null, null]);
    await expect(playback.getByRole('button', { name: 'Start the alert' })).toBeVisible();
    await sideMenu(page).getByRole('menuitem', { name: 'Emergency alerts', exact: true }).click();
    await expect(page.getByRole('row').filter({ hasText: `Evacuate ${stamp}` })).toContainText('evacuate.wav');
    await snapshot(page, 'emergency-alert-list');

    // Who is inside the tower: the resident who came in.
    await sideMenu(page).getByRole('menuitem', { name: 'Muster list' }).click();
    await expect(page).toHaveURL(/\/emergency-muster$/);
    await expect(page.getByText('Pick a group to see who is inside.')).toBeVisible();
    await pickGroup(page, 'Group', building.name);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect(page.getByTestId('muster-count')).toContainText(`1 person inside ${building.name}`);
    await expect(page.getByRole('row').filter({ hasText: `Resident ${stamp}` })).toContainText(`Entrance ${stamp}`);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const csv = await download;
    expect(csv.suggestedFilename()).toMatch(/^muster-.*\.csv$/);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(await csv.path(), 'utf8')).toContain(`Resident ${stamp}`);
    await snapshot(page, 'emergency-muster');

    // Lockdown: every door of the tower held shut; the card is refused at the door.
    await sideMenu(page).getByRole('menuitem', { name: 'Lockdown' }).click();
    await expect(page).toHaveURL(/\/emergency-lockdown$/);
    await expect(page.getByRole('heading', { name: 'Active lockdowns' })).toBeVisible();
    await pickGroup(page, 'Group', building.name);
    await page.getByRole('textbox', { name: 'Reason' }).fill('Intruder on the roof');
    await page.getByRole('button', { name: 'Lock down' }).click();
    await page
      .getByRole('dialog', { name: `Lock down ${building.name}?` })
      .getByRole('button', { name: 'Lock down' })
      .click();
    const locked = page.getByRole('article', { name: building.name });
    await expect(locked).toContainText('Intruder on the roof');
    await expect(locked.getByRole('row').filter({ hasText: `Entrance ${stamp}` })).toContainText('Done', { timeout: 15_000 });
    await expect.poll(() => entrance.sim.lockdown).not.toBeNull();
    expect(await entrance.sim.present(cardValue)).toEqual({ granted: false, reason: 'lockdown' });
    await snapshot(page, 'emergency-lockdown');

    // Someone who may only look sees the lockdown, and cannot lift it or start another.
    const watcher = await makeUser(admin, { permissions: ['can_view_emergency_alerts', 'can_view_all_devices'] });
    const context = await browser.newContext();
    const other = await context.newPage();
    await signInFromLogin(other, watcher);
    await other.goto('/emergency-lockdown');
    await expect(other.getByRole('article', { name: building.name })).toBeVisible();
    await expect(other.getByRole('button', { name: 'Lift the lockdown' })).toHaveCount(0);
    await expect(other.getByRole('button', { name: 'Lock down' })).toHaveCount(0);
    await expect(sideMenu(other).getByRole('menuitem', { name: 'Muster list' })).toHaveCount(0);
    await context.close();

    // Lifted only after a second confirmation; the card opens the door again.
    await locked.getByRole('button', { name: 'Lift the lockdown' }).click();
    await page
      .getByRole('dialog', { name: `Lift the lockdown of ${building.name}?` })
      .getByRole('button', { name: 'Lift the lockdown' })
      .click();
    const again = page.getByRole('dialog', { name: 'Are you sure?' });
    await expect(again).toContainText(building.name);
    expect(entrance.sim.lockdown).not.toBeNull();
    await again.getByRole('button', { name: 'Lift the lockdown' }).click();
    await expect.poll(() => entrance.sim.lockdown, { timeout: 15_000 }).toBeNull();
    await expect(page.getByText('No group is locked down.')).toBeVisible();
    expect(await entrance.sim.present(cardValue)).toMatchObject({ granted: true });
    await snapshot(page, 'emergency-lockdown-lifted');
  } finally {
    for (const s of sims) await s.stop({ graceful: false });
  }
});
