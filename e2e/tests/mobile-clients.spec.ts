import { ADMIN, Api, expect, makeUser, signInFromLogin, snapshot, test } from './support/console';

// A resident's phone registers its app (as the mobile app does after signing in); the building's
// administrator sees it on the user's page and removes the lost phone (issue 14).

test('an administrator sees a resident’s mobile app and removes the lost phone', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const resident = await makeUser(admin);
  const phone = await Api.signIn(request, resident);
  const installId = `e2e-phone-${Date.now().toString(36)}`;
  await phone.call('PUT', '/mobile-clients', {
    mobile_client_id: installId,
    platform: 'android',
    info: 'Pixel 8, Android 15',
    push_token: `fcm-${installId}`,
    sip_number: '1001',
  });

  await signInFromLogin(page, ADMIN);
  await page.goto(`/users/${resident.id}`);
  await page.getByRole('button', { name: 'Mobile clients (1)' }).click();
  const dialog = page.getByRole('dialog', { name: 'Mobile clients' });
  await expect(dialog.getByText(installId)).toBeVisible();
  await expect(dialog.getByText('Pixel 8, Android 15')).toBeVisible();
  await expect(dialog.getByText('Android', { exact: true })).toBeVisible();
  await snapshot(page, 'user-mobile-clients');

  await dialog.getByRole('button', { name: 'Remove the mobile client' }).click();
  const confirm = page.getByRole('dialog').filter({ hasText: installId }).last();
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(dialog.getByText('This user has no mobile clients.')).toBeVisible();
  expect(await phone.call<unknown[]>('GET', '/mobile-clients')).toEqual([]);
});
