import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An installer registers a door panel, sets its SIP block, applies the settings, and follows the
// task on the tasks page; the events page downloads what it lists.

test('an installer adds a panel, applies its settings and sees the task wait for the offline device', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const serial = `E2E${Date.now().toString(36).toUpperCase()}`;

  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Devices', exact: true }).click();
  await expect(page).toHaveURL(/\/devices$/);
  await page.getByRole('link', { name: 'Create' }).click();

  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Entrance 1');
  await page.getByRole('combobox', { name: 'Model' }).click();
  await page.getByRole('option', { name: 'AP-200' }).click();
  await page.getByRole('textbox', { name: 'Serial number' }).fill(serial);
  await page.getByRole('combobox', { name: 'Group' }).click();
  await page
    .getByRole('option', { name: new RegExp(profile.domains[0]?.name ?? '') })
    .first()
    .click();
  await expect(page.getByText('Locks: 2 · lift relays: 0')).toBeVisible();
  await page.getByRole('tab', { name: 'SIP' }).click();
  await page.getByRole('textbox', { name: 'Proxy address' }).fill('sip.e2e.example');
  await snapshot(page, 'device-create');
  await page.getByRole('button', { name: 'Save' }).click();

  await expect(page).toHaveURL(/\/devices\/\d+$/);
  await expect(page.getByTestId('device-status')).toHaveText('Offline');
  await page.getByRole('tab', { name: 'SIP' }).click();
  await expect(page.getByRole('textbox', { name: 'Proxy address' })).toHaveValue('sip.e2e.example');
  // A model without face recognition offers no face recognition settings.
  await page.getByRole('tab', { name: 'Face recognition' }).click();
  await expect(page.getByRole('combobox', { name: 'Recognition mode' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Apply settings' }).click();
  await expect(page.getByText('The settings are queued for the device')).toBeVisible();
  await snapshot(page, 'device-edit');
  // The panel's forwards: the numbers it may ring, as a spreadsheet.
  const forwards = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Forwards' }).click();
  expect((await forwards).suggestedFilename()).toMatch(/^device-\d+-forwards-.*\.xlsx$/);

  await sideMenu(page).getByRole('menuitem', { name: 'Device tasks' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Entrance 1' });
  await expect(row.first()).toContainText('Apply settings');
  await expect(row.first()).toContainText('Waiting for the device');
  await snapshot(page, 'device-tasks');

  await sideMenu(page).getByRole('menuitem', { name: 'Device events' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download Excel' }).click();
  expect((await download).suggestedFilename()).toMatch(/^device-events-.*\.xlsx$/);
  await snapshot(page, 'device-events');

  await sideMenu(page).getByRole('menuitem', { name: 'Devices', exact: true }).click();
  await expect(page.getByRole('row').filter({ hasText: serial })).toContainText('Offline');
  await snapshot(page, 'devices');

  // The home page tells how many of the devices are online.
  await sideMenu(page).getByRole('menuitem', { name: 'Home', exact: true }).click();
  await expect(page.getByText(/^0 of \d+ devices online$/)).toBeVisible();
  await snapshot(page, 'home-devices');
});

test('an installer finds a panel by IP search on 127.0.0.x and adds it to a group', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const serial = `FOUND${Date.now().toString(36).toUpperCase()}`;
  // A device answering discovery on 127.0.0.7 (the loopback range: no other host is touched).
  const device = createServer((req, res) => {
    if (req.url !== '/atrium/discovery') return res.writeHead(404).end();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ serial_number: serial, type: 'panel', model: 'AP-100', firmware: '1.0.0' }));
  });
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.7', resolve));
  const { port } = device.address() as AddressInfo;
  try {
    await signInFromLogin(page, ADMIN);
    // The spec's page answers at its own address, signed in or reached from the list.
    await page.goto('/devices/search');
    await expect(page.getByRole('heading', { level: 1, name: 'Search for devices' })).toBeVisible();
    await sideMenu(page).getByRole('menuitem', { name: 'Devices', exact: true }).click();
    await page.getByRole('link', { name: 'Search by IP' }).click();
    await expect(page).toHaveURL(/\/devices\/search$/);
    await expect(page.getByRole('navigation', { name: 'Breadcrumbs' })).toContainText('Devices/Search');
    // The group the devices go to is asked up front, its options in tree order (each group before its subgroups).
    const group = page.getByRole('combobox', { name: 'Group' });
    await expect(group).toBeVisible();
    await group.click();
    // An option reads "Site › House 1 (1)": the path, then the group's logical address when it has one.
    const options = (await page.getByRole('option').allTextContents()).map((o) => o.replace(/ \(\d+\)$/, '').split(' › '));
    expect(options.length).toBeGreaterThan(0);
    options.forEach((path, i) => {
      const next = options[i + 1];
      if (next && next.length > path.length) expect(next.slice(0, path.length), next.join(' › ')).toEqual(path);
    });
    await page.getByRole('option', { name: profile.domains[0]?.name ?? '', exact: true }).click();
    await page.getByRole('textbox', { name: 'First address' }).fill('127.0.0.6');
    await page.getByRole('textbox', { name: 'Last address' }).fill('127.0.0.8');
    await page.getByRole('textbox', { name: 'Port' }).fill(String(port));
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('Search finished: 1 device found');
    await page.getByRole('row').filter({ hasText: serial }).getByRole('checkbox').check();
    await snapshot(page, 'device-search');
    await page.getByRole('button', { name: 'Add 1 device' }).click();
    await expect(page.getByText('1 device added')).toBeVisible();
    await expect(page).toHaveURL(/\/devices(\?.*)?$/);
    await expect(page.getByRole('row').filter({ hasText: serial })).toContainText('AP-100');
  } finally {
    device.close();
  }
});
