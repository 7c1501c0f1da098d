import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// What a new administrator tripped over (issue 9), done as they would.

test('a search that finds nothing says so and clears in one click', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
  await page.getByRole('textbox', { name: 'Search' }).fill('no-such-person-anywhere');
  await expect(page.getByText('Nothing matches the search or filters')).toBeVisible();
  await expect(page.getByText('No records yet')).toHaveCount(0);
  await page.getByRole('button', { name: 'Clear the search and filters' }).click();
  await expect(page.getByRole('textbox', { name: 'Search' })).toHaveValue('');
  await expect(page.getByRole('row').nth(1)).toBeVisible();
});

test('leaving a form with unsaved changes asks first, and staying keeps them', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const user = await makeUser(admin);
  await signInFromLogin(page, ADMIN);
  await page.goto(`/users/${user.id}`);
  const name = page.getByRole('textbox', { name: 'Name', exact: true });
  await expect(name).toHaveValue(user.name);
  await name.fill('Changed but not saved');
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await sideMenu(page).getByRole('menuitem', { name: 'Roles', exact: true }).click();
  await expect.poll(() => asked).toContain("changes weren't saved");
  await expect(page).toHaveURL(new RegExp(`/users/${user.id}$`));
  await expect(name).toHaveValue('Changed but not saved');
});

test('a group picker names each group by its path, and deleting a group says what goes with it', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const root = profile.domains[0];
  const tag = Date.now().toString(36);
  const building = await admin.call<{ id: number }>('PUT', '/domains', { name: `Tower ${tag}`, parent_id: root?.id });
  const floor = await admin.call<{ id: number }>('PUT', '/domains', { name: `Level ${tag}`, parent_id: building.id });
  await admin.call('PUT', '/domains', { name: 'Apt 1', parent_id: floor.id });

  await signInFromLogin(page, ADMIN);
  await page.goto('/users/add');
  await page.getByRole('combobox', { name: 'Groups' }).fill('Apt 1');
  await expect(page.getByRole('option', { name: `${root?.name} › Tower ${tag} › Level ${tag} › Apt 1` })).toBeVisible();
  await snapshot(page, 'group-picker-paths');
  await page.keyboard.press('Escape');

  await page.goto(`/groups/${building.id}`);
  page.once('dialog', (d) => void d.accept());
  const remove = page.getByRole('button', { name: 'Delete group' });
  await expect(remove).toHaveCSS('color', /rgb\(\s*(1[5-9]\d|2\d\d),/);
  await remove.click();
  const confirm = page.getByRole('dialog', { name: 'Delete group' });
  await expect(confirm).toContainText('Its 2 subgroups are deleted with it.');
  await snapshot(page, 'group-delete-confirm');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/groups$/);
  expect((await request.get(`/api/v0/domains/${floor.id}`, { headers: { Authorization: `Bearer ${admin.token}` } })).status()).toBe(404);
});

test('an administrator lifts the sign-in lock of someone who mistyped their password too often', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const user = await makeUser(admin);
  for (let i = 0; i < 11; i++) await request.post('/api/v0/login', { data: { login: user.login, password: 'wrong-password' } });
  expect((await request.post('/api/v0/login', { data: { login: user.login, password: user.password } })).status()).toBe(429);
  await signInFromLogin(page, ADMIN);
  await page.goto(`/users/${user.id}`);
  await page.getByRole('button', { name: 'Unlock sign-in' }).click();
  await expect(page.getByText(`${user.name} may sign in again from any address`)).toBeVisible();
  expect((await request.post('/api/v0/login', { data: { login: user.login, password: user.password } })).status()).toBe(200);
});

test('the self-registration page says registration is closed instead of showing a form', async ({ page, request }) => {
  // Self-registration is off unless the project settings turn it on (the default of this server).
  expect((await (await request.get('/api/v0/frontend/server/settings')).json()).data.can_user_register_himself).toBe(false);
  await page.goto('/self-registration');
  await expect(page.getByRole('status')).toContainText('Self-registration is closed');
  await expect(page.getByRole('textbox')).toHaveCount(0);
  await snapshot(page, 'self-registration-closed');
});
