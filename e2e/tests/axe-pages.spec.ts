import { PERMISSION_CODES } from '@atrium/contract';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, goInside, signInFromLogin, test } from './support/console';
import { dialerButton, softphone, withFakeMedia } from './support/dialer';

// axe-core on pages it found faults on, at a phone's width and a desk's, with every impact counted
// (minor ones too): what a keyboard or a screen reader meets there.

async function axeFindings(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ').replace(/\.css-[a-z0-9]+/g, '')).join(', ')}`);
}

for (const width of [390, 1280]) {
  test(`system information and the missing page have no axe finding at ${width} px`, async ({ page }) => {
    // One axe pass over system information takes 3 s on a quiet machine and up to a minute on a
    // loaded one; a poll that times out inside its first pass reports no finding at all.
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
    await signInFromLogin(page, ADMIN);
    await page.goto('/system-info');
    await expect(page.getByText('Workers').first()).toBeVisible();
    await expect.poll(() => axeFindings(page), { timeout: 120_000 }).toEqual([]);
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading').first()).toBeVisible();
    expect(await axeFindings(page)).toEqual([]);
  });
}

/**
 * The pages of the tour a new administrator takes (the lists, the forms that make a building, the
 * pages of one's own), every one read by axe as it stands, the dialer's button shown (the user has
 * a virtual number), with every impact counted.
 */
const TOUR = [
  '/home',
  '/users',
  '/users/create',
  '/roles',
  '/roles/create',
  '/groups',
  '/devices',
  '/devices/search',
  '/devices/events',
  '/devices/tasks',
  '/devices/alarms',
  '/schedules',
  '/schedules/create',
  '/access-rules',
  '/access-rules/create',
  '/identifiers',
  '/identifiers/create',
  '/guest-access',
  '/access-control/events',
  '/access-control/explain',
  '/access-matrix',
  '/virtual-numbers',
  '/forward-rules',
  '/call-history',
  '/audit-events',
  '/outbox',
  '/backups',
  '/api-keys',
  '/webhooks',
  '/ip-blocking',
  '/integrations',
  '/licenses',
  '/reports/licenses',
  '/general-settings',
  '/mail-templates',
  '/sso-providers',
  '/notifications',
  '/notifications/settings',
  '/profile',
  '/system-info',
  '/no-such-page',
] as const;

// The dialer's browser: its media allowed without asking (it registers once signed in).
test.use(withFakeMedia);

/** Every page of the tour at one width, in `page`: each path's findings (none: not listed). */
async function tourFindings(page: Page, width: number): Promise<Record<string, string[]>> {
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  const findings: Record<string, string[]> = {};
  for (const [i, path] of TOUR.entries()) {
    // The first page is loaded; the others are reached inside the running console (the router follows
    // the history, as the menu's links do), so each page is read as a person moving through the
    // console meets it, without starting the console and registering the dialer forty times.
    if (i === 0) await page.goto(path);
    else await goInside(page, path);
    await expect(page.locator('h1').first()).not.toBeEmpty();
    await page.waitForLoadState('networkidle').catch(() => undefined);
    // A page that never ends loading is a finding too (read by axe as it stands all the same); a bar
    // with a value (a licence's usage) is no loading.
    const loading = page.locator('main .MuiSkeleton-root:visible, main [role="progressbar"]:not([aria-valuenow]):visible');
    const settled = await expect(loading)
      .toHaveCount(0, { timeout: 20_000 })
      .then(() => true)
      .catch(() => false);
    await expect(dialerButton(page)).toBeVisible();
    // A finding on a node gone by the time axe names it (its target reads ":root") is a moment of the
    // page's loading, not the page: a finding counts when a second look, a second later, sees it too.
    let seen = await axeFindings(page);
    if (seen.length) {
      console.log(`${path} at ${width} px, first look: ${seen.join('; ')}`);
      await page.waitForTimeout(1_000);
      seen = await axeFindings(page);
    }
    const found = [...(settled ? [] : ['still loading after 20 s']), ...seen];
    console.log(`${path} at ${width} px: ${found.length ? found.join('; ') : 'no finding'}`);
    if (found.length) findings[path] = found;
  }
  return findings;
}

/**
 * What axe reports as an unnamed progress bar at ":root" is a node gone before it was named: a
 * watcher in the page, there from the first script, notes every progress bar the moment it is added
 * or loses its name, so a spinner that lives a tenth of a second is caught as surely as one that
 * stays. The tour's browsers load the console once (sign-in, then the first page: the session
 * check's loader) and each page's code chunk the first time it is reached (its loader), so every
 * loader of the tour passes under it.
 */
function watchUnnamedProgress() {
  // Kept in the tab's session storage, so what the sign-in page showed outlives its document.
  const seen: string[] = JSON.parse(sessionStorage.getItem('unnamedProgress') ?? '[]');
  const look = (root: ParentNode) => {
    for (const el of root.querySelectorAll('[role="progressbar"]')) {
      const name = el.getAttribute('aria-label')?.trim() || el.getAttribute('aria-labelledby') || el.getAttribute('title');
      if (!name) {
        seen.push(`${location.pathname}: <${el.tagName.toLowerCase()} class="${el.getAttribute('class') ?? ''}">`);
        sessionStorage.setItem('unnamedProgress', JSON.stringify(seen));
      }
    }
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' && r.target instanceof Element && r.target.parentNode) look(r.target.parentNode);
      for (const node of r.addedNodes) if (node instanceof Element && node.parentNode) look(node.parentNode);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['role', 'aria-label'] });
}

const unnamedProgress = (page: Page): Promise<string[]> =>
  page.evaluate(() => JSON.parse(sessionStorage.getItem('unnamedProgress') ?? '[]'));

test.describe('the tour with the dialer shown', () => {
  // Both widths at once, each in a browser of its own: axe's work runs in each page's renderer, so the
  // two use both cores where one after the other used one.
  test('every page of the tour has no axe finding at 390 px and at 1280 px', async ({ browser, request }) => {
    test.setTimeout(900_000);
    const admin = await Api.signIn(request, ADMIN);
    const phones = await Promise.all(
      [390, 1280].map((width) => softphone(browser, admin, `Tour ${width}`, [...PERMISSION_CODES], watchUnnamedProgress)),
    );
    try {
      const [narrow, wide] = await Promise.all([tourFindings(phones[0]!.page, 390), tourFindings(phones[1]!.page, 1280)]);
      const unnamed = [...new Set([...(await unnamedProgress(phones[0]!.page)), ...(await unnamedProgress(phones[1]!.page))])];
      expect({ '390 px': narrow, '1280 px': wide, 'progress bars without a name': unnamed }).toEqual({
        '390 px': {},
        '1280 px': {},
        'progress bars without a name': [],
      });
    } finally {
      await Promise.all(phones.map((p) => p.page.context().close()));
    }
  });
});
