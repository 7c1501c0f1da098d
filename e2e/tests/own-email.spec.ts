import { ADMIN, Api, expect, fieldByLabel, makeUser, signInFromLogin, snapshot, test } from './support/console';

const USERS_ADMIN = ['can_view_all_users', 'can_edit_all_users', 'can_create_users', 'can_edit_own_profile'];

test('an administrator changes their own e-mail with their current password, and someone else’s without', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  // Their own administrator, so the e2e administrator's e-mail stays as other tests expect it.
  const me = await makeUser(admin, { permissions: USERS_ADMIN });
  const other = await makeUser(admin);
  // Acting on another user needs their role among the roles one may assign (issue 9).
  await admin.call('PATCH', `/roles/${me.roleId}`, { available_roles: [other.roleId] });
  await admin.call('PATCH', `/users/${me.id}`, { email: `${me.login}@e2e.example` });
  await admin.call('PATCH', `/users/${other.id}`, { email: `${other.login}@e2e.example` });
  const newEmail = `${me.login}-new@e2e.example`;
  const patches: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH' && r.url().includes(`/api/v0/users/${me.id}`)) patches.push(r.postData() ?? '');
  });

  await signInFromLogin(page, me);
  await page.goto(`/users/${me.id}`);
  await expect(page.getByRole('textbox', { name: 'Login' })).toHaveValue(me.login);
  const emailBox = page.getByRole('textbox', { name: 'E-mail' });
  const currentPassword = fieldByLabel(page, 'Current password');
  await expect(emailBox).toHaveValue(`${me.login}@e2e.example`);
  await expect(currentPassword).toHaveCount(0);

  // A new e-mail asks for the current password, in an empty field.
  await emailBox.fill(newEmail);
  await expect(currentPassword).toBeVisible();
  await expect(currentPassword).toHaveValue('');
  await expect(currentPassword).toHaveAttribute('autocomplete', 'current-password');
  await expect(currentPassword).toHaveAccessibleDescription('Needed to change your own e-mail');
  await snapshot(page, 'user-own-email');

  // Without it, the form stops before asking the server.
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(currentPassword).toHaveAccessibleDescription('Field is required');
  await expect(currentPassword).toHaveAttribute('aria-invalid', 'true');
  expect(patches).toEqual([]);

  // A wrong one: the server refuses, and says why under the field.
  await currentPassword.fill('not-my-password');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(currentPassword).toHaveAccessibleDescription('The current password is wrong');
  // The viewport only, at the field: a whole page scrolled by the save would misplace the fixed app bar.
  await currentPassword.scrollIntoViewIfNeeded();
  await snapshot(page, 'user-own-email-wrong-password', { fullPage: false });
  expect(patches).toHaveLength(1);
  expect((await admin.call<{ email: string }>('GET', `/users/${me.id}`)).email).toBe(`${me.login}@e2e.example`);

  // The right one saves; the field goes with the change it was asked for.
  await currentPassword.fill(me.password);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Done')).toBeVisible();
  await expect(currentPassword).toHaveCount(0);
  expect(JSON.parse(patches[1] ?? '{}')).toEqual({ email: newEmail, password: me.password });
  await page.reload();
  await expect(emailBox).toHaveValue(newEmail);
  await expect(currentPassword).toHaveCount(0);

  // Back to the same e-mail, nothing is asked; someone else's e-mail asks for nothing either.
  await emailBox.fill('typed-then-undone@e2e.example');
  await expect(currentPassword).toBeVisible();
  await emailBox.fill(newEmail);
  await expect(currentPassword).toHaveCount(0);

  await page.goto(`/users/${other.id}`);
  await expect(page.getByRole('textbox', { name: 'Login' })).toHaveValue(other.login);
  await emailBox.fill(`${other.login}-moved@e2e.example`);
  await expect(currentPassword).toHaveCount(0);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Done')).toBeVisible();
  expect((await admin.call<{ email: string }>('GET', `/users/${other.id}`)).email).toBe(`${other.login}-moved@e2e.example`);
});
