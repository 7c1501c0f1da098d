import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ADMIN, expect, signInFromLogin, test } from './support/console';

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
