import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, test } from './support/console';

test('switching to Russian translates the menu and the toolbar, survives a reload and is saved to the profile', async ({
  page,
  request,
}) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, user);

  const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/api/v0/profile'));
  await page.getByRole('button', { name: 'Русский' }).click();
  expect((await saved).ok()).toBe(true);

  const seesRussian = async () => {
    await expect(sideMenu(page).getByRole('menuitem', { name: 'Главная', exact: true })).toBeVisible();
    await expect(sideMenu(page).getByRole('menuitem', { name: 'Уведомления', exact: true })).toBeVisible();
    await expect(page.getByRole('banner').getByRole('heading', { name: 'Главная' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Уведомления' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Меню профиля' })).toBeVisible();
    await expect(page.getByRole('heading', { name: `Добро пожаловать, ${user.name}` })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  };
  await seesRussian();
  await page.reload();
  await seesRussian();

  const profile = await (await Api.signIn(request, user)).call<{ locale: string }>('GET', '/profile');
  expect(profile.locale).toBe('ru');
});

test('the language saved in the profile comes back at the next sign-in', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  await (await Api.signIn(request, user)).call('PATCH', '/profile', { locale: 'ru' });
  await page.goto('/login');
  await page.getByLabel('Login').fill(user.login);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(sideMenu(page).getByRole('menuitem', { name: 'Главная', exact: true })).toBeVisible();
});
