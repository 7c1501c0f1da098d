import { TOTP_PERIOD_SECONDS } from '@atrium/contract';
import type { Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, Api, expect, makeUser, signIn, signInFromLogin, snapshot, test } from './support/console';

// Two-factor sign-in with TOTP (issue 14): a person turns it on in the profile with an authenticator
// app (here otpauth computes the app's codes from the key the console shows), then signs in with it.

/** The authenticator app's code, `steps` periods from now. */
const appCode = (key: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(key) }).generate({ timestamp: Date.now() + steps * TOTP_PERIOD_SECONDS * 1000 });

async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login/);
}

test('a user turns on two-factor sign-in in the profile, then signs in with a code and once with a recovery code', async ({
  page,
  request,
}) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, user);
  await page.goto('/profile');
  const section = page.getByTestId('two-factor-section');
  await expect(section).toContainText('Off.');
  await section.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();

  const dialog = page.getByRole('dialog', { name: 'Turn on two-factor sign-in' });
  await dialog.getByLabel('Current password').fill('not-my-password');
  await dialog.getByRole('button', { name: 'Next' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('The current password is wrong');
  await dialog.getByLabel('Current password').fill(user.password);
  await dialog.getByRole('button', { name: 'Next' }).click();
  await expect(dialog.getByRole('img', { name: 'QR code for the authenticator app' })).toBeVisible();
  const key = ((await dialog.getByTestId('two-factor-secret').textContent()) ?? '').replace(/\s/g, '');
  expect(key).toMatch(/^[A-Z2-7]{32}$/);
  await snapshot(page, 'two-factor-enrol-qr');

  await dialog.getByLabel('Code').fill('000000' === appCode(key) ? '111111' : '000000');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Invalid code');
  await dialog.getByLabel('Code').fill(appCode(key));
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  const codes = dialog.getByTestId('two-factor-recovery-codes').getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.allTextContents()).map((c) => c.trim());
  await snapshot(page, 'two-factor-recovery-codes');
  await dialog.getByRole('button', { name: 'I have saved the codes' }).click();
  await expect(section).toContainText('On. Recovery codes left: 10');
  await snapshot(page, 'two-factor-profile-on');

  // Signing in now wants a code after the password. The enrolment used this period's code: the next one is the app's next.
  await signOut(page);
  await signIn(page, user);
  await expect(page.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
  await snapshot(page, 'two-factor-sign-in-step');
  await page.getByLabel('Code').fill(appCode(key, 1));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/home$/);

  // A recovery code opens the console once…
  await signOut(page);
  await signIn(page, user);
  await page.getByLabel('Code').fill(recovery[0] as string);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/profile');
  await expect(page.getByTestId('two-factor-section')).toContainText('On. Recovery codes left: 9');

  // …and never again.
  await signOut(page);
  await signIn(page, user);
  await page.getByLabel('Code').fill(recovery[0] as string);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid code');
  await expect(page).toHaveURL(/\/login/);
});

test('a user turns two-factor sign-in off with the password and a recovery code', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  const own = await Api.signIn(request, user);
  const { secret } = await own.call<{ secret: string }>('POST', '/profile/two-factor/enrol', { password: user.password });
  const { recovery_codes } = await own.call<{ recovery_codes: string[] }>('POST', '/profile/two-factor/confirm', { code: appCode(secret) });

  await page.goto('/login');
  await signIn(page, user);
  const used = appCode(secret, 1);
  await page.getByLabel('Code').fill(used);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/profile');
  const section = page.getByTestId('two-factor-section');
  await section.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Turn off two-factor sign-in' });
  await dialog.getByLabel('Current password').fill(user.password);
  // The code just used to sign in does not work a second time.
  await dialog.getByLabel('Code').fill(used);
  await dialog.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Invalid code');
  await snapshot(page, 'two-factor-turn-off');
  await dialog.getByLabel('Code').fill(recovery_codes[0] as string);
  await dialog.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
  await expect(dialog).toBeHidden();
  await expect(section).toContainText('Off.');

  // The next sign-in is with the password alone.
  await signOut(page);
  await signIn(page, user);
  await expect(page).toHaveURL(/\/home$/);
});
