import { readFileSync } from 'node:fs';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// The audit log shows what changed: the administrator renames a group, finds the change by what was
// changed, opens it to see the name before and after, and downloads the log as CSV.

test('an administrator renames a group and reads the change in the audit log, before and after', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const tag = Date.now().toString(36).toUpperCase();
  const group = await admin.call<{ id: number }>('PUT', '/domains', { name: `Annex ${tag}`, parent_id: profile.domains[0]?.id });

  await signInFromLogin(page, ADMIN);
  await page.goto(`/groups/${group.id}`);
  const name = page.getByRole('textbox', { name: 'Name', exact: true });
  await expect(name).toHaveValue(`Annex ${tag}`);
  await name.fill(`West annex ${tag}`);
  await page.getByRole('button', { name: 'Save' }).click();
  // Saved: the page stays on the group, its title renamed.
  await expect(page.getByText(`Group West annex ${tag}`)).toBeVisible();

  await sideMenu(page).getByRole('menuitem', { name: 'Audit log' }).click();
  await expect(page).toHaveURL(/\/audit-events/);
  await page.getByRole('textbox', { name: 'What' }).fill('group');
  // Each change is a sentence, not the codes it is stored under.
  const row = page
    .getByRole('row')
    .filter({ hasText: `Administrator changed the group West annex ${tag}` })
    .first();
  await expect(row).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'session' })).toHaveCount(0);
  await expect(page.getByRole('table')).not.toContainText(/\bdomains?\b|\bupdate\b/);
  await snapshot(page, 'audit-events-list');

  await row.click();
  const drawer = page.getByRole('region', { name: /^Change #\d+$/ });
  await expect(drawer).toBeVisible();
  const before = drawer.getByRole('region', { name: 'Before' });
  const after = drawer.getByRole('region', { name: 'After' });
  await expect(before).toContainText(`"name": "Annex ${tag}"`);
  await expect(after).toContainText(`"name": "West annex ${tag}"`);
  // The name is marked as changed on both sides.
  await expect(after.locator('[data-changed="true"]').filter({ hasText: '"name"' })).toBeVisible();
  await expect(before.locator('[data-changed="true"]').filter({ hasText: '"name"' })).toBeVisible();
  await expect(drawer).toContainText('Admin');
  await snapshot(page, 'audit-events-change', { fullPage: false });
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(drawer).toBeHidden();

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^audit-events-.*\.csv$/);
  const csv = readFileSync(await file.path(), 'utf8');
  const lines = csv.trim().split('\n');
  expect(lines[0]).toBe('id,created_at,user_id,user_login,user_name,entity,entity_id,action,before,after,ip,request_id');
  // Only what the list shows: groups.
  expect(lines.slice(1).every((l) => l.split(',')[5] === 'group')).toBe(true);
  expect(csv).toContain(`""name"":""West annex ${tag}""`);

  // Home's recent changes tell the same sentence, in Russian as in English.
  await page.goto('/home');
  const recent = page
    .getByRole('listitem')
    .filter({ hasText: `West annex ${tag}` })
    .first();
  await expect(recent).toContainText(`Administrator changed the group West annex ${tag}`);
  await page.getByRole('button', { name: 'Русский' }).click();
  await expect(recent).toContainText(`Пользователь Administrator изменил группу West annex ${tag}`);
  await snapshot(page, 'home-recent-changes-ru');
  await page.goto('/audit-events');
  await expect(
    page
      .getByRole('row')
      .filter({ hasText: `Пользователь Administrator изменил группу West annex ${tag}` })
      .first(),
  ).toBeVisible();
  await snapshot(page, 'audit-events-list-ru');
  await page.getByRole('button', { name: 'English' }).click();
});
