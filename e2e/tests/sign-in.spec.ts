import { ADMIN, Api, expect, makeUser, SESSION_KEY, signIn, signInFromLogin, test } from './support/console';

test.describe('signing in', () => {
  test('an administrator signs in and lands on home', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, ADMIN);
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('heading', { name: 'Welcome, Administrator' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main menu' }).getByRole('menuitem', { name: 'Home' })).toBeVisible();
  });

  test('a signed-out visitor asking for the profile signs in and comes back to it', async ({ page }) => {
    await page.goto('/profile');
    await expect(page).toHaveURL(/\/login\?redirect=%2Fprofile$/);
    await signIn(page, ADMIN);
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue('Administrator');
  });

  test('a wrong password says "Incorrect login/password" and keeps the visitor signed out', async ({ page }) => {
    await page.goto('/login');
    await signIn(page, { login: ADMIN.login, password: 'not-the-password' });
    await expect(page.getByRole('alert')).toHaveText('Incorrect login/password');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('signing out goes back to the login page and forgets the session', async ({ page }) => {
    await signInFromLogin(page, ADMIN);
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.goto('/home');
    await expect(page).toHaveURL(/\/login\?redirect=%2Fhome$/);
  });
});

test.describe('remember me', () => {
  test('without it the session ends with the browser', async ({ page, browser }, testInfo) => {
    await signInFromLogin(page, ADMIN);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Welcome, Administrator' })).toBeVisible();

    // A browser restart keeps cookies and local storage, never session storage.
    const restarted = await browser.newContext({
      baseURL: testInfo.project.use.baseURL,
      storageState: await page.context().storageState(),
    });
    const later = await restarted.newPage();
    await later.goto('/home');
    await expect(later).toHaveURL(/\/login\?redirect=%2Fhome$/);
    await restarted.close();
  });

  test('with it the session outlives the browser', async ({ page, browser }, testInfo) => {
    await signInFromLogin(page, ADMIN, { remember: true });

    const restarted = await browser.newContext({
      baseURL: testInfo.project.use.baseURL,
      storageState: await page.context().storageState(),
    });
    const later = await restarted.newPage();
    await later.goto('/home');
    await expect(later.getByRole('heading', { name: 'Welcome, Administrator' })).toBeVisible();
    await expect(later).toHaveURL(/\/home$/);
    await restarted.close();
  });
});

test('an expired access token is renewed once, out of sight', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, user, { remember: true });

  // The access token goes stale while the console is closed.
  await page.evaluate((key) => {
    const session = JSON.parse(localStorage.getItem(key) ?? '{}');
    localStorage.setItem(key, JSON.stringify({ ...session, token: 'expired.access.token' }));
  }, SESSION_KEY);

  const refreshes: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/v0/refresh') refreshes.push(r.url());
  });
  await page.goto('/notifications/settings');
  await expect(page.getByRole('switch', { name: /access control events/ })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main menu' })).toBeVisible();
  await expect(page).toHaveURL(/\/notifications\/settings$/);

  // The bell's unread count arrives too, without a second refresh.
  await page.getByRole('button', { name: 'Notifications' }).click();
  await expect(page.getByRole('menuitem', { name: 'No new notifications' })).toBeVisible();
  expect(refreshes).toHaveLength(1);
  const stored = await page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? '{}').token, SESSION_KEY);
  expect(stored).not.toBe('expired.access.token');
});

test('signing out forgets the session at once, before the server has answered', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, user, { remember: true });
  // The server is slow to answer the sign-out; meanwhile the person goes to the sign-in page.
  let logoutSeen: () => void = () => undefined;
  const logoutSent = new Promise<void>((resolve) => {
    logoutSeen = resolve;
  });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/api/v0/logout', async (route) => {
    logoutSeen();
    await released;
    await route.continue().catch(() => undefined);
  });
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await logoutSent;
  // While the call is pending (the client gives up on it only after 5 s), nothing of the session is
  // left in the browser…
  await expect(page).toHaveURL(/\/login$/, { timeout: 2000 });
  expect(await page.evaluate((key) => localStorage.getItem(key) ?? sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
  // …so opening the sign-in page again shows it, not the console.
  await page.goto('/login');
  await expect(page.getByLabel('Login')).toBeVisible();
  release();
  await expect(page).toHaveURL(/\/login$/);
});
