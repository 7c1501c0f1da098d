// Two softphones (JsSIP in Chromium, fake camera and microphone) register with Atrium's SIP server
// over its WebSocket and call each other through the console's dialer.
import { ADMIN, Api, expect, test } from './support/console';
import { callCard, dialerButton, registered, softphone, withFakeMedia } from './support/dialer';

test.use(withFakeMedia);

const CALLERS = ['can_call_all', 'can_receive_calls_as_concierge', 'can_intercept_calls'];

test('an operator calls a concierge from the contacts; the concierge answers, they talk, and the call leaves 5 s after it ends', async ({
  browser,
  request,
}) => {
  const admin = await Api.signIn(request, ADMIN);
  const operator = await softphone(browser, admin, `Olga Operator ${Date.now()}`, CALLERS);
  const concierge = await softphone(browser, admin, `Conrad Concierge ${Date.now()}`, CALLERS);
  await expect(registered(operator.page)).toBeVisible({ timeout: 20_000 });
  await expect(registered(concierge.page)).toBeVisible({ timeout: 20_000 });
  await expect(dialerButton(operator.page)).toHaveAttribute('aria-label', 'Dialer: ready');

  await dialerButton(operator.page).click();
  const contacts = operator.page.getByTestId('dialer-contacts');
  await contacts.getByRole('textbox', { name: 'Search' }).fill('conrad');
  await expect(contacts.locator('mark').first()).toHaveText(/conrad/i);
  await expect(contacts.getByText(operator.name)).toHaveCount(0);
  await contacts.getByRole('button', { name: new RegExp(`^Call ${concierge.name}`) }).click();

  // The concierge's button rings and the panel opens on the ringing call.
  await expect(concierge.page.locator('[data-ringing="true"]')).toBeVisible({ timeout: 15_000 });
  await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'calling');
  await callCard(concierge.page).getByRole('button', { name: 'Answer' }).click();
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'active');
  await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'active');

  // Mute is per call, for the microphone and for the sound.
  await callCard(operator.page).getByRole('button', { name: 'Mute microphone' }).click();
  await expect(callCard(operator.page).getByRole('button', { name: 'Unmute microphone' })).toBeVisible();

  // Starting another call while one is active asks first, with the cancellation wording.
  const keypad = operator.page.getByTestId('dialer-keypad');
  for (const digit of '55') await keypad.getByRole('button', { name: digit, exact: true }).click();
  await operator.page.getByRole('button', { name: 'Voice call' }).click();
  await expect(operator.page.getByRole('dialog')).toContainText(`The call with ${concierge.number} will be ended.`);
  await operator.page.getByRole('button', { name: 'Back' }).click();

  await callCard(concierge.page).getByRole('button', { name: 'End call' }).click();
  await expect(callCard(operator.page)).toHaveAttribute('data-status', 'destroyed');
  await expect(callCard(operator.page)).toHaveCount(0, { timeout: 8_000 });

  await operator.page.getByRole('tab', { name: 'Recents' }).click();
  await expect(operator.page.getByTestId('dialer-recents')).toContainText(concierge.number);
});

test('the keypad shows its placeholder, refuses the own number, and video on an empty keypad fills the last number', async ({
  browser,
  request,
}) => {
  const admin = await Api.signIn(request, ADMIN);
  const operator = await softphone(browser, admin, `Oscar Operator ${Date.now()}`, CALLERS);
  await expect(registered(operator.page)).toBeVisible({ timeout: 20_000 });
  await dialerButton(operator.page).click();
  const keypad = operator.page.getByTestId('dialer-keypad');
  await expect(operator.page.getByTestId('dialer-keypad-display')).toHaveText('...');
  await expect(operator.page.getByRole('button', { name: 'Voice call' })).toHaveCount(0);
  for (const digit of operator.number) await keypad.getByRole('button', { name: digit, exact: true }).click();
  await operator.page.getByRole('button', { name: 'Voice call' }).click();
  await expect(operator.page.getByText('Unable to call your number')).toBeVisible();

  for (const _ of operator.number) await keypad.getByRole('button', { name: 'Delete the last digit' }).click();
  for (const digit of '42') await keypad.getByRole('button', { name: digit, exact: true }).click();
  await operator.page.getByRole('button', { name: 'Voice call' }).click();
  // Nobody has number 42: the call may fail at once; either way the keypad is emptied after dialling.
  await expect(callCard(operator.page)).toHaveCount(1);
  await expect(operator.page.getByTestId('dialer-keypad-display')).toHaveText('...');
  await operator.page.getByRole('button', { name: 'Video call' }).click();
  await expect(operator.page.getByTestId('dialer-keypad-display')).toHaveText('42');
});
