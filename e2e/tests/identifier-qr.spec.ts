import { ADMIN, Api, expect, signInFromLogin, snapshot, test } from './support/console';

// A QR identifier's preview: the code drawn by the server, saved as a PNG, and the Apple Wallet pass,
// which a project without a pass certificate refuses with a message that says where to set it.

test('the QR preview shows the code and says when Apple Wallet is not configured', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const stamp = Date.now().toString(36).toUpperCase();
  const qr = await admin.call<{ id: number }>('PUT', '/identifiers', { name: `Visitor QR ${stamp}`, type: 'qr', value: `QR-${stamp}` });
  await signInFromLogin(page, ADMIN);
  await page.goto(`/identifiers/${qr.id}`);
  await page.getByRole('button', { name: 'QR code' }).click();
  const dialog = page.getByRole('dialog', { name: `QR code of Visitor QR ${stamp}` });
  const image = dialog.getByRole('img', { name: `QR code of Visitor QR ${stamp}` });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
  await snapshot(page, 'identifier-qr-preview');

  const png = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Download PNG' }).click();
  expect((await png).suggestedFilename()).toBe(`identifier-${qr.id}.png`);

  await dialog.getByRole('button', { name: 'Apple Wallet pass' }).click();
  await expect(page.getByText('Apple Wallet is not configured: set the pass certificate in the project settings')).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});
