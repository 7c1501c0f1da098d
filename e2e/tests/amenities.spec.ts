import { SimDevice } from '@atrium/device-sim';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An administrator makes the gym an amenity in the console (its door's rule, its week of slots); a
// resident books tomorrow 18:00 from the console, picking the slot among the free ones; the
// reservation's QR opens the gym door in the simulator at 18:10 and not at 20:10 (the simulator's
// clock), and once the resident cancels, not at all.

// The browser's clock is UTC here, so the slots the resident picks are UTC times (user_offset 0).
test.use({ timezoneId: 'UTC' });

test('a resident books the gym for 18:00 and its QR opens the gym door during the slot only', async ({ page, browser, request }) => {
  test.setTimeout(180_000);
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const group = profile.domains[0];
  if (!group) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  // The gym door (a panel that reads QR codes) and its access rule exist already (access has its own walk).
  const serial = `GYM${stamp}`;
  const panel = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Gym door ${stamp}`,
    model: 'AP-100',
    serial_number: serial,
    domain_id: group.id,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${panel.id}/init/apply`, {});
  await admin.call('PUT', '/access-rules', { name: `Gym ${stamp}`, devices: [{ id: panel.id, lock_number: 1 }] });
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-100', reconnectMs: 0 });
  await sim.start();
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  try {
    // --- the administrator makes the gym an amenity ---
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Amenities', exact: true }).click();
    await expect(page).toHaveURL(/\/amenities$/);
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/amenities\/(create|add)$/);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Gym ${stamp}`);
    await page.getByRole('textbox', { name: 'Address' }).fill('Building A, basement');
    await page.getByRole('combobox', { name: 'Groups' }).click();
    await page
      .getByRole('option', { name: new RegExp(group.name) })
      .first()
      .click();
    await page.getByRole('combobox', { name: 'Access rules' }).fill(`Gym ${stamp}`);
    await page.getByRole('option', { name: `Gym ${stamp}` }).click();
    await page.getByRole('spinbutton', { name: 'Persons, at most (places)' }).fill('10');
    // A window every day, 06:00 to 22:00 (weekdays are chosen by default: add the weekend).
    await page.getByRole('button', { name: 'Add a window' }).click();
    const days = page.getByRole('group', { name: 'Days' });
    await days.getByRole('button', { name: 'Sa' }).click();
    await days.getByRole('button', { name: 'Su' }).click();
    await page.getByRole('textbox', { name: 'From' }).fill('06:00');
    await page.getByRole('textbox', { name: 'To' }).fill('22:30');
    await page.getByRole('button', { name: 'Save' }).click();
    // A window that is not a whole number of slots is refused on its field.
    await expect(page.getByText('The window must be a whole number of slots')).toBeVisible();
    await page.getByRole('textbox', { name: 'To' }).fill('22:00');
    await snapshot(page, 'amenity-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/amenities\/\d+$/);
    await expect(page.getByText('Image and terms of use')).toBeVisible();
    await sideMenu(page).getByRole('menuitem', { name: 'Amenities', exact: true }).click();
    await expect(page).toHaveURL(/\/amenities$/);
    await expect(page.getByRole('cell', { name: `Gym ${stamp}` })).toBeVisible();
    await expect(page.getByRole('cell', { name: 'Every day 06:00–22:00 (16 slots)' })).toBeVisible();
    await snapshot(page, 'amenities-list');

    // --- a resident books tomorrow 18:00 ---
    const resident = await makeUser(admin, {
      name: `Resident ${stamp}`,
      permissions: [
        'can_create_amenity_reservations',
        'can_view_own_amenity_reservations',
        'can_edit_own_amenity_reservations',
        'can_view_own_amenity_reservation_logs',
      ],
    });
    const context = await browser.newContext({ timezoneId: 'UTC', locale: 'en-US' });
    const rpage = await context.newPage();
    await signInFromLogin(rpage, resident);
    await sideMenu(rpage).getByRole('menuitem', { name: 'Reservations', exact: true }).click();
    await expect(rpage).toHaveURL(/\/amenities\/reservations$/);
    await rpage.getByRole('link', { name: 'Create' }).click();
    await rpage.getByRole('combobox', { name: 'Amenity' }).fill(`Gym ${stamp}`);
    await rpage.getByRole('option', { name: `Gym ${stamp}` }).click();
    await expect(rpage.getByText('Choose an amenity and a date to see its slots')).toBeVisible();
    await rpage.getByLabel('Date').fill(tomorrow);
    const picker = rpage.getByTestId('slot-picker');
    await expect(picker.getByRole('button')).toHaveCount(16);
    await picker.getByRole('button', { name: /^18:00–19:00 · 10 free$/ }).click();
    await snapshot(rpage, 'reservation-create');
    await rpage.getByRole('button', { name: 'Save' }).click();
    await expect(rpage).toHaveURL(/\/amenities\/reservations\/\d+$/);
    await expect(rpage.getByTestId('reservation-status')).toHaveText('Reserved');
    await expect(rpage.getByTestId('reservation-qr')).toBeVisible();
    await expect(rpage.getByTestId('reservation-logs')).toContainText(`Reserved for ${tomorrow}, 18:00–19:00, persons: 1`);
    await snapshot(rpage, 'reservation-edit');
    const id = Number(rpage.url().split('/').pop());
    const reservation = await admin.call<{ identifier: { value: string }; starts_at: string }>('GET', `/amenities/reservations/${id}`);
    expect(reservation.starts_at).toBe(`${tomorrow}T18:00:00.000Z`);
    const qr = reservation.identifier.value;

    // --- the gym door, on the simulator's clock ---
    await expect.poll(() => sim.synced.find(qr)?.grants?.length ?? 0, { timeout: 15_000 }).toBe(1);
    expect(await sim.present(qr, { lock: 1, at: new Date(`${tomorrow}T18:10:00Z`) })).toMatchObject({ granted: true });
    expect(await sim.present(qr, { lock: 1, at: new Date(`${tomorrow}T20:10:00Z`) })).toMatchObject({ granted: false, reason: 'expired' });

    // The slot now has one place fewer for the next resident.
    const state = await admin.call<{ slots: { from: number; free_places: number }[] }>(
      'GET',
      `/amenities/${(await admin.call<{ amenity: { id: number } }>('GET', `/amenities/reservations/${id}`)).amenity.id}/state/${tomorrow}`,
    );
    expect(state.slots.find((s) => s.from === 64_800)?.free_places).toBe(9);

    // --- cancelled: the QR opens nothing ---
    await rpage.getByRole('button', { name: 'Cancel reservation' }).click();
    await rpage.getByRole('dialog').getByRole('button', { name: 'Cancel reservation' }).click();
    await expect(rpage.getByTestId('reservation-status')).toHaveText('Cancelled');
    await expect(rpage.getByTestId('reservation-logs')).toContainText('Reservation cancelled, its QR code revoked');
    await snapshot(rpage, 'reservation-cancelled');
    await expect.poll(() => sim.synced.find(qr)?.revoked ?? false, { timeout: 15_000 }).toBe(true);
    expect(await sim.present(qr, { lock: 1, at: new Date(`${tomorrow}T18:10:00Z`) })).toMatchObject({ granted: false, reason: 'revoked' });

    // The resident's list shows it, cancelled.
    await sideMenu(rpage).getByRole('menuitem', { name: 'Reservations', exact: true }).click();
    await expect(rpage.getByRole('cell', { name: `Gym ${stamp}` })).toBeVisible();
    await snapshot(rpage, 'reservations-list');
    await context.close();
  } finally {
    await sim.stop({ graceful: false });
  }
});
