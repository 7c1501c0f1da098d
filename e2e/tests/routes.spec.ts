import { ADMIN, expect, signInFromLogin, test } from './support/console';

test('a signed-in user opening the root or a signed-out page is sent home', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  for (const path of ['/', '/login', '/password/recovery', '/self-registration']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('heading', { name: 'Welcome, Administrator' })).toBeVisible();
  }
});

test('an unknown address answers not-found', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  for (const path of ['/no/such/page', '/nothing-here']) {
    await page.goto(path);
    await expect(page.getByRole('main').getByRole('heading', { name: 'Page not found' })).toBeVisible();
  }
  await page.getByRole('link', { name: 'Go home' }).click();
  await expect(page).toHaveURL(/\/home$/);
});

test('a signed-out visitor on an unknown address is asked to sign in first', async ({ page }) => {
  await page.goto('/no/such/page?x=1');
  await expect(page).toHaveURL(/\/login\?redirect=%2Fno%2Fsuch%2Fpage%3Fx%3D1$/);
});

test('the terms are public, signed in or not', async ({ page }) => {
  await page.goto('/terms-and-conditions');
  await expect(page.frameLocator('iframe').getByRole('heading', { name: 'Terms and conditions' })).toBeVisible();
  await signInFromLogin(page, ADMIN);
  await page.goto('/terms-and-conditions');
  await expect(page.frameLocator('iframe').getByRole('heading', { name: 'Terms and conditions' })).toBeVisible();
});
