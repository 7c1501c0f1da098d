import { ADMIN, Api, expect, signInFromLogin, snapshot, test } from './support/console';

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
