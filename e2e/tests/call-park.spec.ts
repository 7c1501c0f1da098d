// A concierge holds a door panel's call and reloads the page: the server keeps the held call
// (parked: it answers the panel for the closed browser), the reloaded dialer lists it and resumes
// it with a new INVITE naming it; the door button still opens the panel's lock, and the panel's
// hang-up ends the call in the browser.
import { ADMIN, Api, expect, snapshot, test } from './support/console';
import { callCard, dialerButton, doorPanel, registered, ringing, softphone, withFakeMedia } from './support/dialer';
import { sippPanel } from './support/sipp';

test.use(withFakeMedia);

const CONCIERGE = ['can_call_all', 'can_receive_calls_as_concierge', 'can_call_panel'];

test('a concierge holds a panel’s call, reloads the page and resumes it', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const panel = await doorPanel(admin, 'Porch', 'PRK');
  try {
    const concierge = await softphone(browser, admin, `Paula Parker ${Date.now()}`, CONCIERGE);
    const call = await sippPanel('panel-parked.xml', { caller: panel.number, password: panel.password, callee: concierge.number });
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
    if (!(await callCard(page).isVisible())) await dialerButton(page).click();
    await expect(callCard(page)).toHaveAttribute('data-status', 'processed_paused', { timeout: 15_000 });
    await snapshot(page, 'dialer-parked-after-reload');
    await callCard(page).getByRole('button', { name: 'Resume' }).click();
    await expect(callCard(page)).toHaveAttribute('data-status', 'active', { timeout: 15_000 });
    await snapshot(page, 'dialer-resumed-after-reload');

    // The door button (# as SIP INFO) reaches the panel through the server; its lock opens.
    await callCard(page).getByRole('button', { name: 'Open door' }).click();
    await expect.poll(() => panel.sim.opened.length, { timeout: 15_000 }).toBe(1);

    const { code, errors } = await call.done;
    expect(code, errors).toBe(0);
    await expect(callCard(page)).toHaveAttribute('data-status', 'destroyed');
  } finally {
    await panel.sim.stop({ graceful: false });
  }
});
