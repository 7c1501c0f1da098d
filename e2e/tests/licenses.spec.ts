import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An administrator installs licence files and watches the console follow: a licence without SIP hides
// the SIP menu, a newer one with SIP brings it back; the licence reports show use and periods.

test.describe.configure({ mode: 'serial' });

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-licenses-'));

/** Signs a licence with `npm run license` (the development issuer: the e2e server has no LICENSE_PUBLIC_KEY). */
function licenseFile(name: string, args: string[]): string {
  const out = path.join(dir, `${name}.json`);
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'tools/license/sign.ts'), '--out', out, ...args], {
    cwd: root,
    stdio: 'pipe',
  });
  return out;
}

let withoutSip: string;
let withSip: string;
let tampered: string;
test.beforeAll(() => {
  // Two runs of the signing tool: slow on a busy machine, so not inside a test's time.
  test.setTimeout(120_000);
  withoutSip = licenseFile('no-sip', ['--customer', 'Tower A (no SIP)', '--days', '365', '--without', 'sip']);
  withSip = licenseFile('sip', ['--customer', 'Tower A', '--days', '10', '--sip', '25', '--ukey2', '100']);
  tampered = path.join(dir, 'tampered.json');
  const changed = JSON.parse(readFileSync(withSip, 'utf8'));
  changed.license.features.sip.license_count = 5000;
  writeFileSync(tampered, JSON.stringify(changed));
});

test.afterAll(async ({ request }) => {
  // Every other spec runs on the development licence: leave none installed.
  const api = await Api.signIn(request, ADMIN);
  const list = await api.call<{ items: { id: number }[] }>('GET', '/licenses');
  for (const l of list.items) await api.call('DELETE', `/licenses/${l.id}`);
});

test('an administrator adds licence files and watches the SIP menu follow', async ({ page, request }) => {
  // The specs before this one made virtual numbers of their own: the usage counts them all.
  const sipNumbers = await (await Api.signIn(request, ADMIN)).total('/sip-numbers?page=1&size=1');
  await signInFromLogin(page, ADMIN);
  const menu = sideMenu(page);
  await expect(menu.getByRole('menuitem', { name: 'Virtual numbers', exact: true })).toBeVisible();
  await menu.getByRole('menuitem', { name: 'Licences', exact: true }).click();
  await expect(page).toHaveURL(/\/licenses$/);
  const main = page.getByRole('main');
  await expect(main.getByTestId('license-source')).toHaveText('Built-in development licence');
  await expect(main.getByText('No licence is installed.')).toBeVisible();

  // A changed file is refused with the spec's message.
  await page.getByTestId('license-file-input').setInputFiles(tampered);
  await expect(page.getByText('The licence signature is wrong', { exact: false })).toBeVisible();

  // A licence without SIP: the SIP menu goes away.
  await page.getByTestId('license-file-input').setInputFiles(withoutSip);
  await expect(main.getByRole('cell', { name: 'Tower A (no SIP)' })).toBeVisible();
  await expect(main.getByTestId('license-source')).toHaveText('Installed licence');
  await expect(main.getByTestId('feature-sip')).toHaveText('SIP telephony: Off');
  await expect(menu.getByRole('menuitem', { name: 'Virtual numbers', exact: true })).toBeHidden();

  // A newer licence with SIP, ending in 10 days: the SIP menu comes back, the older one is disabled,
  // and the licence warning tells the days left.
  await page.getByTestId('license-file-input').setInputFiles(withSip);
  await expect(main.getByRole('cell', { name: 'Tower A', exact: true })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Virtual numbers', exact: true })).toBeVisible();
  await expect(main.getByTestId('usage-sip')).toHaveText(new RegExp(`(?<!\\d)${sipNumbers} of 25`));
  const rows = main.getByRole('table', { name: 'Installed licences' }).getByRole('row').filter({ hasText: 'Tower A' });
  await expect(rows.filter({ hasText: 'Tower A (no SIP)' })).toContainText('Disabled');
  await expect(rows.filter({ hasText: /^Tower A(?! \()/ })).toContainText('Ending');
  await page.reload();
  await expect(page.getByTestId('license-warning')).toContainText('The licence expires in 9 days');
  await snapshot(page, 'licenses');

  // Removing the licence without SIP asks first.
  await rows.filter({ hasText: 'Tower A (no SIP)' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(rows).toHaveCount(1);
});

test('an administrator reads the licence reports and downloads them', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Licences used', exact: true }).click();
  await expect(page).toHaveURL(/\/reports\/licenses$/);
  const main = page.getByRole('main');
  await expect(main.getByTestId('used-chart')).toBeVisible();
  await expect(main.getByRole('table', { name: 'Licences used' }).getByRole('row').nth(1)).toBeVisible();
  await snapshot(page, 'license-reports-used');
  const download = page.waitForEvent('download');
  await main.getByRole('button', { name: 'Download xlsx' }).click();
  expect((await download).suggestedFilename()).toMatch(/^licenses-used-\d{4}-\d{2}-\d{2}\.xlsx$/);
  await main.getByRole('tab', { name: 'Licence period' }).click();
  await expect(main.getByTestId('period-chart')).toBeVisible();
  await expect(main.getByRole('table', { name: 'Licence period' }).getByRole('row').nth(1)).toContainText('Project');
  await snapshot(page, 'license-reports-period');
});
