import type { Page, Request, Route } from '@playwright/test';
import { ADMIN, Api, expect, makeUser, SESSION_KEY, sideMenu, signIn, signInFromLogin, test } from './support/console';

// Signing out while the console still waits for the server: whatever answers late, the person ends
// on the sign-in page with nothing of the session left, and whoever signs in next keeps their own.

/** The session the page keeps (session storage without remember-me, local storage with). */
const storedSession = (page: Page) =>
  page.evaluate((key) => {
    const raw = localStorage.getItem(key) ?? sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as { token: string; refresh: string }) : null;
  }, SESSION_KEY);

/** Holds the calls matching `url` until `release()`; `seen` resolves at the first one. */
async function holdCalls(page: Page, url: string | RegExp, answer: (route: Route, request: Request) => Promise<void>) {
  let seen: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    seen = resolve;
  });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const answered: Promise<void>[] = [];
  await page.route(url, (route, request) => {
    seen();
    const done = answer(route, request).then(async () => undefined);
    answered.push(done);
    return done;
  });
  return { seen: first, released, release: () => release(), answered: () => Promise.all(answered) };
}

const signOut = async (page: Page) => {
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
};

test('signing out while a token renewal is under way: the next person keeps their own session', async ({ page, request }) => {
  const next = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, ADMIN);

  // The administrator's users list meets an expired token, so the console renews it; the server
  // renews it at once, but its answer is slow to come back.
  let expiredOnce = false;
  await page.route('**/api/v0/users?*', async (route) => {
    if (expiredOnce) return route.continue();
    expiredOnce = true;
    await route.fulfill({ status: 401, json: { message: 'unauthenticated', code: 'unauthenticated' } });
  });
  const renewal = await holdCalls(page, '**/api/v0/refresh', async (route) => {
    const response = await route.fetch();
    await renewal.released;
    await route.fulfill({ response }).catch(() => undefined);
  });
  await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
  await renewal.seen;

  // Signing out meanwhile ends on the sign-in page with nothing of the session left.
  await signOut(page);
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByLabel('Login')).toBeVisible();
  expect(await storedSession(page)).toBeNull();

  // The next person signs in; only then does the old renewal answer.
  await signIn(page, next);
  await expect(page.getByRole('heading', { name: `Welcome, ${next.name}` })).toBeVisible();
  const own = await storedSession(page);
  expect(own).not.toBeNull();
  renewal.release();
  await renewal.answered();
  await page.waitForTimeout(300);
  expect(await storedSession(page)).toEqual(own);
  await page.reload();
  await expect(page.getByRole('heading', { name: `Welcome, ${next.name}` })).toBeVisible();
});

test('a slow answer to the sign-out does not move the person signed in next', async ({ page, request }) => {
  const next = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, ADMIN);
  const logout = await holdCalls(page, '**/api/v0/logout', async (route) => {
    await logout.released;
    await route.continue().catch(() => undefined);
  });
  await signOut(page);
  await logout.seen;
  await expect(page).toHaveURL(/\/login$/);
  expect(await storedSession(page)).toBeNull();

  // Before the server has answered, the next person signs in and opens their profile…
  await signIn(page, next);
  await expect(page.getByRole('heading', { name: `Welcome, ${next.name}` })).toBeVisible();
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Profile' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue(next.name);

  // …and the late answer to the earlier sign-out leaves them there, signed in.
  logout.release();
  await logout.answered();
  await page.waitForTimeout(300);
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue(next.name);
  expect(await storedSession(page)).not.toBeNull();
});
