// A concierge holds a door panel's call and reloads the page: the server keeps the held call
// (parked: it answers the panel for the closed browser), the reloaded dialer lists it and resumes
// it with a new INVITE naming it; the door button still opens the panel's lock, and the panel's
// hang-up ends the call in the browser.
import { SimDevice } from '@atrium/device-sim';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, snapshot, test } from './support/console';
import { callCard, groupOf, newNumber, registered, ringing, softphone } from './support/dialer';
import { sippPanel } from './support/sipp';

test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
    ],
  },
});

const CONCIERGE = ['can_call_all', 'can_receive_calls_as_concierge', 'can_call_panel'];

test('a concierge holds a panel’s call, reloads the page and resumes it', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const stamp = Date.now().toString(36).toUpperCase();
  const domainId = await groupOf(admin);
  const device = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Porch ${stamp}`,
    model: 'AP-100',
    serial_number: `PRK${stamp}`,
    domain_id: domainId,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${device.id}/init/apply`, {});
  const sim = new SimDevice({
    url: `mqtt://127.0.0.1:${mqttPort}`,
    serial: `PRK${stamp}`,
    password,
    type: 'panel',
    model: 'AP-100',
    reconnectMs: 0,
  });
  await sim.start();
  const number = newNumber('6');
  const sipPassword = `Panel${number}Pw`;
  await admin.call('PUT', '/sip-numbers', { number, password: sipPassword, domain_id: domainId, device_id: device.id });
  try {
    const concierge = await softphone(browser, admin, `Paula Parker ${Date.now()}`, CONCIERGE);
    const panel = await sippPanel('panel-parked.xml', { caller: number, password: sipPassword, callee: concierge.number });
    const page = concierge.page;

    await expect(ringing(page)).toBeVisible({ timeout: 15_000 });
    await callCard(page).getByRole('button', { name: 'Answer' }).click();
    await expect(callCard(page)).toHaveAttribute('data-status', 'active');
    await callCard(page).getByRole('button', { name: 'Hold' }).click();
    await expect(callCard(page)).toHaveAttribute('data-status', 'processed_paused');
    // Give the server the held call's record before the page goes.
    await page.waitForTimeout(500);

    // The page reloads: its SIP connection closes, the server parks the held call.
    await page.reload();
    await expect(registered(page)).toBeVisible({ timeout: 20_000 });
    if (!(await callCard(page).isVisible())) await page.locator('[data-floating-button="dialer"]').click();
    await expect(callCard(page)).toHaveAttribute('data-status', 'processed_paused', { timeout: 15_000 });
    await snapshot(page, 'dialer-parked-after-reload');
    await callCard(page).getByRole('button', { name: 'Resume' }).click();
    await expect(callCard(page)).toHaveAttribute('data-status', 'active', { timeout: 15_000 });
    await snapshot(page, 'dialer-resumed-after-reload');

    // The door button (# as SIP INFO) reaches the panel through the server; its lock opens.
    await callCard(page).getByRole('button', { name: 'Open door' }).click();
    await expect.poll(() => sim.opened.length, { timeout: 15_000 }).toBe(1);

    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    await expect(callCard(page)).toHaveAttribute('data-status', 'destroyed');
  } finally {
    await sim.stop({ graceful: false });
  }
});
