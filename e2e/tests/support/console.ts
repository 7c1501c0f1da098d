import { type APIRequestContext, test as base, expect, type Locator, type Page } from '@playwright/test';

/** The administrator the e2e server is started with (playwright.config.ts). */
export const ADMIN = { login: 'admin', password: 'e2e-admin-password' } as const;

/** Where the console keeps the signed-in session (apps/web/src/app/storage.ts). */
export const SESSION_KEY = 'atrium.user';

/**
 * The console's test: fails when the page throws or MUI/React report a misuse, which a
 * screenshot would not show (the console once crashed on a menu item outside its list).
 */
export const test = base.extend<{ pageProblems: string[] }>({
  pageProblems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && /MUI:|Warning:|Uncaught|Minified React error/.test(message.text())) {
          problems.push(`console: ${message.text().split('\n')[0]}`);
        }
      });
      await use(problems);
      expect(problems, 'the page reported problems').toEqual([]);
    },
    { auto: true },
  ],
});
export { expect };

/**
 * A form field by its label, exactly, whether or not it is marked required: a required field's label
 * ends in an asterisk that is aria-hidden (out of the accessible name) but is in the label's text,
 * which getByLabel reads. For fields without a textbox role (passwords); others go by getByRole.
 */
export function fieldByLabel(scope: Page | Locator, label: string): Locator {
  return scope.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s*\\*)?$`));
}

/** Signs in on the login page as a person does. */
export async function signIn(page: Page, who: { login: string; password: string }, options: { remember?: boolean } = {}) {
  await page.getByLabel('Login').fill(who.login);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  if (options.remember) await page.getByRole('checkbox', { name: 'Remember me' }).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens the login page and signs in; resolves once the console shows home. */
export async function signInFromLogin(page: Page, who: { login: string; password: string }, options: { remember?: boolean } = {}) {
  await page.goto('/login');
  await signIn(page, who, options);
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByRole('heading', { name: /^Welcome|^Добро пожаловать/ })).toBeVisible();
}

const CATALOGUE_ROOTS =
  'app|auth|registration|self_registration|recovery|terms|menu|toolbar|notifications|license|home|profile|not_found|form|list|alerts|entities|validation|errors|ra';
const RAW_KEY = new RegExp(`\\b(?:${CATALOGUE_ROOTS})\\.[a-z_]+(?:\\.[a-z_]+)*\\b`);

/** No translation key shows as raw text (a key missing from the catalogue renders as itself). */
export async function expectNoRawKeys(page: Page) {
  // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator, and only the rendered text matters here
  const text = await page.locator('body').innerText();
  expect(text.match(RAW_KEY)?.[0] ?? null, 'an untranslated key on the page').toBeNull();
}

/** Saves a screenshot of the whole page under e2e/screenshots (ignored by git) to look at. */
export async function snapshot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  await expectNoRawKeys(page);
  await page.screenshot({ path: `screenshots/${name}.png`, fullPage: options.fullPage ?? true, animations: 'disabled' });
}

/**
 * Resolves once the console's realtime socket has both private topics subscribed (the server acks
 * each), so an event published after it cannot be missed. Call before the page signs in.
 */
export function realtimeSubscribed(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (socket) => {
      let acks = 0;
      socket.on('framereceived', ({ payload }) => {
        if (typeof payload === 'string' && payload.includes('"event":"subscribed"') && ++acks === 2) resolve();
      });
    });
  });
}

/**
 * Moves the running console to `path` as its menu's links do (the router follows the history), so a
 * walk over many pages starts the console once instead of loading it again for each.
 */
export async function goInside(page: Page, path: string): Promise<void> {
  // The console's title sits in its frame and stays while the next page loads: the move is done once
  // the title is the next page's (every page of a walk is titled unlike the one before it).
  const before = await page.evaluate((to) => {
    const title = document.querySelector('h1')?.textContent ?? '';
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
    return title;
  }, path);
  await expect(page).toHaveURL(new RegExp(`${path.replace(/[/?]/g, '\\$&')}$`));
  await expect(page.locator('h1').first()).not.toHaveText(before);
}

/** The side menu of the console. */
export const sideMenu = (page: Page) => page.getByRole('navigation', { name: /^(Main menu|Главное меню)$/ });

/** A signed-in API client for fixtures (the console's own API, bearer token). */
export class Api {
  private constructor(
    private readonly request: APIRequestContext,
    readonly token: string,
  ) {}

  static async signIn(request: APIRequestContext, who: { login: string; password: string }): Promise<Api> {
    const res = await request.post('/api/v0/login', { data: { login: who.login, password: who.password } });
    expect(res.status(), await res.text()).toBe(200);
    const { data } = await res.json();
    return new Api(request, data.sessions[0].token);
  }

  async call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, data?: unknown): Promise<T> {
    return (await this.answer(method, path, data))?.data as T;
  }

  /** A list's total (its `meta.total`), as the console's list and usage figures count it. */
  async total(path: string): Promise<number> {
    const total = (await this.answer('GET', path))?.meta?.total;
    expect(total, `GET ${path}: an answer without meta.total`).toEqual(expect.any(Number));
    return total as number;
  }

  /** The whole answer's body (`data` and `meta`), once the call succeeded; undefined when empty. */
  private async answer(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, data?: unknown) {
    const res = await this.request.fetch(`/api/v0${path}`, { method, data, headers: { Authorization: `Bearer ${this.token}` } });
    expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
    const text = await res.text();
    return text ? (JSON.parse(text) as { data?: unknown; meta?: { total: number } }) : undefined;
  }
}

let seq = 0;

/**
 * This worker's mark (Playwright's parallel index: 0 or 1), so names two workers make in the same
 * millisecond still differ.
 */
export const workerMark = process.env.TEST_PARALLEL_INDEX ?? '0';

/**
 * A new user of the admin's project with a role holding exactly `permissions`, so each test has
 * its own person and leaves nobody else's language or notifications changed.
 */
export async function makeUser(
  admin: Api,
  options: { permissions?: string[]; licenseInfo?: Record<string, unknown>; name?: string } = {},
): Promise<{ id: number; roleId: number; login: string; password: string; name: string }> {
  const tag = `${Date.now().toString(36)}${workerMark}${(++seq).toString(36)}`;
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const role = await admin.call<{ id: number }>('PUT', '/roles', { name: `E2E role ${tag}`, permissions: options.permissions ?? [] });
  const login = `e2e-${tag}`;
  const password = `pass-${tag}-word`;
  const name = options.name ?? `Tester ${tag}`;
  const user = await admin.call<{ id: number }>('PUT', '/users', {
    login,
    name,
    password,
    role: role.id,
    domains: [profile.domains[0]?.id],
    send_registration_link: false,
    ...(options.licenseInfo ? { license_info: options.licenseInfo } : {}),
  });
  return { id: user.id, roleId: role.id, login, password, name };
}
