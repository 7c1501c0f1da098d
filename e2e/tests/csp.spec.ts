import { ADMIN, expect, signInFromLogin, test } from './support/console';

// The console and the API docs run under Atrium's Content-Security-Policy without one violation.

test('the console and the API docs run under the Content-Security-Policy without a violation', async ({ page }) => {
  const violations: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __csp: string[] }).__csp ??= [];
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) violations.push(m.text());
  });
  const collect = async () => {
    const seen = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
    violations.push(...seen);
  };

  const first = await page.goto('/login');
  expect(first?.headers()['content-security-policy']).toContain("script-src 'self'");
  await collect();
  await signInFromLogin(page, ADMIN);
  for (const path of ['/home', '/users', '/users/add', '/groups', '/roles', '/profile', '/devices', '/devices/tasks', '/notifications']) {
    await page.goto(path);
    await expect(page.locator('#root')).not.toBeEmpty();
    await page.waitForLoadState('networkidle');
    await collect();
  }
  await page.goto('/api/docs');
  await expect(page.locator('.swagger-ui').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await collect();
  expect(violations).toEqual([]);
});
