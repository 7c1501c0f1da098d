import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// What an administrator meets building a small site through the console: each action says what
// it did, and nothing else.

test('initialising a device says the initialisation is queued, and nothing about integrations', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const serial = `INIT${Date.now().toString(36).toUpperCase()}`;
  const device = await admin.call<{ id: number }>('PUT', '/devices', {
    name: 'Side gate',
    type: 'panel',
    model: 'AP-100',
    serial_number: serial,
    domain_id: profile.domains[0]?.id,
  });
  await signInFromLogin(page, ADMIN);
  await page.goto(`/devices/${device.id}`);
  // The tab the person was on when they pressed Initialise.
  await page.getByRole('tab', { name: 'Video integration' }).click();
  await page.getByRole('button', { name: 'Initialise' }).click();
  const init = page.getByRole('dialog');
  await init.getByRole('textbox', { name: /Device password/ }).fill('side-gate-password');
  await init.getByRole('button', { name: 'Initialise' }).click();
  await expect(page.getByText('Initialisation is queued')).toBeVisible();
  await snapshot(page, 'device-init-queued');
  await expect(page.getByText('No integration available to this group')).toBeHidden();
  // Said where it helps: to someone linking a camera, under the integration field.
  await page.getByRole('switch', { name: 'Link a camera of an integration' }).check();
  await expect(page.getByText('No integration available to this group')).toBeVisible();
  await snapshot(page, 'device-video-link');
});

test('a schedule used by access rules says so before it is deleted; a selection left behind is not kept', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const domain_id = profile.domains[0]?.id;
  const stamp = Date.now().toString(36);
  const door = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Door ${stamp}`,
    type: 'panel',
    model: 'AP-100',
    serial_number: `SCH${stamp.toUpperCase()}`,
    domain_id,
  });
  const office = await admin.call<{ id: number }>('PUT', '/time-rules', { name: `Office ${stamp}`, domain_id });
  await admin.call('PUT', '/time-rules', { name: `Night ${stamp}`, domain_id });
  for (const name of ['Staff', 'Cleaners']) {
    await admin.call('PUT', '/access-rules', {
      name: `${name} ${stamp}`,
      devices: [{ id: door.id, lock_number: 1 }],
      time_rules: [office.id],
    });
  }

  await signInFromLogin(page, ADMIN);
  await page.goto(`/schedules?filter=${encodeURIComponent(JSON.stringify({ search: stamp }))}`);
  const rows = page.getByRole('row').filter({ hasText: stamp });
  await expect(rows).toHaveCount(2);
  for (const name of ['Office', 'Night']) await rows.filter({ hasText: name }).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Delete selected' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete records' });
  await expect(dialog).toContainText('Delete 2 records?');
  await expect(dialog.getByRole('alert')).toHaveText('Used by 2 access rules: a rule left without schedules gives access at any time.');
  await snapshot(page, 'schedules-bulk-delete-warning');

  // Cancelled: the rows stay ticked on screen, with their count, for another choice.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('2 items selected')).toBeVisible();
  // Left and come back (through the menu, or the tab reloaded): nothing is ticked any more, so no
  // later action takes them unseen.
  await sideMenu(page).getByRole('menuitem', { name: 'Home', exact: true }).click();
  // Home's code may still be on its way (the list stays up meanwhile): left only once Home shows.
  await expect(page.getByRole('heading', { name: /^Welcome/ })).toBeVisible();
  await sideMenu(page).getByRole('menuitem', { name: 'Schedules', exact: true }).click();
  await expect(rows).toHaveCount(2);
  await expect(page.getByText(/^[1-9]\d* items? selected$/)).toHaveCount(0);
  await expect(rows.getByRole('checkbox', { checked: true })).toHaveCount(0);
  await rows.first().getByRole('checkbox').check();
  await expect(page.getByText('1 item selected')).toBeVisible();
  await page.reload();
  await expect(rows).toHaveCount(2);
  await expect(page.getByText(/^[1-9]\d* items? selected$/)).toHaveCount(0);

  // One schedule, from its own page: the same warning.
  await rows.filter({ hasText: 'Office' }).getByText(`Office ${stamp}`).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const single = page.getByRole('dialog');
  await expect(single).toContainText('Delete this schedule?');
  await expect(single.getByRole('alert')).toHaveText('Used by 2 access rules: a rule left without schedules gives access at any time.');
  await single.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/schedules(\?.*)?$/);
  await expect(rows).toHaveCount(1);
});

test('a page change shows a loading bar until the page has its data', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(/\/api\/v0\/users\?/, async (route) => {
    await held;
    await route.continue();
  });
  await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
  await expect(page.getByTestId('loading-bar')).toBeVisible();
  // Seen, not only there: nothing is drawn over it (the toolbar once was, the bar being under its level).
  // Polled: the bar holds 200 ms past a wait, but a render on a machine short of CPU can take longer
  // between the page's code arriving and its data being asked.
  await expect
    .poll(() =>
      page.evaluate(() => {
        const bar = document.querySelector('[data-testid="loading-bar"]');
        const r = bar?.getBoundingClientRect();
        return !!bar && !!r && bar.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
      }),
    )
    .toBe(true);
  await expect(page.getByRole('progressbar', { name: 'Loading…' }).first()).toBeVisible();
  release();
  await expect(page.getByRole('row').nth(1)).toBeVisible();
  await expect(page.getByTestId('loading-bar')).toBeHidden();
  // Loaded, the page stands still: nothing animates, so an idle console costs its computer nothing.
  await expect.poll(() => page.evaluate(() => document.getAnimations().filter((a) => a.playState === 'running').length)).toBe(0);
});

test('a required field says so before anything is sent', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await page.goto('/schedules/add');
  // The label's asterisk (react-admin marks a field whose rules include "required").
  await expect(page.locator('label').filter({ hasText: /^Name\s*\*$/ })).toBeVisible();
  await expect(page.locator('label').filter({ hasText: /^Group\s*\*$/ })).toBeVisible();
  await snapshot(page, 'required-marks');
});
