import { createHash } from 'node:crypto';
import dgram from 'node:dgram';
import type { Page } from '@playwright/test';
import { sipPort } from '../playwright.config';
import { ADMIN, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An administrator watches a phone that keeps failing to register get banned, lifts the ban, and
// keeps the whitelist in order; the ban shows in System info's recent logs.

/**
 * A phone registering a number Atrium does not know, from 127.0.0.1, with a password it guesses:
 * challenged like any number (nothing tells unknown numbers apart) and refused after its answer
 * (403, a failure) — or, once its address is banned, refused at once without a challenge.
 */
async function registerUnknown(number: string): Promise<'failed' | 'banned'> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const port = socket.address().port;
  const tag = Math.random().toString(36).slice(2);
  const uri = `sip:127.0.0.1:${sipPort}`;
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const request = (cseq: number, authorization?: string) =>
    [
      `REGISTER ${uri} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bK-e2e-${tag}-${cseq};rport`,
      'Max-Forwards: 70',
      `From: <sip:${number}@127.0.0.1>;tag=${tag}`,
      `To: <sip:${number}@127.0.0.1>`,
      `Call-ID: e2e-${tag}`,
      `CSeq: ${cseq} REGISTER`,
      `Contact: <sip:${number}@127.0.0.1:${port}>`,
      ...(authorization ? [`Authorization: ${authorization}`] : []),
      'Expires: 300',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n');
  const answer = (message: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer to REGISTER')), 5000);
      const onMessage = (data: Buffer) => {
        const text = data.toString();
        if (Number(/^SIP\/2\.0 (\d{3})/.exec(text)?.[1] ?? 0) < 200) return;
        clearTimeout(timer);
        socket.off('message', onMessage);
        resolve(text);
      };
      socket.on('message', onMessage);
      socket.send(message, sipPort, '127.0.0.1');
    });
  try {
    const first = await answer(request(1));
    if (first.startsWith('SIP/2.0 403')) return 'banned';
    expect(first).toMatch(/^SIP\/2\.0 401/);
    const challenge = /WWW-Authenticate: Digest (.*)/i.exec(first)?.[1] ?? '';
    const param = (name: string) => new RegExp(`${name}="?([^",\r]+)"?`).exec(challenge)?.[1] ?? '';
    const [realm, nonce, cnonce, nc] = [param('realm'), param('nonce'), 'e2e', '00000001'];
    const response = md5(`${md5(`${number}:${realm}:a guessed password`)}:${nonce}:${nc}:${cnonce}:auth:${md5(`REGISTER:${uri}`)}`);
    const second = await answer(
      request(
        2,
        `Digest username="${number}", realm="${realm}", nonce="${nonce}", uri="${uri}", qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}", algorithm=MD5`,
      ),
    );
    expect(second).toMatch(/^SIP\/2\.0 403/);
    return 'failed';
  } finally {
    socket.close();
  }
}

const row = (page: Page, table: string, ...texts: string[]) => {
  let rows = page.getByRole('table', { name: table }).getByRole('row');
  for (const text of texts) rows = rows.filter({ hasText: text });
  return rows;
};

const done = (page: Page) => expect(page.getByText('Done', { exact: true }).last()).toBeVisible();

