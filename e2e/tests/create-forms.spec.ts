import type { Page } from '@playwright/test';
import { ADMIN, expect, sideMenu, signInFromLogin, test } from './support/console';

// A new user's or role's form is typed into as soon as it shows, while its pickers (role, groups,
// assignable roles) still wait for their choices: their answers must not take back what was typed.

/** The form of a create page: the one with a Save button (the list's filters have none). */
const createForm = (page: Page) => page.locator('form').filter({ has: page.getByRole('button', { name: 'Save' }) });

/** Holds the answers to the calls matching `url` until `release()`. */
async function holdAnswers(page: Page, url: RegExp) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  await page.route(url, async (route) => {
    held++;
    await released;
    await route.continue().catch(() => undefined);
  });
  return { held: () => held, release: () => release() };
}

test('what is typed into a new user at once stays when the role and group pickers get their choices', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
  const pickers = await holdAnswers(page, /\/api\/v0\/(domains|roles\/available)(\?|$)/);
  await page.getByRole('link', { name: 'Create' }).click();
  const form = createForm(page);
  await form.getByRole('textbox', { name: 'Login', exact: true }).fill('typed-at-once');
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Typed At Once');
  await form.getByRole('textbox', { name: 'E-mail' }).fill('typed@e2e.example');
  await expect.poll(pickers.held).toBeGreaterThan(0);

  pickers.release();
  await form.getByRole('combobox', { name: 'Role' }).click();
  await expect(page.getByRole('option', { name: 'Administrator' })).toBeVisible();
  await page.keyboard.press('Escape');
  await form.getByRole('combobox', { name: 'Groups' }).click();
  await expect(page.getByRole('option', { name: 'Site', exact: true })).toBeVisible();
  await page.keyboard.press('Escape');

  await expect(form.getByRole('textbox', { name: 'Login', exact: true })).toHaveValue('typed-at-once');
  await expect(form.getByRole('textbox', { name: 'Name', exact: true })).toHaveValue('Typed At Once');
  await expect(form.getByRole('textbox', { name: 'E-mail' })).toHaveValue('typed@e2e.example');
});

test('what is typed into a new role at once stays when the assignable roles picker gets its choices', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Roles', exact: true }).click();
  await expect(page.getByRole('link', { name: 'Create' })).toBeVisible();
  const picker = await holdAnswers(page, /\/api\/v0\/roles\?/);
  await page.getByRole('link', { name: 'Create' }).click();
  const form = createForm(page);
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Typed at once');
  await form.getByRole('textbox', { name: 'Description' }).fill('Typed before the choices came');
  await expect.poll(picker.held).toBeGreaterThan(0);

  picker.release();
  await form.getByRole('combobox', { name: 'Roles its holders may assign' }).click();
  await expect(page.getByRole('option', { name: 'Administrator' })).toBeVisible();
  await page.keyboard.press('Escape');

  await expect(form.getByRole('textbox', { name: 'Name', exact: true })).toHaveValue('Typed at once');
  await expect(form.getByRole('textbox', { name: 'Description' })).toHaveValue('Typed before the choices came');
});

test('a login the server finds taken is marked on its field, in the console language', async ({ page }) => {
  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
  await page.getByRole('link', { name: 'Create' }).click();
  const form = createForm(page);
  const login = form.getByRole('textbox', { name: 'Login', exact: true });
  await login.fill(ADMIN.login);
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Second Admin');
  await form.getByRole('textbox', { name: 'E-mail' }).fill('second-admin@e2e.example');
  await form.getByRole('combobox', { name: 'Groups' }).click();
  await page.getByRole('option', { name: 'Site', exact: true }).click();
  await page.keyboard.press('Escape');
  await form.getByRole('button', { name: 'Save' }).click();

  // The server's refusal (409, details on `login`) lands on the field itself.
  await expect(form.getByText('Value must be unique')).toBeVisible();
  await expect(login).toHaveAttribute('aria-invalid', 'true');
  await expect(page).toHaveURL(/\/users\/add|\/users\/create/);
  await login.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'screenshots/user-create-login-taken.png' });
});
