import { ADMIN, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// Project settings as far as they exist: the Apple Wallet tab (what a QR identifier's pass looks like,
// and what signs it) and the markers put on users.

test('an administrator sets the Apple Wallet look and adds a marker from the project settings', async ({ page }) => {
  const stamp = Date.now().toString(36).toUpperCase();
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'General settings', exact: true }).click();
  await expect(page).toHaveURL(/\/general-settings$/);
  await expect(page.getByRole('tab', { name: 'Apple Wallet' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('Passes cannot be signed yet: the signing settings are incomplete')).toBeVisible();
  await page.getByRole('textbox', { name: 'Name on the pass' }).fill(`Riverside ${stamp}`);
  // A Team ID must be ten capitals and digits: the server names the field.
  await page.getByRole('textbox', { name: 'Team ID' }).fill('short');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Invalid data sent')).toBeVisible();
  await page.getByRole('textbox', { name: 'Team ID' }).fill('ABCDE12345');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Done', { exact: true })).toBeVisible();
  await snapshot(page, 'general-settings-apple-wallet');
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Name on the pass' })).toHaveValue(`Riverside ${stamp}`);

  await page.getByRole('tab', { name: 'Markers' }).click();
  await page.getByRole('link', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/markers\/add$/);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Guide dog ${stamp}`);
  await page.getByRole('combobox', { name: 'Group' }).click();
  await page.getByRole('option').first().click();
  await snapshot(page, 'marker-create');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/markers\/\d+$/);
  await sideMenu(page).getByRole('menuitem', { name: 'General settings', exact: true }).click();
  await page.getByRole('tab', { name: 'Markers' }).click();
  await expect(page.getByRole('row').filter({ hasText: `Guide dog ${stamp}` })).toBeVisible();
  await snapshot(page, 'general-settings-markers');
});