test('an administrator bans, unbans and whitelists addresses', async ({ page }) => {
  // A long walk: two bans from real REGISTERs, and a dozen saves.
  test.slow();
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'IP blocking', exact: true }).click();
  await expect(page).toHaveURL(/\/ip-blocking$/);
  const main = page.getByRole('main');
  await expect(main.getByText('Failed sign-ins', { exact: true })).toBeVisible();
  await expect(main.getByText('No address is banned.')).toBeVisible();
  await snapshot(page, 'ip-blocking-start');

  // SIP registration bans after three failures; the server's own loopback leaves the SIP whitelist.
  const failures = main.getByLabel('SIP registration: Failures');
  await failures.fill('3');
  await main.getByRole('button', { name: 'Save' }).click();
  await done(page);
  await row(page, 'Whitelist', '127.0.0.1', 'SIP registration').getByRole('button', { name: 'Remove' }).click();
  await done(page);
  await expect(row(page, 'Whitelist', '127.0.0.1', 'SIP registration')).toHaveCount(0);

  // A phone keeps registering an unknown number with a guessed password: banned after three failures, then refused at once.
  for (let i = 0; i < 3; i++) expect(await registerUnknown('9999')).toBe('failed');
  expect(await registerUnknown('9999')).toBe('banned');
  await page.reload();
  const ban = row(page, 'Banned addresses', '127.0.0.1');
  await expect(ban).toContainText('SIP registration');
  await expect(ban).toContainText('Failed SIP registrations');
  await expect(ban).toContainText('3 failures in 10 min');
  await expect(ban).toContainText('number 9999');
  await snapshot(page, 'ip-blocking-banned');
  await ban.getByRole('button', { name: 'Unban' }).click();
  await done(page);
  await expect(main.getByText('No address is banned.')).toBeVisible();
  expect(await registerUnknown('9999')).toBe('failed');

  // Banned again, and every ban lifted at once after a confirmation.
  for (let i = 0; i < 2; i++) await registerUnknown('9999');
  expect(await registerUnknown('9999')).toBe('banned');
  await page.reload();
  await expect(row(page, 'Banned addresses', '127.0.0.1')).toHaveCount(1);
  await main.getByRole('button', { name: 'Unban all' }).click();
  await expect(page.getByText('Unban every address?')).toBeVisible();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await done(page);
  await expect(main.getByText('No address is banned.')).toBeVisible();

  // The whitelist: the loopback back for SIP, a range for sign-in; typos and repeats are refused.
  const addresses = main.getByRole('textbox', { name: 'Addresses' });
  await main.getByRole('combobox', { name: 'Service' }).last().click();
  await page.getByRole('option', { name: 'SIP registration' }).click();
  await addresses.fill('127.0.0.1');
  await main.getByRole('button', { name: 'Add', exact: true }).click();
  await done(page);
  await expect(row(page, 'Whitelist', '127.0.0.1', 'SIP registration')).toHaveCount(1);
  expect(await registerUnknown('9999')).toBe('failed');

  await main.getByRole('combobox', { name: 'Service' }).last().click();
  await page.getByRole('option', { name: 'Console sign-in' }).click();
  await addresses.fill('192.0.2.0/24, 10.0.0.0/33');
  await main.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(main.getByText('Not an address or a range: 10.0.0.0/33')).toBeVisible();
  await addresses.fill('192.0.2.0/24');
  await main.getByRole('button', { name: 'Add', exact: true }).click();
  await done(page);
  await expect(row(page, 'Whitelist', '192.0.2.0/24', 'Console sign-in')).toHaveCount(1);
  await addresses.fill('192.0.2.7/24');
  await main.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByText('IP already in whitelist')).toBeVisible();
  await snapshot(page, 'ip-blocking-whitelist');

  // Back to the default rule, for the specs after this one.
  await failures.fill('10');
  await main.getByRole('button', { name: 'Save' }).click();
  await done(page);
});

test('the ban shows in System info’s recent logs, found by level and text', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'System information', exact: true }).click();
  const logs = page.getByRole('table', { name: 'Recent logs' });
  await expect(logs).toBeVisible();
  await page.getByLabel('Search').fill('address banned');
  await expect(logs.getByRole('row').filter({ hasText: 'ip blocking: address banned' }).first()).toBeVisible();
  await expect(logs.getByRole('row').filter({ hasText: 'service=sip' }).first()).toBeVisible();
  await page.getByRole('combobox', { name: 'Level' }).click();
  await page.getByRole('option', { name: 'Error' }).click();
  // Nothing matches: the list says so in place of its table.
  await expect(page.getByRole('main').getByText('No matching lines')).toBeVisible();
  await page.getByRole('combobox', { name: 'Level' }).click();
  await page.getByRole('option', { name: 'Warning' }).click();
  await expect(logs.getByRole('row').filter({ hasText: 'ip blocking: address banned' }).first()).toBeVisible();
  await page.getByRole('main').getByRole('table', { name: 'Recent logs' }).scrollIntoViewIfNeeded();
  await snapshot(page, 'system-info-logs');
});

test('the IP blocking page speaks Russian', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await page.goto('/ip-blocking');
  await page.getByRole('button', { name: 'Русский' }).click();
  const main = page.getByRole('main');
  await expect(main.getByText('Неудачные входы', { exact: true })).toBeVisible();
  await expect(main.getByText('Заблокированные адреса')).toBeVisible();
  await expect(main.getByText('Белый список', { exact: true })).toBeVisible();
  await snapshot(page, 'ip-blocking-ru');
  // The administrator's language goes back to English for the specs after this one.
  await page.getByRole('button', { name: 'English' }).click();
  await expect(main.getByText('Failed sign-ins', { exact: true })).toBeVisible();
});
