import type { Locator, Page } from '@playwright/test';
import { ADMIN, expect, signInFromLogin, test } from './support/console';

// index.html paints the sign-in page before any script has run, and the console's page takes its
// place without moving anything. Scripts are refused to see that first paint as a slow phone does.
const refuseScripts = (page: Page) => page.route(/\.js$/, (route) => route.abort());
const box = async (locator: Locator) => {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not on screen');
  return b;
};

for (const [locale, title, button] of [
  ['en', 'Sign in', 'Sign in'],
  ['ru', 'Вход', 'Войти'],
] as const) {
  test(`before its scripts the sign-in page is already there, in ${locale}, where it will stay`, async ({ page }) => {
    await page.addInitScript((l) => localStorage.setItem('RaStore.atrium.locale', JSON.stringify(l)), locale);
    await refuseScripts(page);
    await page.goto('/login');
    const shell = page.locator('#shell');
    await expect(shell.locator('h1')).toHaveText(title, { useInnerText: true });
    await expect(shell.locator('.submit')).toHaveText(button, { useInnerText: true });
    const drawn = {
      brand: await box(shell.locator('.brand')),
      card: await box(shell.locator('.card')),
      title: await box(shell.locator('h1')),
      button: await box(shell.locator('.submit')),
    };

    await page.unrouteAll();
    await page.goto('/login');
    const signIn = page.getByRole('button', { name: button });
    await expect(signIn).toBeVisible();
    await expect(shell).toHaveCount(0);
    const main = page.getByRole('main');
    const real = {
      brand: await box(main.locator('> div').first()),
      card: await box(main.locator('.MuiCard-root')),
      title: await box(page.getByRole('heading', { name: title })),
      button: await box(signIn),
    };
    for (const part of Object.keys(drawn) as (keyof typeof drawn)[])
      for (const side of ['x', 'y', 'width', 'height'] as const)
        expect(real[part][side], `${part} ${side}`).toBeCloseTo(drawn[part][side], 0);
  });
}

test('signed in, the first paint is the console loading, not a sign-in form', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await refuseScripts(page);
  await page.goto('/users');
  await expect(page.locator('#shell .loader')).toBeVisible();
  await expect(page.locator('#shell .sign-in')).toBeHidden();

  await page.unrouteAll();
  await page.goto('/users');
  await expect(page.getByRole('button', { name: 'Profile menu' })).toBeVisible();
  await expect(page.locator('#shell')).toHaveCount(0);
});
