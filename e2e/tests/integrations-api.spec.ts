import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// A building wires Atrium to its own systems: an administrator makes an API key, sees it once, a
// system calls the API with it until the key is revoked; then a webhook to the building's receiver
// gets a signed test ping, retried after the receiver failed once, and sent again from the log.

test('an administrator makes an API key, a system uses it, and revoking it shuts the system out', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const tag = Date.now().toString(36);
  await admin.call('PUT', '/roles', { name: `Integrations ${tag}`, permissions: ['can_view_all_users'], available_roles: [] });

  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'API keys', exact: true }).click();
  await expect(page).toHaveURL(/\/api-keys$/);
  const main = page.getByRole('main');
  await main.getByRole('button', { name: 'New key' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill(`Billing ${tag}`);
  await dialog.getByLabel('Role').click();
  await page.getByRole('option', { name: `Integrations ${tag}` }).click();
  await snapshot(page, 'api-keys-create');
  await dialog.getByRole('button', { name: 'Create' }).click();

  // Shown once, with a copy button.
  const secretDialog = page.getByRole('dialog', { name: 'Your new API key' });
  await expect(secretDialog).toBeVisible();
  const key = (await secretDialog.getByTestId('one-time-secret').textContent()) ?? '';
  expect(key).toMatch(/^atr_[A-Za-z0-9_-]{43}$/);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await secretDialog.getByRole('button', { name: 'Copy' }).click();
  await expect(secretDialog.getByRole('button', { name: 'Copied', exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await snapshot(page, 'api-keys-secret');
  await secretDialog.getByRole('button', { name: 'I have copied it' }).click();
  await expect(secretDialog).toBeHidden();

  const row = main.getByRole('row').filter({ hasText: `Billing ${tag}` });
  await expect(row).toContainText(key.slice(0, 12));
  await expect(row).not.toContainText(key);
  await expect(row).toContainText('Active');

  // The building's system calls the API with the key.
  const users = await request.get('/api/v0/users', { headers: { 'X-Api-Key': key } });
  expect(users.status()).toBe(200);
  expect((await request.get('/api/v0/roles', { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(403);
  await page.reload();
  await expect(row).not.toContainText('Never');
  await snapshot(page, 'api-keys-list');

  await row.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(row).toContainText('Revoked');
  expect((await request.get('/api/v0/users', { headers: { 'X-Api-Key': key } })).status()).toBe(401);
});

test('an administrator wires a webhook, pings it through a failure, and redelivers from the log', async ({ page }) => {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const plan = [500];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const status = plan.shift() ?? 200;
      res.writeHead(status).end(status === 200 ? 'thanks' : 'busy');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/atrium`;
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Webhooks', exact: true }).click();
    await expect(page).toHaveURL(/\/webhooks$/);
    const main = page.getByRole('main');
    await main.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('dialog', { name: 'New webhook' });
    await form.getByLabel('Name').fill('Building BMS');
    await form.getByLabel('URL').fill(url);
    await form.getByRole('checkbox', { name: 'Access denied' }).check();
    await form.getByRole('checkbox', { name: 'Markers' }).check();
    await snapshot(page, 'webhooks-form');
    await form.getByRole('button', { name: 'Save' }).click();

    const secretDialog = page.getByRole('dialog', { name: 'Signing secret' });
    const secret = (await secretDialog.getByTestId('one-time-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await secretDialog.getByRole('button', { name: 'I have copied it' }).click();

    const row = main.getByRole('row').filter({ hasText: 'Building BMS' });
    await expect(row).toContainText('Access denied, Markers');
    // One action on the row, the others in its menu (named after the webhook).
    await row.getByRole('button', { name: 'More actions: Building BMS' }).click();
    await page.getByRole('menuitem', { name: 'Send test ping' }).click();
    // Refused once, delivered on the retry a second later; each attempt signed.
    await expect.poll(() => got.length, { timeout: 15_000 }).toBe(2);
    for (const g of got) {
      const ts = String(g.headers['x-atrium-timestamp']);
      expect(g.headers['x-atrium-signature']).toBe(`v1=${createHmac('sha256', secret).update(`${ts}.${g.body}`).digest('hex')}`);
      expect(JSON.parse(g.body)).toMatchObject({ type: 'ping' });
    }

    await row.getByRole('button', { name: 'Delivery log' }).click();
    const log = page.getByRole('dialog', { name: 'Delivery log: Building BMS' });
    const delivery = log.getByRole('row').filter({ hasText: 'Test ping' });
    await expect(delivery).toContainText('Delivered');
    await expect(delivery).toContainText('200');
    await delivery.click();
    await expect(log.getByText(/Attempt 1 · .* · 500/)).toBeVisible();
    await expect(log.getByText(/Attempt 2 · .* · 200/)).toBeVisible();
    await snapshot(page, 'webhooks-log');
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => got.length).toBe(3);
    expect(JSON.parse(got[2]!.body).id).toBe(JSON.parse(got[0]!.body).id);
    await log.getByRole('button', { name: 'Close' }).click();

    // Switched off: the row says so.
    await row.getByRole('switch', { name: 'Disable' }).click();
    await expect(row.getByRole('switch', { name: 'Enable' })).not.toBeChecked();
    await snapshot(page, 'webhooks-list');
  } finally {
    await new Promise((r) => server.close(r));
  }
});
