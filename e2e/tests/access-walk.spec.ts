import { SimDevice } from '@atrium/device-sim';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An administrator grants a resident's card the entrance on weekdays 09:00–18:00, in the console; the
// simulated panel (the real protocol, on the server's embedded broker) decides from what was synced to
// it: inside the hours granted, outside refused, each decision live in access events and explained;
// revoked, the card is refused and the administrator hears of the try.

/** Instants in Berlin (UTC+1 in November): Monday 10:00 and Monday 20:00. */
const INSIDE = new Date('2026-11-23T09:00:00Z');
const OUTSIDE = new Date('2026-11-23T19:00:00Z');

test('schedules, an access rule and a card in the console decide what the simulated door does', async ({ page, request }) => {
  test.setTimeout(150_000);
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ id: number; domains: { id: number; name: string }[] }>('GET', '/profile');
  const group = profile.domains[0];
  if (!group) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  // The panel and the resident exist already (devices and users have their own walks).
  const serial = `ACC${stamp}`;
  const panel = await admin.call<{ id: number; name: string }>('PUT', '/devices', {
    name: `Entrance ${stamp}`,
    model: 'AP-100',
    serial_number: serial,
    domain_id: group.id,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${panel.id}/init/apply`, {});
  const residentLogin = `resident-${stamp.toLowerCase()}`;
  await admin.call('PUT', '/users', {
    login: residentLogin,
    name: `Resident ${stamp}`,
    domains: [group.id],
    send_registration_link: false,
  });
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-100', reconnectMs: 0 });
  await sim.start();
  try {
    await signInFromLogin(page, ADMIN);

    // A schedule: weekdays 09:00–18:00 (the form's default hours), in Berlin.
    await sideMenu(page).getByRole('menuitem', { name: 'Schedules', exact: true }).click();
    await expect(page).toHaveURL(/\/schedules$/);
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/schedules\/(create|add)$/);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Weekdays ${stamp}`);
    await page.getByRole('combobox', { name: 'Group' }).click();
    await page
      .getByRole('option', { name: new RegExp(group.name) })
      .first()
      .click();
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    await zone.fill('Europe/Berlin');
    await page.getByRole('option', { name: 'Europe/Berlin' }).click();
    await snapshot(page, 'schedule-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/schedules(\/\d+)?$/);

    // The access rule: the panel's lock 1, the resident, the schedule.
    await sideMenu(page).getByRole('menuitem', { name: 'Access rules', exact: true }).click();
    // The schedules list also has a Create link: wait for the access rules list before clicking.
    await expect(page).toHaveURL(/\/access-rules$/);
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/access-rules\/(create|add)$/);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Entrance ${stamp}`);
    await page.getByRole('combobox', { name: 'Device' }).fill(`Entrance ${stamp}`);
    await page
      .getByRole('option', { name: new RegExp(`Entrance ${stamp}`) })
      .first()
      .click();
    await page.getByRole('combobox', { name: 'Users' }).fill(`Resident ${stamp}`);
    await page
      .getByRole('option', { name: new RegExp(`Resident ${stamp}`) })
      .first()
      .click();
    await page.getByRole('combobox', { name: 'Schedules' }).fill(`Weekdays ${stamp}`);
    await page
      .getByRole('option', { name: new RegExp(`Weekdays ${stamp}`) })
      .first()
      .click();
    await snapshot(page, 'access-rule-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/access-rules(\/\d+)?$/);

    // The resident's card.
    await sideMenu(page).getByRole('menuitem', { name: 'Identifiers', exact: true }).click();
    await expect(page).toHaveURL(/\/identifiers$/);
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/identifiers\/(create|add)$/);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Card ${stamp}`);
    await page.getByRole('textbox', { name: /Number|Value/ }).fill('CAFE01');
    await page.getByRole('combobox', { name: 'Owner' }).fill(`Resident ${stamp}`);
    await page
      .getByRole('option', { name: new RegExp(`Resident ${stamp}`) })
      .first()
      .click();
    await snapshot(page, 'identifier-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/identifiers(\/\d+)?$/);

    // The door got it, and decides by the schedule.
    await expect.poll(() => sim.synced.find('CAFE01')?.grants?.length ?? 0, { timeout: 15_000 }).toBe(1);
    expect(await sim.present('CAFE01', { lock: 1, at: INSIDE })).toMatchObject({ granted: true });

    // Access events, live: the grant shows up without a reload, then the refusal.
    await sideMenu(page).getByRole('menuitem', { name: 'Access control events' }).click();
    const rows = page.getByRole('row').filter({ hasText: `Entrance ${stamp}` });
    await expect(rows).toHaveCount(1);
    expect(await sim.present('CAFE01', { lock: 1, at: OUTSIDE })).toMatchObject({ granted: false, reason: 'schedule' });
    await expect(rows).toHaveCount(2);
    // A card no identifier has is refused, and its number stays on the screen, read as this viewer reads
    // card numbers (decimal) like every other: what an operator looks for.
    expect(await sim.present('04A1B2C3D4', { lock: 1, at: INSIDE, kind: 'card' })).toMatchObject({ granted: false, reason: 'unknown' });
    await expect(rows).toHaveCount(3);
    await expect(rows.filter({ hasText: String(0x04a1b2c3d4) })).toHaveCount(1);
    await expect(rows.filter({ hasText: '04A1B2C3D4' })).toHaveCount(0);
    await snapshot(page, 'access-events');

    // Why was it refused? The schedule, step by step.
    await rows.getByRole('link', { name: /why/i }).click();
    await expect(page).toHaveURL(/\/access-control\/explain\?/);
    // The same verdict as the door at that instant: refused, the schedule closed.
    await expect(page.getByText(`Schedule “Weekdays ${stamp}” is closed at that time`)).toBeVisible();
    await snapshot(page, 'access-explain');

    // Revoked: the door refuses the card, and the administrator (who issued it) hears of the try.
    await sideMenu(page).getByRole('menuitem', { name: 'Identifiers', exact: true }).click();
    await page
      .getByRole('row')
      .filter({ hasText: `Card ${stamp}` })
      .getByText(`Card ${stamp}`)
      .click();
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /revoke|confirm|yes/i })
      .click();
    await expect.poll(() => sim.synced.find('CAFE01')?.revoked ?? false, { timeout: 15_000 }).toBe(true);
    expect(await sim.present('CAFE01', { lock: 1, at: INSIDE })).toMatchObject({ granted: false, reason: 'revoked' });
    const popup = page.getByRole('alert').filter({ hasText: 'Important notification' });
    // Its number as the identifiers list shows it, not as stored.
    await expect(popup).toContainText(`used the revoked card ${0xcafe01} at Entrance ${stamp}`);
    await snapshot(page, 'access-revoked-used');
    await popup.getByRole('button', { name: 'Mark as read' }).click();
    await expect(popup).toHaveCount(0);

    // The door's own events show its cards as the identifiers list does: this viewer reads them in decimal.
    await sideMenu(page).getByRole('menuitem', { name: 'Device events' }).click();
    const granted = page
      .getByRole('row')
      .filter({ hasText: `Entrance ${stamp}` })
      .filter({ hasText: 'Access granted' });
    await expect(granted.first()).toContainText(String(0xcafe01));
    await expect(granted.first()).not.toContainText('CAFE01');
  } finally {
    await sim.stop({ graceful: false });
  }
});

