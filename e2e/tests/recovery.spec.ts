import { expect, test } from './support/console';

test('a person who forgot the password asks for a link and is told it is on its way', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/password\/recovery$/);
  await page.getByRole('textbox', { name: 'E-mail' }).fill('nobody-in-particular@example.com');
  await page.getByRole('button', { name: 'Send the link' }).click();
  // The same answer whether or not the address has an account, so nobody can probe for accounts.
  await expect(page.getByText('If the address belongs to an account, a link to reset the password is on its way.')).toBeVisible();
  await page.getByRole('link', { name: 'Back to sign in' }).click();
  await expect(page).toHaveURL(/\/login$/);
});

test('a malformed e-mail address is caught before anything is sent', async ({ page }) => {
  await page.goto('/password/recovery');
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/v0/password/recovery')) sent.push(r.url());
  });
  await page.getByRole('textbox', { name: 'E-mail' }).fill('not-an-address');
  await page.getByRole('button', { name: 'Send the link' }).click();
  await expect(page.getByText('Value must be an e-mail')).toBeVisible();
  expect(sent).toEqual([]);
});

test('a broken or used reset link says so when the new password is sent', async ({ page }) => {
  for (const link of ['/password/reset/x', '/password/reset/no-such-reset-code']) {
    await page.goto(link);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('a-new-password-1');
    await page.getByRole('textbox', { name: 'Repeat the password' }).fill('a-new-password-1');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect(page.getByText('Verification link is outdated or incorrect')).toBeVisible();
  }
});
