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
    await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
    await signInFromLogin(page, ADMIN);
    await page.goto('/system-info');
    await expect(page.getByText('Workers').first()).toBeVisible();
    await expect.poll(() => axeFindings(page), { timeout: 15_000 }).toEqual([]);
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading').first()).toBeVisible();
    expect(await axeFindings(page)).toEqual([]);
  });
}
