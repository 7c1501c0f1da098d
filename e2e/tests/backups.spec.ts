import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// Backups (issue 14): an administrator makes a backup, deletes a group, restores it from the stored
// backup and sees it back; then again from the downloaded file uploaded; then deletes the backups.

async function deleteGroup(page: Page, id: number) {
  await page.goto(`/groups/${id}`);
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete group' }).click();
  await page.getByRole('dialog', { name: 'Delete group' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/groups$/);
}

async function expectGroup(page: Page, id: number, name: string) {
  await page.goto(`/groups/${id}`);
  await expect(page.getByRole('textbox', { name: 'Name' }).first()).toHaveValue(name);
}

test('an administrator makes a backup, deletes a group and restores it, from the stored backup and from its file', async ({
  page,
  request,
}) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const tag = Date.now().toString(36);
  const name = `Wing ${tag}`;
  const group = await admin.call<{ id: number }>('PUT', '/domains', { name, parent_id: profile.domains[0]?.id });
  const status = async () =>
    (await request.get(`/api/v0/domains/${group.id}`, { headers: { Authorization: `Bearer ${admin.token}` } })).status();

  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Backups', exact: true }).click();
  await expect(page).toHaveURL(/\/backups$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Backups' })).toBeVisible();

  // Make: only groups, by name.
  await page.getByRole('button', { name: 'Make backup' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make a backup' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(`Before ${tag}`);
  await expect(dialog.getByRole('checkbox')).toHaveCount(16);
  await dialog.getByRole('button', { name: 'None' }).click();
  await dialog.getByRole('button', { name: 'Make', exact: true }).click();
  await expect(dialog.getByText('Choose at least one entity')).toBeVisible();
  await dialog.getByRole('checkbox', { name: 'Groups and domain types' }).check();
  await snapshot(page, 'backups-make');
  await dialog.getByRole('button', { name: 'Make', exact: true }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('row').filter({ hasText: `Before ${tag}` });
  await expect(row).toContainText('Groups and domain types');
  await expect(row).toContainText('Never');
  await snapshot(page, 'backups-list');

  // The group goes, by the console.
  await deleteGroup(page, group.id);
  expect(await status()).toBe(404);

  // Apply the stored backup, after a confirmation that says what it does.
  await sideMenu(page).getByRole('menuitem', { name: 'Backups', exact: true }).click();
  await row.getByRole('button', { name: `More actions: Before ${tag}` }).click();
  await page.getByRole('menuitem', { name: 'Apply' }).click();
  const confirm = page.getByRole('dialog', { name: `Apply backup Before ${tag}` });
  await expect(confirm).toContainText('Groups and domain types');
  await expect(confirm).toContainText('Rows added since in them will be removed');
  await snapshot(page, 'backups-apply-confirm');
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText(new RegExp(`Backup Before ${tag} applied: \\d+ rows restored, \\d+ removed`))).toBeVisible();
  await expect(row).not.toContainText('Never');
  await snapshot(page, 'backups-applied');
  expect(await status()).toBe(200);
  await expectGroup(page, group.id, name);

  // Download the backup's file, delete the group again, and apply the file.
  await sideMenu(page).getByRole('menuitem', { name: 'Backups', exact: true }).click();
  const downloading = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Download' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^atrium-backup-\d+-Before-[a-z0-9]+\.zip$/);
  // Read at once: the download's temporary file goes with Playwright's artefacts.
  const zipBytes = readFileSync(await download.path());
  expect(zipBytes.subarray(0, 2).toString()).toBe('PK');
  await deleteGroup(page, group.id);
  expect(await status()).toBe(404);

  await sideMenu(page).getByRole('menuitem', { name: 'Backups', exact: true }).click();
  await page.getByRole('button', { name: 'Apply from file' }).click();
  const upload = page.getByRole('dialog', { name: 'Apply a backup from a file' });
  await expect(upload.getByRole('button', { name: 'Apply' })).toBeDisabled();
  // A file that is not a backup is refused, and says why.
  await upload
    .getByTestId('backup-file-input')
    .setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip') });
  await upload.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('Invalid backup image: The file is not a zip archive')).toBeVisible();
  expect(await status()).toBe(404);
  await upload
    .getByTestId('backup-file-input')
    .setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/zip', buffer: zipBytes });
  await expect(upload).toContainText(download.suggestedFilename());
  await snapshot(page, 'backups-apply-file');
  await upload.getByRole('button', { name: 'Apply' }).click();
  await expect(upload).toBeHidden();
  await expect(page.getByText(new RegExp(`Backup Before ${tag} applied`))).toBeVisible();
  expect(await status()).toBe(200);
  await expectGroup(page, group.id, name);

  // Delete the backups made here, several at once.
  await sideMenu(page).getByRole('menuitem', { name: 'Backups', exact: true }).click();
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: /^Delete selected/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
  await expect(row).toHaveCount(0);
  await admin.call('DELETE', `/domains/${group.id}`);
});
