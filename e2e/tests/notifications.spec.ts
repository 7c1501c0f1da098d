import { ADMIN, Api, expect, makeUser, realtimeSubscribed, signInFromLogin, test } from './support/console';

test('a password changed elsewhere ends this sign-in at once, and the bell tells of it on the next one', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  const live = realtimeSubscribed(page);
  await signInFromLogin(page, user);
  const bell = page.getByRole('button', { name: /^Notifications/ });
  await bell.click();
  await expect(page.getByRole('menuitem', { name: 'No new notifications' })).toBeVisible();
  await page.keyboard.press('Escape');
  await live;

  // The same person changes the password from another device: every other sign-in ends (issue 9),
  // this console's too, without a reload.
  const elsewhere = await Api.signIn(request, user);
  await elsewhere.call('POST', '/profile/password', { old: user.password, new: `${user.password}-2` });
  await expect(page).toHaveURL(/\/login/);

  await signInFromLogin(page, { login: user.login, password: `${user.password}-2` });
  await expect(bell).toHaveAccessibleName('Notifications: 1 unread');
  await bell.click();
  await expect(page.getByRole('menuitem', { name: /Your password was changed/ })).toBeVisible();
  await page.keyboard.press('Escape');

  // The notifications page lists it, and marks it read after a second.
  await page.goto('/notifications');
  await expect(page.getByText('Your password was changed')).toBeVisible();
  await expect(bell).toHaveAccessibleName('Notifications');
});
