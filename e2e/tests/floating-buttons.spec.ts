import AxeBuilder from '@axe-core/playwright';
import { ADMIN, Api, expect, test } from './support/console';
import { dialerButton, softphone, withFakeMedia } from './support/dialer';

test.use(withFakeMedia);

// The dialer's button floats over the bottom-right corner of every page: the page must end above
// it, and the button must sit in a landmark like the rest of the console.

test('the dialer button covers no action of the page, and sits in a landmark', async ({ browser, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  // Enough users for a full first page, whose pagination ends the page at the bottom right.
  for (let i = 0; i < 21; i++)
    await admin.call('PUT', '/users', {
      login: `fab-${Date.now().toString(36)}-${i}`,
      name: `Fab ${i}`,
      password: 'fab-password-1',
      send_registration_link: false,
      domains: [(await admin.call<{ domains: { id: number }[] }>('GET', '/profile')).domains[0]?.id],
    });
  const phone = await softphone(browser, admin, 'Floating Reader', ['can_view_users']);
  const { page } = phone;
  try {
    await page.goto('/users');
    await expect(page.getByRole('row').nth(20)).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const fab = await dialerButton(page).boundingBox();
    expect(fab).not.toBeNull();
    const next = page.getByRole('button', { name: 'Go to next page' });
    await expect(next).toBeVisible();
    const box = await next.boundingBox();
    expect(box).not.toBeNull();
    if (!fab || !box) return;
    const overlaps = box.x < fab.x + fab.width && fab.x < box.x + box.width && box.y < fab.y + fab.height && fab.y < box.y + box.height;
    expect(overlaps, `next page ${JSON.stringify(box)} under the dialer button ${JSON.stringify(fab)}`).toBe(false);
    await expect(page.getByRole('complementary', { name: 'Quick actions' })).toContainText('');
    const { violations } = await new AxeBuilder({ page }).withRules(['region']).analyze();
    expect(violations.map((v) => v.nodes.map((n) => n.target.join(' ')))).toEqual([]);
    await page.screenshot({ path: 'screenshots/dialer-page-end.png' });
  } finally {
    await page.context().close();
  }
});