test('a guest pass for two passes opens the door twice from the guest page, then says the limit is reached', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const group = profile.domains[0];
  if (!group) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  const serial = `GST${stamp}`;
  const panel = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Gate ${stamp}`,
    model: 'AP-100',
    serial_number: serial,
    domain_id: group.id,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${panel.id}/init/apply`, {});
  await admin.call('PUT', '/access-rules', {
    name: `Guests ${stamp}`,
    available_for_guest: true,
    devices: [{ id: panel.id, lock_number: 1 }],
    domains: [group.id],
  });
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-100', reconnectMs: 0 });
  await sim.start();
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Guest access', exact: true }).click();
    await page
      .getByRole('link', { name: 'Grant guest access' })
      .or(page.getByRole('button', { name: 'Grant guest access' }))
      .first()
      .click();
    await page.getByRole('checkbox', { name: new RegExp(`Guests ${stamp}`) }).check();
    await page
      .getByRole('switch', { name: 'Limit the number of passes' })
      .or(page.getByRole('checkbox', { name: 'Limit the number of passes' }))
      .first()
      .check();
    await page
      .getByRole('spinbutton', { name: 'Passes allowed' })
      .or(page.getByRole('textbox', { name: 'Passes allowed' }))
      .first()
      .fill('2');
    await snapshot(page, 'guest-grant');
    await page.getByRole('button', { name: 'Grant guest access' }).click();
    const dialog = page.getByRole('dialog', { name: 'Guest access link' });
    await expect(dialog).toBeVisible();
    const link = await dialog.getByRole('textbox').first().inputValue();
    expect(link).toMatch(/\/guest-access\/[A-Za-z0-9_-]{16,64}$/);
    await snapshot(page, 'guest-link');

    // The guest: no sign-in, another browser.
    const guestContext = await browser.newContext({ locale: 'en-US' });
    const guest = await guestContext.newPage();
    await guest.goto(new URL(link).pathname);
    const open = guest.getByRole('button', { name: `Open Gate ${stamp}` });
    await expect(open).toBeVisible();
    await snapshot(guest, 'guest-page');
    await open.click();
    await expect.poll(() => sim.opened.length, { timeout: 15_000 }).toBe(1);
    await open.click();
    await expect.poll(() => sim.opened.length, { timeout: 15_000 }).toBe(2);
    await open.click();
    await expect(guest.getByText('The pass limit of this key is reached')).toBeVisible();
    expect(sim.opened.length).toBe(2);
    await snapshot(guest, 'guest-limit');

    // The grantor revokes the guest from the list; the guest's page then says the key is invalid.
    await page.keyboard.press('Escape');
    await sideMenu(page).getByRole('menuitem', { name: 'Guest access', exact: true }).click();
    await expect(page).toHaveURL(/\/guest-access$/);
    await page.getByRole('button', { name: 'Revoke Guest identifier' }).first().click();
    await page.getByRole('dialog', { name: 'Revoke the identifier?' }).getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByText('The identifier is revoked')).toBeVisible();
    await snapshot(page, 'guest-list-revoked');
    await guest.reload();
    await expect(guest.getByText('This guest key is not valid')).toBeVisible();
    await guestContext.close();
  } finally {
    await sim.stop({ graceful: false });
  }
});
