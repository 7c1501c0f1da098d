import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SimDevice } from '@atrium/device-sim';
import { type FakeAxxonOne, startFakeAxxonOne } from '../../apps/server/src/modules/integrations/fake-axxon-one.fixture';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// Integrations with Axxon One (issue 14): an administrator connects the building's video server over
// gRPC with TLS (uploading its certificate), sees its cameras and macros, maps "access denied" to a
// macro, and a stranger's card at the entrance panel makes the video server run it.

let axxon: FakeAxxonOne;
test.beforeAll(async () => {
  axxon = await startFakeAxxonOne({ tls: true, user: 'atrium', password: 'video-password' });
});
test.afterAll(async () => {
  await axxon?.close();
});

const ALARM_MACRO = 'a1b2c3d4-0000-4000-8000-000000000002';

test('an administrator connects Axxon One and an unknown card at the panel launches a macro', async ({ page, request }) => {
  test.setTimeout(90_000);
  const admin = await Api.signIn(request, ADMIN);
  const stamp = Date.now().toString(36).toUpperCase();
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const serial = `AXX${stamp}`;
  const panel = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Entrance ${stamp}`,
    model: 'AP-100',
    serial_number: serial,
    domain_id: profile.domains[0]?.id,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${panel.id}/init/apply`, {});
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-100', reconnectMs: 0 });
  await sim.start();
  const certFile = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-axxon-')), 'axxon-server.pem');
  writeFileSync(certFile, axxon.certificate ?? '');
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Integrations', exact: true }).click();
    await expect(page).toHaveURL(/\/integrations$/);
    const main = page.getByRole('main');

    // Create: address, user, password and the server's certificate (TLS).
    await main.getByRole('button', { name: 'New integration' }).click();
    await expect(page).toHaveURL(/\/integration\/add$/);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Name' }).fill(`Video ${stamp}`.slice(0, 31));
    await dialog.getByRole('textbox', { name: 'Server address' }).fill(`localhost:${axxon.port}`);
    await dialog.getByRole('textbox', { name: 'User' }).fill('atrium');
    await dialog.getByLabel('Password').fill('video-password');
    await dialog.getByTestId('certificate-input').setInputFiles(certFile);
    await expect(dialog.getByTestId('certificate-state')).toContainText('axxon-server.pem');
    await expect(dialog.getByText('Save the integration first')).toBeVisible();
    await snapshot(page, 'integrations-create');
    await dialog.getByRole('button', { name: 'Save' }).click();

    // It stays open, at the spec's edit address: reachable over TLS, with the server's cameras and macros.
    await expect(page).toHaveURL(/\/integration\/\d+\/edit$/);
    await expect(dialog.getByRole('heading', { name: `Integration Video ${stamp}` })).toBeVisible();
    await expect(dialog.getByTestId('certificate-state')).toContainText('TLS: CN=localhost');
    await expect(dialog.getByText('Available', { exact: true })).toBeVisible();
    await expect(dialog.getByTestId('integration-cameras')).toContainText('1. Entrance');
    await expect(dialog.getByTestId('integration-cameras')).toContainText('2. Parking (inactive)');
    await expect(dialog.getByTestId('integration-macros')).toContainText('Alarm to operator');

    // Access denied → "Alarm to operator", for every device of the project.
    await dialog.getByRole('button', { name: 'Add rule' }).click();
    const rule = dialog.getByTestId('rule-0');
    await expect(rule.getByRole('combobox', { name: 'Event' })).toHaveText('Access denied');
    await rule.getByRole('combobox', { name: 'Macro' }).click();
    await page.getByRole('option', { name: 'Alarm to operator' }).click();
    await snapshot(page, 'integrations-edit');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(/\/integrations$/);

    const row = main.getByRole('row', { name: new RegExp(`Video ${stamp}`) });
    await expect(row).toContainText('TLS');
    await expect(row).toContainText('Available');
    await expect(row).toContainText('1 rule');
    await expect(row).toContainText('The whole project');
    await snapshot(page, 'integrations-list');

    // A card nobody knows, at the entrance: refused by the panel, and the video server runs the macro.
    expect(await sim.present('E2E0BAD1')).toMatchObject({ granted: false });
    await expect.poll(() => axxon.launched.length, { timeout: 15_000 }).toBe(1);
    expect(axxon.launched[0]).toMatchObject({
      macro_id: ALARM_MACRO,
      data: { event: 'access_denied', device_id: String(panel.id), identifier: 'E2E0BAD1' },
    });

    // The macro can be tried from the console too; the edit address opens the form directly.
    const [made] = await admin.call<{ id: number }[]>('GET', '/integrations');
    await page.goto(`/integration/${made?.id}/edit`);
    await expect(dialog.getByRole('heading', { name: `Integration Video ${stamp}` })).toBeVisible();
    await dialog
      .getByTestId('integration-macros')
      .getByRole('listitem')
      .filter({ hasText: 'Record entrance' })
      .getByRole('button', { name: 'Launch' })
      .click();
    await expect(page.getByText('The macro was launched')).toBeVisible();
    expect(axxon.launched.at(-1)?.macro_id).toBe('a1b2c3d4-0000-4000-8000-000000000001');

    // A wrong password: the server refuses the sign-in, and the console says so.
    await dialog.getByLabel('Password').fill('not-the-password');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(row.getByText('gRPC connection error (UNAUTHENTICATED)')).toBeVisible();

    // The same server twice: refused.
    await main.getByRole('button', { name: 'New integration' }).click();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Twice');
    await dialog.getByRole('textbox', { name: 'Server address' }).fill(`LOCALHOST:${axxon.port}`);
    await dialog.getByRole('textbox', { name: 'User' }).fill('atrium');
    await dialog.getByLabel('Password').fill('x');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('An integration server with this URL exists')).toBeVisible();
    await snapshot(page, 'integrations-duplicate');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // In Russian too (the administrator's language is set back afterwards).
    await page.getByRole('button', { name: 'Русский' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Интеграции' })).toBeVisible();
    await expect(row).toContainText('Весь проект');
    await expect(row).toContainText('Ошибка подключения gRPC (UNAUTHENTICATED)');
    await snapshot(page, 'integrations-list-ru');
    await page.getByRole('button', { name: 'English' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Integrations' })).toBeVisible();

    // Deleted by selection.
    await row.getByRole('checkbox').check();
    await main.getByRole('button', { name: 'Delete selected' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await expect(row).toBeHidden();
  } finally {
    // Deleted before its simulator goes away: the group's device-status watchers (device-walk asks
    // for the administrator) get no "went offline" notice to pop up over later tests.
    await admin.call('DELETE', `/devices/${panel.id}`).catch(() => undefined);
    await sim.stop({ graceful: false });
  }
});

test("a group's integrations on its page, and a device picks an available integration's camera", async ({ page, request }) => {
  test.setTimeout(90_000);
  const video = await startFakeAxxonOne();
  const admin = await Api.signIn(request, ADMIN);
  const stamp = Date.now().toString(36).toUpperCase();
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const top = profile.domains[0]?.id;
  const building = await admin.call<{ id: number }>('PUT', '/domains', { name: `Tower ${stamp}`, parent_id: top });
  const elsewhere = await admin.call<{ id: number }>('PUT', '/domains', { name: `Annex ${stamp}`, parent_id: top });
  const settings = (port: number) => ({ url: `127.0.0.1:${port}`, user: video.user, password: video.password });
  const towerVideo = await admin.call<{ id: number }>('POST', '/integrations', {
    name: `Tower cams ${stamp}`.slice(0, 31),
    domain_id: building.id,
    axxon_one_settings: settings(video.port),
  });
  await admin.call('POST', '/integrations', {
    name: `Annex cams ${stamp}`.slice(0, 31),
    domain_id: elsewhere.id,
    axxon_one_settings: { url: `annex-${stamp.toLowerCase()}.example`, user: 'u', password: 'p' },
  });
  const panel = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Tower door ${stamp}`,
    model: 'AP-100',
    serial_number: `AXD${stamp}`,
    domain_id: building.id,
  });
  try {
    await signInFromLogin(page, ADMIN);
    const main = page.getByRole('main');

    // The group's page lists its integrations, with the spec's add and edit addresses.
    await page.goto(`/groups/${building.id}`);
    await main.getByRole('tab', { name: 'Integrations' }).click();
    const section = main.getByTestId('integrations-section');
    // The section's list is the console's list kit: the integration's row is the one holding its name's cell.
    const towerRow = section.getByRole('row').filter({ has: page.getByTestId(`section-integration-${towerVideo.id}`) });
    await expect(towerRow).toContainText(`Tower cams ${stamp}`.slice(0, 31));
    await expect(towerRow).toContainText('Available');
    await expect(section).not.toContainText('Annex cams');
    await snapshot(page, 'integrations-group-section');
    await section.getByRole('link', { name: 'New integration' }).click();
    await expect(page).toHaveURL(new RegExp(`/integration/add\\?domain_id=${building.id}$`));
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('combobox', { name: 'Group', exact: true })).toHaveValue(`Tower ${stamp}`);
    // Breadcrumbs and the menu entry of the spec's singular address.
    // (the open dialog hides the rest of the page from the accessibility tree: found by their classes)
    await expect(page.locator('nav.MuiBreadcrumbs-root')).toHaveText('Settings/Integrations/New');
    await expect(page.locator('.RaMenuItemLink-active')).toHaveText('Integrations');
    await snapshot(page, 'integrations-group-add');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(page).toHaveURL(new RegExp(`/groups/${building.id}$`));
    await main.getByRole('tab', { name: 'Integrations' }).click();
    await towerRow.getByRole('link', { name: 'Edit' }).click();
    await expect(page).toHaveURL(new RegExp(`/integration/${towerVideo.id}/edit$`));
    await expect(dialog.getByTestId('integration-cameras')).toContainText('1. Entrance');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(page).toHaveURL(new RegExp(`/groups/${building.id}$`));

    // The device form: only the integrations available to the tower, then one of the server's cameras.
    await page.goto(`/devices/${panel.id}`);
    await main.getByRole('tab', { name: 'Video integration' }).click();
    const block = main.getByTestId('device-integration-axxon');
    await block.getByRole('combobox', { name: 'Integration' }).click();
    await expect(page.getByRole('option', { name: `Tower cams ${stamp}`.slice(0, 31) })).toBeVisible();
    await expect(page.getByRole('option', { name: /Annex cams/ })).toHaveCount(0);
    await page.getByRole('option', { name: `Tower cams ${stamp}`.slice(0, 31) }).click();
    await block.getByRole('combobox', { name: 'Camera' }).click();
    await page.getByRole('option', { name: /^Entrance/ }).click();
    await block.getByText('Link a camera of an integration').click();
    await snapshot(page, 'integrations-device-picker');
    await main.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(
        async () =>
          (await admin.call<{ device_settings: { integration_axxon: unknown } }>('GET', `/devices/${panel.id}`)).device_settings
            .integration_axxon,
      )
      .toMatchObject({ enabled: true, integration_id: towerVideo.id, camera_display_name: 'Entrance' });

    // Project-level integrations in the project settings.
    await page.goto('/general-settings?tab=integrations');
    await expect(main.getByTestId('integrations-section')).toContainText('Project-level integrations');
    await expect(main.getByTestId('integrations-section')).not.toContainText('Tower cams');
    await snapshot(page, 'integrations-general-settings');
  } finally {
    await admin.call('DELETE', `/devices/${panel.id}`).catch(() => undefined);
    await video.close();
  }
});
