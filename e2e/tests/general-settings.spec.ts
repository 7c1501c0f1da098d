import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { smtpLogin, smtpPort } from '../playwright.config';
import { ADMIN, Api, expect, fieldByLabel, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';
import { openMailbox } from './support/mailbox';

// Project settings: the general tab (with a test mail a real SMTP server receives), SIP, push server,
// MQTT broker (own certificates, restart), the management company with its logo, the Apple Wallet tab
// (what a QR identifier's pass looks like, and what signs it) and the markers put on users.

test('an administrator sets the Apple Wallet look and adds a marker from the project settings', async ({ page }) => {
  const stamp = Date.now().toString(36).toUpperCase();
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'General settings', exact: true }).click();
  await expect(page).toHaveURL(/\/general-settings$/);
  await page.getByRole('tab', { name: 'Apple Wallet' }).click();
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

/** A tiny PNG (2×2, blue) for the company logo. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWOQ874k532JAUIBAB+yBO04GiSOAAAAAElFTkSuQmCC',
  'base64',
);

test('an administrator sets up the project: general with a test mail, SIP, push, broker certificates and the management company', async ({
  page,
  request,
}) => {
  // Five tabs walked and saved, with a mail, a certificate pair and a broker restart.
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  const admin = await Api.signIn(request, ADMIN);
  const before = await admin.call<Record<string, unknown>>('GET', '/settings/general');
  const mailbox = await openMailbox();
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'General settings', exact: true }).click();
    await expect(page.getByRole('tab', { name: 'General', exact: true })).toHaveAttribute('aria-selected', 'true');

    // General: a description, the guest limits, and SMTP tried with a test mail before saving.
    await page.getByRole('textbox', { name: 'Description' }).fill(`Towers by the river ${stamp}`);
    await page.getByRole('spinbutton', { name: 'Maximum passes per key' }).fill('6');
    await page.getByRole('combobox', { name: 'Send mail' }).click();
    await page.getByRole('option', { name: 'Through an SMTP server' }).click();
    await page.getByRole('textbox', { name: 'SMTP host' }).fill('127.0.0.1');
    await page.getByRole('spinbutton', { name: 'Port' }).fill(String(smtpPort));
    await page.getByRole('combobox', { name: 'Encryption' }).click();
    await page.getByRole('option', { name: 'None' }).click();
    await page.getByRole('textbox', { name: 'User name' }).fill(smtpLogin.user);
    await fieldByLabel(page, 'Password').fill(smtpLogin.password);
    await page.getByRole('textbox', { name: 'Sender address' }).fill('concierge@e2e.example');
    await page.getByRole('textbox', { name: 'Sender name' }).fill('Riverside concierge');
    const to = `checker-${stamp}@e2e.example`;
    await page.getByRole('textbox', { name: 'Send a test mail to' }).fill(to);
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await expect(page.getByText(`A test mail was sent to ${to}`)).toBeVisible();
    await expect.poll(() => mailbox.for(to).length).toBe(1);
    expect(mailbox.for(to)[0]?.source).toContain('Riverside concierge');
    await snapshot(page, 'general-settings-general');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    await page.reload();
    await expect(fieldByLabel(page, 'Description')).toHaveValue(`Towers by the river ${stamp}`);
    await expect(page.getByRole('spinbutton', { name: 'Maximum passes per key' })).toHaveValue('6');
    // The password is never read back: the field is empty and says it is kept.
    await expect(fieldByLabel(page, 'Password')).toHaveValue('');
    await expect(page.getByText('Set: leave empty to keep it')).toBeVisible();

    // SIP: local networks (an address that is not a network is refused) and early media.
    await page.getByRole('tab', { name: 'SIP' }).click();
    await expect(page.getByRole('spinbutton', { name: 'SIP port (UDP and TCP)' })).not.toHaveValue('');
    await page.getByRole('switch', { name: 'Early media' }).check();
    const networks = page.getByRole('combobox', { name: 'Local networks' });
    await networks.fill('10.0.0.300/8');
    await networks.press('Enter');
    await networks.press('Escape');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Enter an IP address with a bit prefix, such as 10.0.0.0/8')).toBeVisible();
    // Backspace in the empty input takes the last network out.
    await networks.click();
    await networks.press('Backspace');
    for (const n of ['10.0.0.0/8', '192.168.10.0/24']) {
      await networks.fill(n);
      await networks.press('Enter');
    }
    await networks.press('Escape');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('button', { name: '192.168.10.0/24' })).toBeVisible();
    await expect(page.getByRole('switch', { name: 'Early media' })).toBeChecked();
    await snapshot(page, 'general-settings-sip');

    // Push server: on needs a URL; the token is kept after saving.
    await page.getByRole('tab', { name: 'Push server' }).click();
    await page.getByRole('switch', { name: 'Push server enabled' }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Field is required')).toBeVisible();
    await page.getByRole('textbox', { name: 'Push server URL' }).fill('https://push.e2e.example');
    await page.getByLabel('Access token').fill(`token-${stamp}`);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Access token')).toHaveValue('');
    await expect(page.getByText('Set: leave empty to keep it')).toBeVisible();

    // MQTT broker: the embedded broker runs; a key that is not the certificate's is refused, the pair is taken.
    await page.getByRole('tab', { name: 'MQTT broker' }).click();
    await expect(page.getByText('Embedded broker')).toBeVisible();
    await expect(page.getByText('Running', { exact: true })).toBeVisible();
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-e2e-broker-'));
    const pair = (name: string) => {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          path.join(dir, `${name}.key`),
          '-out',
          path.join(dir, `${name}.crt`),
          '-days',
          '30',
          '-subj',
          `/CN=${name}`,
        ],
        { stdio: 'pipe' },
      );
      return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
    };
    const mine = pair(`broker-${stamp}.e2e.example`);
    const other = pair('other');
    await page.getByRole('switch', { name: 'Use own certificates' }).check();
    await page.getByLabel('Certificate file').setInputFiles(mine.cert);
    await page.getByLabel('Key file').setInputFiles(other.key);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('The certificate and key do not form a pair')).toBeVisible();
    await page.getByLabel('Certificate file').setInputFiles(mine.cert);
    await page.getByLabel('Key file').setInputFiles(mine.key);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(`Certificate CN=broker-${stamp}.e2e.example`)).toBeVisible();
    expect(readFileSync(mine.key, 'utf8')).toContain('PRIVATE KEY');
    await page.getByRole('button', { name: 'Restart broker' }).click();
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    // The broker settings go to the devices again (every initialised mqtt device of the project).
    await page.getByRole('button', { name: 'Send to devices' }).click();
    await expect(page.getByText(/^Broker settings sent to \d+ devices?$/)).toBeVisible();
    await snapshot(page, 'general-settings-broker');

    // Management company with its logo.
    await page.getByRole('tab', { name: 'Management company' }).click();
    await page.getByRole('textbox', { name: 'Company name' }).fill(`Riverside Management ${stamp}`);
    await page.getByRole('textbox', { name: 'Phone' }).fill('+1 555 0100');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    await page.getByLabel('Upload logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await expect(page.getByRole('img', { name: 'Company logo' })).toBeVisible();
    await snapshot(page, 'general-settings-white-label');
    // The sign-in page shows the management company: its logo and name (the server settings call).
    const signedOut = await page.context().browser()!.newContext();
    try {
      const front = await signedOut.newPage();
      await front.goto(new URL('/login', page.url()).toString());
      await expect(front.getByRole('img', { name: `Riverside Management ${stamp}` })).toBeVisible();
      await expect(front.getByText(`Riverside Management ${stamp}`, { exact: true })).toBeVisible();
      await snapshot(front, 'sign-in-white-label');
    } finally {
      await signedOut.close();
    }
    await page.reload();
    await page.getByRole('tab', { name: 'Management company' }).click();
    await expect(page.getByRole('textbox', { name: 'Company name' })).toHaveValue(`Riverside Management ${stamp}`);
    await page.getByRole('button', { name: 'Remove logo' }).click();
    await expect(page.getByText('No logo')).toBeVisible();
  } finally {
    await mailbox.close();
    // Other walks run on this server: the mail, guest limits, SIP networks, push and broker go back.
    await admin.call('PATCH', '/settings/general', {
      mail_settings: { type: 'none' },
      guest_identifier_limits: before.guest_identifier_limits,
      description: before.description,
    });
    await admin.call('PATCH', '/settings/sip', { local_networks: [], is_early_media_enabled: false });
    await admin.call('PATCH', '/settings/push', { is_enabled: false, url: null, token: '' });
    await admin.call('PATCH', '/settings/white-label', { name: '' });
  }
});

test('a viewer reads the project settings without changing them; the management company information alone shows only its tab', async ({
  page,
  request,
}) => {
  const admin = await Api.signIn(request, ADMIN);
  const viewer = await makeUser(admin, { permissions: ['can_view_project_settings'] });
  await signInFromLogin(page, viewer);
  await page.goto('/general-settings');
  await expect(page.getByRole('tab', { name: 'General', exact: true })).toBeVisible();
  await expect(page.getByText('You may view these settings but not change them.')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Project name' })).toHaveAttribute('readonly', '');
  await expect(page.getByRole('button', { name: 'Save' })).toHaveCount(0);
  await page.getByRole('tab', { name: 'MQTT broker' }).click();
  await expect(page.getByRole('button', { name: 'Restart broker' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send to devices' })).toHaveCount(0);
  await snapshot(page, 'general-settings-viewer');

  const company = await makeUser(admin, { permissions: ['can_view_management_company_info'] });
  await page.context().clearCookies();
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  await signInFromLogin(page, company);
  await page.goto('/general-settings');
  await expect(page.getByRole('tab')).toHaveCount(1);
  await expect(page.getByRole('tab', { name: 'Management company' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('textbox', { name: 'Company name' })).toBeVisible();
});

test('an installer restores a panel from its backup image in the project settings, and a wrong file is refused', async ({
  page,
  request,
}) => {
  const admin = await Api.signIn(request, ADMIN);
  const serial = `BKP${Date.now().toString(36).toUpperCase()}`;
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const device = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Gate ${serial}`,
    type: 'panel',
    model: 'AP-100',
    serial_number: serial,
    domain_id: profile.domains[0]?.id,
  });
  // Only what the job needs: device backup import and editing the devices of the group.
  const installer = await makeUser(admin, { permissions: ['can_import_device_backup', 'can_view_devices', 'can_edit_devices'] });
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-backup-'));
  const image = path.join(dir, 'panel-backup.json');
  const junk = path.join(dir, 'junk.json');
  writeFileSync(
    image,
    JSON.stringify({ format: 'atrium-device-backup', version: 1, serial_number: serial, device_settings: { sip: { talk_timeout: 95 } } }),
  );
  writeFileSync(junk, '{"format":"something else"}');
  try {
    await signInFromLogin(page, installer);
    await sideMenu(page).getByRole('menuitem', { name: 'General settings', exact: true }).click();
    await expect(page.getByRole('tab', { name: 'Device backup' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tab', { name: 'General', exact: true })).toHaveCount(0);
    await page.getByLabel('Choose a backup image').setInputFiles(junk);
    await expect(page.getByText('invalid backup image', { exact: false })).toBeVisible();
    await page.getByLabel('Choose a backup image').setInputFiles(image);
    await expect(page.getByTestId('device-backup-result')).toContainText(`Gate ${serial} (${serial})`);
    await snapshot(page, 'general-settings-device-backup');
    const stored = await admin.call<{ device_settings: { sip: { talk_timeout: number } } }>('GET', `/devices/${device.id}`);
    expect(stored.device_settings.sip.talk_timeout).toBe(95);
  } finally {
    await admin.call('DELETE', `/devices/${device.id}`);
  }
});
