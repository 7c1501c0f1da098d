import { SimDevice } from '@atrium/device-sim';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, makeUser, realtimeSubscribed, sideMenu, signIn, signInFromLogin, snapshot, test } from './support/console';
import { groupOf, newNumber, softphone, withFakeMedia } from './support/dialer';
import { sippPanel } from './support/sipp';

// Device alarms as a guard meets them: a simulated panel (the real protocol, on the server's
// embedded broker) raises a fire alarm; the guard sees it arrive live in the list and as an important
// notification, opens it, sees the device clear it, processes it with a comment and deletes it, each
// step in the log. An SOS call from a panel lands in the SOS call history. Without the permission,
// neither page is offered.

test.use(withFakeMedia);

const GUARD = ['can_view_device_alarms', 'can_process_device_alarms', 'can_delete_device_alarms', 'can_view_descendant_devices'];

async function onlinePanel(admin: Api, name: string): Promise<{ id: number; sim: SimDevice }> {
  const serial = `ALM${Date.now().toString(36).toUpperCase()}`;
  const panel = await admin.call<{ id: number }>('PUT', '/devices', {
    name,
    model: 'AP-100',
    serial_number: serial,
    domain_id: await groupOf(admin),
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${panel.id}/init/apply`, {});
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-100', reconnectMs: 0 });
  await sim.start();
  await expect
    .poll(async () => (await admin.call<{ online: boolean }>('GET', `/devices/${panel.id}`)).online, { timeout: 15_000 })
    .toBe(true);
  return { id: panel.id, sim };
}

test('a device alarm raised by the simulator is seen live, processed with a comment and deleted', async ({ page, request }) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const name = `Entrance ${Date.now().toString(36).toUpperCase()}`;
  const { sim } = await onlinePanel(admin, name);
  const guard = await makeUser(admin, { permissions: GUARD, name: `Gina Guard ${Date.now().toString(36)}` });
  try {
    await page.goto('/login');
    const subscribed = realtimeSubscribed(page);
    await signIn(page, guard);
    await expect(page).toHaveURL(/\/home$/);
    await subscribed;
    await sideMenu(page).getByRole('menuitem', { name: 'Device alarms' }).click();
    await expect(page).toHaveURL(/\/devices\/alarms$/);
    await expect(page.getByRole('heading', { name: 'Device alarms' }).or(page.getByText('Device alarms')).first()).toBeVisible();

    // The panel's fire alarm: in the list and as an important notification, without a reload.
    await sim.alarmOn({ kind: 'fire', zone: 'Entrance hall' });
    const row = page.getByRole('row').filter({ hasText: name });
    await expect(row).toContainText('Fire · Entrance hall');
    await expect(row).toContainText('Active');
    const popup = page.getByRole('alert').filter({ hasText: 'Important notification' });
    await expect(popup).toContainText(`Alarm on ${name}`);
    await expect(popup).toContainText('fire: Entrance hall');
    await snapshot(page, 'device-alarms-notified');
    await popup.getByRole('button', { name: 'Mark as read' }).click();
    await expect(popup).toBeHidden();
    await snapshot(page, 'device-alarms-list');

    // Its page: the details and the log, live as the device clears it.
    await row.getByText(name).click();
    await expect(page).toHaveURL(/\/devices\/alarms\/\d+\/edit$/);
    const log = page.getByRole('list', { name: 'Log' });
    await expect(log.getByRole('listitem')).toHaveText([/The device raised the alarm/]);
    await expect(page.getByText('The device still reports it')).toBeVisible();
    await sim.alarmOff({ zone: 'Entrance hall' });
    // The status chip says so ("Cleared by the device" is also the label of the row below it, there from the start).
    await expect(page.getByText('Cleared by the device', { exact: true }).and(page.locator('.MuiChip-label'))).toBeVisible();
    await expect(page.getByText('The device still reports it')).toBeHidden();
    await expect(log.getByRole('listitem')).toHaveText([/The device raised the alarm/, /The device cleared the alarm/]);

    // Processing needs a comment.
    await page.getByRole('button', { name: 'Process' }).click();
    await expect(page.getByText('Field is required')).toBeVisible();
    await page
      .getByRole('textbox', { name: 'Comment' })
      .fill('Checked on site: smoke from the boiler room, no fire. Fire brigade not needed.');
    await snapshot(page, 'device-alarm-processing');
    await page.getByRole('button', { name: 'Process' }).click();
    await expect(page.getByText(`Processed by ${guard.name} at`)).toBeVisible();
    await expect(log.getByRole('listitem')).toHaveCount(3);
    await expect(log.getByRole('listitem').last()).toContainText(`Processed by ${guard.name}`);
    await expect(log.getByRole('listitem').last()).toContainText('smoke from the boiler room');
    await expect(page.getByRole('button', { name: 'Process' })).toHaveCount(0);
    await snapshot(page, 'device-alarm-processed');

    // Processed, it can be deleted: gone from the list.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete the alarm' }).getByRole('button', { name: 'Approve' }).click();
    await expect(page).toHaveURL(/\/devices\/alarms$/);
    await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(0);
  } finally {
    await sim.stop({ graceful: false });
  }
});

test('an SOS call from a panel is in the SOS call history of the guard who may see alarms', async ({ browser, request, page }) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const domainId = await groupOf(admin);
  const name = `Gate ${Date.now().toString(36).toUpperCase()}`;
  const { id: deviceId, sim } = await onlinePanel(admin, name);
  const panelNumber = newNumber('6');
  const panelPassword = `Panel${panelNumber}Pw`;
  await admin.call('PUT', '/sip-numbers', { number: panelNumber, password: panelPassword, domain_id: domainId, device_id: deviceId });
  try {
    const guard = await softphone(browser, admin, `Sol Guard ${Date.now()}`, [
      ...GUARD,
      'can_call_all',
      'can_receive_calls_as_concierge',
      'can_call_panel',
    ]);
    const call = await sippPanel('panel-ring-cancel.xml', {
      caller: panelNumber,
      password: panelPassword,
      callee: guard.number,
      keys: { sos: '1' },
    });
    const { code, errors } = await call.done;
    expect(code, errors).toBe(0);

    // The ring opened the dialer; the guard closes it and looks at the history.
    const dialer = guard.page.getByRole('dialog', { name: 'Dialer' });
    if (await dialer.isVisible()) await dialer.getByRole('button', { name: 'Close the dialer' }).click();
    await expect(dialer).toBeHidden();
    await sideMenu(guard.page).getByRole('menuitem', { name: 'SOS call history' }).click();
    await expect(guard.page).toHaveURL(/\/devices\/alarms-calls$/);
    const row = guard.page.getByRole('row').filter({ hasText: panelNumber });
    await expect(row).toContainText('SOS');
    await expect(row).toContainText('Cancelled');
    await expect(row).toContainText(guard.number);
    await snapshot(guard.page, 'device-alarms-sos-calls');

    // Someone without the alarms permission is offered neither page.
    const other = await makeUser(admin, { permissions: ['can_view_descendant_devices'] });
    await signInFromLogin(page, other);
    await expect(sideMenu(page).getByRole('menuitem', { name: 'Device alarms' })).toHaveCount(0);
    await expect(sideMenu(page).getByRole('menuitem', { name: 'SOS call history' })).toHaveCount(0);
    await guard.page.context().close();
  } finally {
    await sim.stop({ graceful: false });
  }
});
