import { ADMIN, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// The people who run Atrium see its state: version, database, broker, SIP, memory and workers, and
// which calls the console makes and how fast they answer.

test('an administrator reads the system information', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'System information', exact: true }).click();
  await expect(page).toHaveURL(/\/system-info$/);
  const main = page.getByRole('main');
  await expect(main.getByText('PGlite (embedded)')).toBeVisible();
  await expect(main.getByText('SIP server').first()).toBeVisible();
  await expect(main.getByText('Embedded', { exact: true }).first()).toBeVisible();
  // The route metrics list the calls this console made, by route pattern.
  await expect(main.getByText('/api/v0/profile').first()).toBeVisible();
  // The instances on this database: one here, marked as the one that answered, also named in the hint.
  await expect(main.getByText('One Atrium instance on this database')).toBeVisible();
  await expect(main.getByText('This one', { exact: true })).toBeVisible();
  await expect(main.getByText(/values are those of the instance that answered: \S+/)).toBeVisible();
  await snapshot(page, 'system-info');
});
