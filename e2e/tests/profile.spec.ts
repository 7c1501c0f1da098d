import { ADMIN, Api, expect, fieldByLabel, makeUser, realtimeSubscribed, signInFromLogin, snapshot, test } from './support/console';

test('a user renames themself; the toolbar and home follow and a reload keeps it', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN), { permissions: ['can_edit_own_profile'] });
  await signInFromLogin(page, user);
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Profile' }).click();
  await expect(page).toHaveURL(/\/profile$/);

  const name = page.getByRole('textbox', { name: 'Name' });
  await name.fill('Jane Operator');
  await page.getByRole('textbox', { name: 'Address' }).fill('Main street 1');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Done')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Profile menu' })).toHaveText('Jane Operator');

  await page.reload();
  await expect(name).toHaveValue('Jane Operator');
  await expect(page.getByRole('textbox', { name: 'Address' })).toHaveValue('Main street 1');
  await page.getByRole('menuitem', { name: 'Home', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Welcome, Jane Operator' })).toBeVisible();
});

test('a wrong phone number is refused in the form, before anything is saved', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN), { permissions: ['can_edit_own_profile'] });
  await signInFromLogin(page, user);
  await page.goto('/profile');
  await page.getByRole('textbox', { name: 'Phone' }).fill('12345');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Enter an international number with its country code')).toBeVisible();
});

test('a user without the right to edit their record sees it read-only and still picks their own formats', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  await signInFromLogin(page, user);
  await page.goto('/profile');
  for (const field of ['Name', 'Address', 'Phone']) await expect(page.getByRole('textbox', { name: field })).toBeDisabled();
  await expect(page.getByText('Only an administrator can change this')).toHaveCount(3);

  await page.getByRole('combobox', { name: 'Identifier format' }).click();
  await page.getByRole('option', { name: 'Hexadecimal' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Done')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Identifier format' })).toHaveText('Hexadecimal');
});

test('changing the password in the profile: the dialog checks the fields, then the bell tells about it', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN));
  const live = realtimeSubscribed(page);
  await signInFromLogin(page, user);
  await live;
  await page.goto('/profile');
  await page.getByRole('button', { name: 'Change password' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change password' });

  await dialog.getByLabel('Current password').fill(user.password);
  await fieldByLabel(dialog, 'New password').fill('fresh-password-1');
  await dialog.getByLabel('Repeat the new password').fill('another-password');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Check fields data')).toBeVisible();
  await expect(dialog).toBeVisible();

  await dialog.getByLabel('Repeat the new password').fill('fresh-password-1');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Done')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Notifications: 1 unread' })).toBeVisible();

  // The new password is the one that signs in now.
  await Api.signIn(request, { login: user.login, password: 'fresh-password-1' });
});

test('the menu can be minified to icons and the console has a dark mode', async ({ page, request }) => {
  const user = await makeUser(await Api.signIn(request, ADMIN), { permissions: ['can_view_roles'] });
  await signInFromLogin(page, user);
  await page.getByRole('button', { name: 'Close menu' }).click();
  await expect(page.getByRole('menuitem', { name: 'Collapse Common' })).toHaveCount(0);
  await expect(page.getByRole('menuitem', { name: 'Roles', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Toggle light/dark mode' }).click();
  await snapshot(page, 'home-dark-minified');
  await page.getByRole('button', { name: 'Open menu' }).click();
  await expect(page.getByRole('menuitem', { name: 'Collapse Common' })).toBeVisible();
});
