import { TOTP_PERIOD_SECONDS } from '@atrium/contract';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, Api, expect, makeUser, signIn, signInFromLogin, snapshot, test } from './support/console';

// A role that requires two-factor sign-in (issue 14): the administrator switches it on in the role
// form; a holder without it sets it up at their next sign-in, sees the recovery codes once, and only
// then enters the console.

const appCode = (key: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(key) }).generate({ timestamp: Date.now() + steps * TOTP_PERIOD_SECONDS * 1000 });

test('an administrator requires two-factor sign-in for a role; its holder sets it up at the next sign-in', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const user = await makeUser(admin);

  await signInFromLogin(page, ADMIN);
  await page.goto(`/roles/${user.roleId}`);
  const flag = page.getByLabel('Two-factor sign-in required');
  await expect(flag).not.toBeChecked();
  await flag.check();
  await snapshot(page, 'role-two-factor-required');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(async () => (await admin.call<{ two_factor_required: boolean }>('GET', `/roles/${user.roleId}`)).two_factor_required)
    .toBe(true);

  await page.context().clearCookies();
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  await page.goto('/login');
  await signIn(page, user);
  await expect(page.getByText('Your role requires two-factor sign-in.')).toBeVisible();
  await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await expect(page.getByRole('img', { name: 'QR code for the authenticator app' })).toBeVisible();
  const key = ((await page.getByTestId('two-factor-secret').textContent()) ?? '').replace(/\s/g, '');
  expect(key).toMatch(/^[A-Z2-7]{32}$/);
  await snapshot(page, 'two-factor-role-enrol');
  await page.getByLabel('Code').fill(appCode(key));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByTestId('two-factor-recovery-codes').getByRole('listitem')).toHaveCount(10);
  // Not in the console before the codes were seen.
  await expect(page).toHaveURL(/\/login/);
  await page.getByRole('button', { name: 'I have saved the codes' }).click();
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByRole('heading', { name: /^Welcome/ })).toBeVisible();
});
