// Telephony as people use it: a door panel (SIPp, authenticated with its virtual number) calls the
// concierge, whose browser rings; the concierge answers and opens the door from the dialer, and the
// simulated panel (the same device, on the server's MQTT broker) opens its lock. A concierge holds
// a call and resumes it; an SOS call looks like one; a call nobody answers is forwarded by the
// number's own rule; the call history shows each outcome.
import { ADMIN, Api, expect, signInFromLogin, snapshot, test } from './support/console';
import { callCard, dial, doorPanel, groupOf, newNumber, ringing, type Softphone, softphone, withFakeMedia } from './support/dialer';
import { type SippPanel, sippPanel } from './support/sipp';

test.use(withFakeMedia);

const CONCIERGE = ['can_call_all', 'can_receive_calls_as_concierge', 'can_call_panel'];

async function succeeded(panel: SippPanel): Promise<void> {
  const { code, errors } = await panel.done;
  expect(code, errors).toBe(0);
}

test('a door panel calls the concierge, who answers in the browser and opens the door with the dialer’s door button', async ({
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const admin = await Api.signIn(request, ADMIN);
  const panel = await doorPanel(admin, 'Entrance', 'TEL');
  try {
    const concierge = await softphone(browser, admin, `Carla Concierge ${Date.now()}`, CONCIERGE);
    const call = await sippPanel('panel-door.xml', { caller: panel.number, password: panel.password, callee: concierge.number });

    // The concierge's button rings and the dialer opens on the ringing call.
    await expect(ringing(concierge.page)).toBeVisible({ timeout: 15_000 });
    await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'calling');
    await expect(callCard(concierge.page)).toContainText(`${panel.name} (${panel.number})`);
    await snapshot(concierge.page, 'dialer-panel-ringing');

    await callCard(concierge.page).getByRole('button', { name: 'Answer' }).click();
    await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'active');
    await expect(ringing(concierge.page)).toHaveCount(0);
    await snapshot(concierge.page, 'dialer-panel-in-call');

    // The door button sends # (SIP INFO) to the panel; the panel's device opens its lock.
    await callCard(concierge.page).getByRole('button', { name: 'Open door' }).click();
    await expect.poll(() => panel.sim.opened.length, { timeout: 15_000 }).toBe(1);

    // The panel hangs up; the call ends in the browser and leaves the list.
    await succeeded(call);
    await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'destroyed');
    await expect(callCard(concierge.page)).toHaveCount(0, { timeout: 8_000 });
  } finally {
    await panel.sim.stop({ graceful: false });
  }
});

test('a concierge holds a call and resumes it; the caller sees it on hold meanwhile', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const admin = await Api.signIn(request, ADMIN);
  const operator = await softphone(browser, admin, `Otto Operator ${Date.now()}`, CONCIERGE);
  const concierge = await softphone(browser, admin, `Cora Concierge ${Date.now()}`, CONCIERGE);

  await dial(operator.page, concierge.number);
  await expect(ringing(concierge.page)).toBeVisible({ timeout: 15_000 });
  await callCard(concierge.page).getByRole('button', { name: 'Answer' }).click();
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'active');
  await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'active');

  // Hold: a re-INVITE through the proxy; the call stays up, waiting, for both.
  await callCard(concierge.page).getByRole('button', { name: 'Hold' }).click();
  await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'processed_paused');
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'processed_paused');
  await expect(callCard(concierge.page).getByRole('button', { name: 'Resume' })).toBeVisible();
  await snapshot(concierge.page, 'dialer-on-hold');
  await snapshot(operator.page, 'dialer-held-by-other');

  // Resume: the same call again, talking.
  await callCard(concierge.page).getByRole('button', { name: 'Resume' }).click();
  await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'active');
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'active');
  await expect(callCard(concierge.page).getByRole('button', { name: 'Hold' })).toBeVisible();

  await callCard(operator.page).getByRole('button', { name: 'End call' }).click();
  await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'destroyed');
});

