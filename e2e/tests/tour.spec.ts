import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

/**
 * A signed-in page as a screen reader and a browser tab see it: its own title in the tab
 * ("Users — Atrium"), exactly one h1, and no serious or critical axe-core finding.
 */
async function expectAccessiblePage(page: Page, title: string) {
  await expect(page).toHaveTitle(`${title} — Atrium`);
  await expect(page.locator('h1')).toHaveCount(1);
  await expect(page.locator('h1')).toHaveText(title);
  await expectNoSeriousAxeFinding(page);
}

/** axe-core finds nothing serious or critical on the page as it stands. */
async function expectNoSeriousAxeFinding(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ').replace(/\.css-[a-z0-9]+/g, '')).join(', ')}`);
  expect(serious, `axe on ${page.url()}`).toEqual([]);
}

// A walk through every main page, each checked for what a person sees first, photographed for a
// human to look at (e2e/screenshots), and scanned for untranslated keys.

test('the signed-out pages', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Forgot password?' })).toBeVisible();
  await expect(page).toHaveTitle('Sign in · Atrium');
  await expectNoSeriousAxeFinding(page);
  await snapshot(page, 'login');

  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { name: 'Password recovery' })).toBeVisible();
  await expect(page).toHaveTitle('Password recovery · Atrium');
  await expectNoSeriousAxeFinding(page);
  await snapshot(page, 'password-recovery');

  await page.goto('/password/reset/some-reset-code');
  await expect(page.getByRole('heading', { name: 'New password' })).toBeVisible();
  await snapshot(page, 'password-reset');

  await page.goto('/self-registration');
  await expect(page.getByRole('heading', { name: 'Self-registration' })).toBeVisible();
  await expect(page).toHaveTitle('Self-registration · Atrium');
  await expectNoSeriousAxeFinding(page);
  await snapshot(page, 'self-registration');

  await page.goto('/registration/not-an-invitation');
  await expect(page.getByRole('alert')).toContainText("Can't find the user");
  await snapshot(page, 'registration-invalid-invite');

  await page.goto('/registration/confirm/x');
  await expect(page.getByRole('alert')).toContainText('Verification link is outdated or incorrect');
  await snapshot(page, 'registration-confirm-invalid');

  await page.goto('/terms-and-conditions');
  await expect(page.frameLocator('iframe').getByRole('heading', { name: 'Terms and conditions' })).toBeVisible();
  await snapshot(page, 'terms');

  await page.goto('/choose-project');
  await expect(page.getByText('There is no project to choose. Sign in again.')).toBeVisible();
  await snapshot(page, 'choose-project-empty');

  await page.goto('/login');
  await page.getByRole('button', { name: 'Русский' }).click();
  await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible();
  await snapshot(page, 'login-ru');
  await page.goto('/self-registration');
  await expect(page.getByRole('heading', { name: 'Самостоятельная регистрация' })).toBeVisible();
  // Self-registration is off on this server (the default): the page says so, in Russian, with no form
  // (the countries' Russian order is checked in apps/web/src/pages/countries.test.ts).
  await expect(page.getByRole('status')).toContainText('Самостоятельная регистрация на этом сервере закрыта');
  await expect(page.getByRole('combobox', { name: 'Страна' })).toHaveCount(0);
  await snapshot(page, 'self-registration-ru');
});

test('the API documentation', async ({ page }) => {
  await page.goto('/api/docs/');
  await expect(page.getByRole('heading', { name: /Atrium API/ })).toBeVisible();
  // The areas are folded; signing in needs no token, reading the profile does.
  await page.getByRole('heading', { name: /^session\b/ }).click();
  await page.getByRole('heading', { name: /^profile\b/ }).click();
  const login = page.locator('.opblock-post').filter({ hasText: '/login' }).first();
  await expect(login).toBeVisible();
  await expect(login.locator('.authorization__btn')).toHaveCount(0);
  const profile = page.locator('.opblock-get').filter({ hasText: '/profile' }).first();
  await expect(profile.locator('.authorization__btn')).toHaveCount(1);
  await snapshot(page, 'api-docs');
});

test('the signed-in pages', async ({ page, request }) => {
  // Eight pages, each scanned by axe with the whole side menu: more than the default on a busy machine.
  test.setTimeout(240_000);
  await signInFromLogin(page, ADMIN);
  await expect(sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true })).toBeVisible();
  // The home page summarises what exists: counts leading to their lists, and the latest changes.
  await expect(page.getByRole('link', { name: /^\d+ Users$/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /^\d+ Roles$/ })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Recent changes' })).toBeVisible();
  await expectAccessiblePage(page, 'Home');
  await snapshot(page, 'home');

  for (const [path, title] of [
    ['/users', 'Users'],
    ['/groups', 'Groups'],
    ['/roles', 'Roles'],
    ['/outbox', 'Outbox'],
    ['/roles/create', 'New role'],
    ['/users/create', 'New user'],
    ['/devices', 'Devices'],
    ['/notifications', 'Notifications'],
  ] as const) {
    await page.goto(path);
    await expectAccessiblePage(page, title);
  }
  await snapshot(page, 'outbox');

  await page.goto('/profile');
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue('Administrator');
  await expectAccessiblePage(page, 'Profile');
  await snapshot(page, 'profile');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByRole('dialog', { name: 'Change password' })).toBeVisible();
  // A dialog over a long page: the viewport, as the person sees it.
  await snapshot(page, 'profile-change-password', { fullPage: false });
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.goto('/notifications/settings');
  await expect(page.getByRole('switch', { name: /access control events/ })).toBeChecked();
  await snapshot(page, 'notification-settings');

  await page.goto('/some/unknown/place');
  await expect(page.getByRole('main').getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await snapshot(page, 'not-found');

  // A notification to show in the list and the bell.
  const user = await makeUser(await Api.signIn(request, ADMIN));
  const api = await Api.signIn(request, user);
  await api.call('POST', '/profile/password', { old: user.password, new: `${user.password}-2` });
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await signInFromLogin(page, { login: user.login, password: `${user.password}-2` });
  await page.getByRole('button', { name: /^Notifications/ }).click();
  await expect(page.getByRole('menuitem', { name: /Your password was changed/ })).toBeVisible();
  await snapshot(page, 'bell');
  await page.keyboard.press('Escape');
  await page.goto('/notifications');
  await expect(page.getByRole('tab', { name: 'All' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('Your password was changed')).toBeVisible();
  await snapshot(page, 'notifications');

  await page.getByRole('button', { name: 'Русский' }).click();
  await expect(page.getByRole('tab', { name: 'Все' })).toBeVisible();
  // Dates follow the console's language too (22.11.2026, not 11/22/2026).
  await expect(page.getByText(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$/)).toBeVisible();
  await snapshot(page, 'notifications-ru');
  await page.goto('/home');
  await expect(sideMenu(page).getByRole('menuitem', { name: 'Главная', exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: `Добро пожаловать, ${user.name}` })).toBeVisible();
  await expect(page).toHaveTitle('Главная — Atrium');
  await snapshot(page, 'home-ru');
  await page.goto('/profile');
  await expect(page.getByRole('button', { name: 'Сменить пароль' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Загрузить изображение' })).toBeInViewport({ ratio: 1 });
  await snapshot(page, 'profile-ru');

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/home');
  await expect(page.getByRole('heading', { name: `Добро пожаловать, ${user.name}` })).toBeVisible();
  await snapshot(page, 'home-ru-phone');
});
