import { SimDevice } from '@atrium/device-sim';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An elevator access rule made in the console lets a resident's card reach floor 5 only: the simulated
// lift controller (the real protocol on the embedded broker) decides from the relay ports synced to it;
// the console calls the lift to a floor.

test('an elevator access rule lets the resident ride to floor 5 only, and the console calls the lift', async ({ page, request }) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const group = profile.domains[0];
  if (!group) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  const serial = `LIFT${stamp}`;
  const controller = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Lift controller ${stamp}`,
    type: 'liftcontroller',
    model: 'LC-16',
    serial_number: serial,
    domain_id: group.id,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${controller.id}/init/apply`, {});
  await admin.call('PUT', '/elevators', {
    name: `Lift ${stamp}`,
    domain_id: group.id,
    controllers: [
      {
        device_id: controller.id,
        floor_map: [
          { floor: 1, name: 'Lobby', is_panel_floor: true, ports: [1] },
          { floor: 5, apartments: ['51'], ports: [5] },
          { floor: 7, apartments: ['71'], ports: [7] },
        ],
      },
    ],
  });
  const resident = await admin.call<{ id: number }>('PUT', '/users', {
    login: `rider-${stamp.toLowerCase()}`,
    name: `Rider ${stamp}`,
    domains: [group.id],
    send_registration_link: false,
  });
  await admin.call('PUT', '/identifiers', { name: `Lift card ${stamp}`, value: 'F10005', owner_id: resident.id });
  const sim = new SimDevice({
    url: `mqtt://127.0.0.1:${mqttPort}`,
    serial,
    password,
    type: 'liftcontroller',
    model: 'LC-16',
    reconnectMs: 0,
  });
  await sim.start();
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Elevator access rules', exact: true }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Floor 5 ${stamp}`);
    await page.getByRole('combobox', { name: 'Users' }).fill(`Rider ${stamp}`);
    await page
      .getByRole('option', { name: new RegExp(`Rider ${stamp}`) })
      .first()
      .click();
    const elevator = page.getByRole('combobox', { name: 'Elevator', exact: true });
    if (!(await elevator.count())) await page.getByRole('button', { name: 'Add an elevator' }).click();
    await elevator.fill(`Lift ${stamp}`);
    await page
      .getByRole('option', { name: new RegExp(`Lift ${stamp}`) })
      .first()
      .click();
    await page.getByRole('combobox', { name: 'Floors' }).click();
    // Only the floors a rule may grant: not the panel floor.
    await expect(page.getByRole('option', { name: /Lobby/ })).toHaveCount(0);
    await page.getByRole('option', { name: /^5\b/ }).click();
    await page.keyboard.press('Escape');
    await snapshot(page, 'elevator-rule-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/elevators\/access-rules(\/\d+)?$/);

    // The lift controller holds the card with floor 5's relay only.
    await expect.poll(() => JSON.stringify(sim.synced.find('F10005')?.grants ?? []), { timeout: 15_000 }).toContain('"locks":[5]');
    expect(await sim.present('F10005', { lock: 5 })).toMatchObject({ granted: true });
    expect(await sim.present('F10005', { lock: 7 })).toMatchObject({ granted: false, reason: 'lock' });

    // The console calls the lift to floor 7.
    await sideMenu(page).getByRole('menuitem', { name: 'Elevators', exact: true }).click();
    await page
      .getByRole('row')
      .filter({ hasText: `Lift ${stamp}` })
      .getByText(`Lift ${stamp}`)
      .click();
    await page.getByRole('button', { name: 'Call elevator' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: /Floor/ }).first().click();
    await page.getByRole('option', { name: /^7\b/ }).click();
    await dialog.getByRole('button', { name: 'Call', exact: true }).click();
    await expect.poll(() => sim.calls.map((c) => c.floor), { timeout: 15_000 }).toEqual([7]);
  } finally {
    // Gone before it stops: a controller of the administrator's group going offline would leave an
    // important notification popping up over the tests that follow.
    await admin.call('DELETE', `/devices/${controller.id}`).catch(() => undefined);
    await sim.stop({ graceful: false });
  }
});
