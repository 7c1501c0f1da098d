import { ADMIN, Api, expect, makeUser, realtimeSubscribed, sideMenu, signInFromLogin, test } from './support/console';

test.describe('the side menu follows the role', () => {
  test('a user whose role may view roles sees Roles', async ({ page, request }) => {
    const user = await makeUser(await Api.signIn(request, ADMIN), { permissions: ['can_view_roles'] });
    await signInFromLogin(page, user);
    await expect(sideMenu(page).getByRole('menuitem', { name: 'Roles', exact: true })).toBeVisible();
  });

  test('a user whose role lacks the permission does not see Roles, only the entries open to everyone', async ({ page, request }) => {
    const user = await makeUser(await Api.signIn(request, ADMIN), { permissions: [] });
    await signInFromLogin(page, user);
    const menu = sideMenu(page);
    await expect(menu.getByRole('menuitem', { name: 'Users', exact: true })).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: 'Home', exact: true })).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toHaveCount(0);
    // Nor does home offer it as a shortcut.
    await expect(page.getByRole('main').getByRole('link', { name: 'Roles', exact: true })).toHaveCount(0);
  });
});

test('a permission granted to the role shows its entry at once, without a reload', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const user = await makeUser(admin, { permissions: [] });
  const live = realtimeSubscribed(page);
  await signInFromLogin(page, user);
  const menu = sideMenu(page);
  await expect(menu.getByRole('menuitem', { name: 'Users', exact: true })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toHaveCount(0);
  await live;

  await admin.call('PATCH', `/roles/${user.roleId}`, { permissions: ['can_view_roles'] });
  await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toBeVisible();

  await admin.call('PATCH', `/roles/${user.roleId}`, { permissions: [] });
  await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toHaveCount(0);
});

test('a menu section collapses and stays collapsed after a reload', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN), { permissions: [] });
  await signInFromLogin(page, user);
  const menu = sideMenu(page);
  await menu.getByRole('menuitem', { name: 'Collapse Common', exact: true }).click();
  await expect(menu.getByRole('menuitem', { name: 'Home', exact: true })).toHaveCount(0);
  await page.reload();
  await expect(menu.getByRole('menuitem', { name: 'Expand Common', exact: true })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Home', exact: true })).toHaveCount(0);
});

test('a user given another role sees its entries at once, without a reload', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const user = await makeUser(admin, { permissions: [] });
  const other = await admin.call<{ id: number }>('PUT', '/roles', { name: `E2E viewer ${Date.now()}`, permissions: ['can_view_roles'] });
  const live = realtimeSubscribed(page);
  await signInFromLogin(page, user);
  const menu = sideMenu(page);
  await expect(menu.getByRole('menuitem', { name: 'Users', exact: true })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toHaveCount(0);
  await live;

  await admin.call('PATCH', `/users/${user.id}`, { role: other.id });
  await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toBeVisible();

  await admin.call('PATCH', `/users/${user.id}`, { role: user.roleId });
  await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toHaveCount(0);
});