test('an SOS call from a panel rings with the SOS look', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const admin = await Api.signIn(request, ADMIN);
  const panel = await doorPanel(admin, 'Entrance', 'TEL');
  try {
    const concierge = await softphone(browser, admin, `Cleo Concierge ${Date.now()}`, CONCIERGE);
    const call = await sippPanel('panel-ring-cancel.xml', {
      caller: panel.number,
      password: panel.password,
      callee: concierge.number,
      keys: { sos: '1' },
    });
    await expect(ringing(concierge.page)).toBeVisible({ timeout: 15_000 });
    await expect(callCard(concierge.page)).toHaveAttribute('data-sos', 'true');
    await expect(callCard(concierge.page)).toContainText('SOS call');
    await snapshot(concierge.page, 'dialer-sos-ringing');
    // The panel gives up: the ring stops and the call is over.
    await succeeded(call);
    await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'destroyed');
    await expect(ringing(concierge.page)).toHaveCount(0);
  } finally {
    await panel.sim.stop({ graceful: false });
  }
});

test('a call nobody answers is forwarded by the number’s rule, and the call history shows answered, no answer and cancelled', async ({
  browser,
  request,
  page,
}) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const operator = await softphone(browser, admin, `Omar Operator ${Date.now()}`, CONCIERGE);
  const first = await softphone(browser, admin, `Fay First ${Date.now()}`, CONCIERGE);
  const second = await softphone(browser, admin, `Sam Second ${Date.now()}`, CONCIERGE);
  // A spare number nobody registers: the second concierge's calls go there after 3 s, and fail.
  const spare = newNumber('6');
  await admin.call('PUT', '/sip-numbers', { number: spare, password: `Spare${spare}Pw`, domain_id: await groupOf(admin) });
  const forward = (n: Softphone, to: string) =>
    admin.call('PATCH', `/sip-numbers/${n.numberId}`, {
      forward_mode: 'manual',
      forward_rules: { redirect_if_no_answer: { timeout: 3, numbers: [to] }, redirect_if_error: null },
    });
  await forward(first, second.number);
  await forward(second, spare);

  // Answered: the first concierge does not answer; after 3 s the call rings the second, who answers.
  await dial(operator.page, first.number);
  await expect(ringing(first.page)).toBeVisible({ timeout: 15_000 });
  await expect(ringing(second.page)).toBeVisible({ timeout: 15_000 });
  await expect(ringing(first.page)).toHaveCount(0);
  await callCard(second.page).getByRole('button', { name: 'Answer' }).click();
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'active');
  await callCard(operator.page).getByRole('button', { name: 'End call' }).click();
  await expect(callCard(second.page)).toHaveAttribute('data-status', 'destroyed');
  await expect(callCard(operator.page)).toHaveCount(0, { timeout: 8_000 });

  // No answer: the second concierge lets it ring; its rule sends it to the spare number, which nobody answers.
  await dial(operator.page, second.number);
  await expect(ringing(second.page)).toBeVisible({ timeout: 15_000 });
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'destroyed', { timeout: 15_000 });
  await expect(callCard(operator.page)).toHaveCount(0, { timeout: 8_000 });

  // Cancelled: the operator gives up while the first concierge's phone rings.
  await dial(operator.page, first.number);
  await expect(ringing(first.page)).toBeVisible({ timeout: 15_000 });
  await callCard(operator.page).getByRole('button', { name: 'End call' }).click();
  await expect(ringing(first.page)).toHaveCount(0);

  await signInFromLogin(page, ADMIN);
  await page.goto('/call-history');
  const row = (to: string, status: string) =>
    page.getByRole('row').filter({ hasText: operator.number }).filter({ hasText: to }).filter({ hasText: status });
  await expect(row(first.number, 'Answered')).toHaveCount(1);
  await expect(row(second.number, 'No answer')).toHaveCount(1);
  await expect(row(first.number, 'Cancelled')).toHaveCount(1);
  await snapshot(page, 'call-history-outcomes');
});
