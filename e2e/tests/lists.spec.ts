import { SimDevice } from '@atrium/device-sim';
import type { Page } from '@playwright/test';
import { mqttPort } from '../playwright.config';
import { ADMIN, Api, expect, goInside, signInFromLogin, snapshot, test } from './support/console';

// Every list page of the console, as a person sees it on a phone held upright (390×844) and on a
// desk (1280×800), in English and in Russian: nothing wider than the screen, the title and the
// records' names whole, and a screenshot of each for a human to look at (e2e/screenshots/lists-*).

const LIST_PAGES = [
  '/users',
  '/roles',
  '/groups',
  '/guest-access',
  '/schedules',
  '/access-rules',
  '/identifiers',
  '/ukey2',
  '/access-matrix',
  '/access-control/events',
  '/conversations',
  '/announces',
  '/announces/response',
  '/amenities',
  '/amenities/reservations',
  '/devices',
  '/devices/events',
  '/devices/tasks',
  '/devices/alarms',
  '/devices/alarms-calls',
  '/elevators',
  '/elevators/events',
  '/elevators/access-rules',
  '/emergency-alerts',
  '/virtual-numbers',
  '/forward-rules',
  '/call-history',
  '/sip-trunks',
  '/audit-events',
  '/outbox',
  '/backups',
  '/api-keys',
  '/webhooks',
  '/ip-blocking',
  '/integrations',
  '/system-info',
] as const;

const PHONE = { width: 390, height: 844 };
const DESK = { width: 1280, height: 800 };

/**
 * Records with long names and texts, so a list that cuts the column naming a record, or that
 * scrolls sideways on a desk, shows it.
 */
async function seed(admin: Api) {
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const group = profile.domains[0];
  if (!group) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  const resident = await admin.call<{ id: number }>('PUT', '/users', {
    login: `lists-${stamp.toLowerCase()}`,
    name: `Anna Petrova-Vodkina ${stamp}`,
    domains: [group.id],
    send_registration_link: false,
  });
  const door = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Entrance panel B2 ${stamp}`,
    model: 'AP-200',
    serial_number: `SN-${stamp}-0001`,
    domain_id: group.id,
  });
  const cardNumber = `04A1B2${Date.now().toString(16).toUpperCase().slice(-4)}`;
  const card = await admin.call<{ id: number }>('PUT', '/identifiers', {
    name: `Card of Anna Petrova-Vodkina ${stamp}`,
    value: cardNumber,
    owner_id: resident.id,
  });
  const rule = await admin.call<{ id: number }>('PUT', '/access-rules', {
    name: `Residents of building 2, all doors ${stamp}`,
    devices: [{ id: door.id, lock_number: 1 }],
    identifiers: [card.id],
  });
  await admin.call('PUT', '/webhooks', {
    name: `Door events to the building's journal ${stamp}`,
    url: 'https://journal.example.com/atrium/hooks/doors',
    event_types: ['device.online'],
  });
  const roles = await admin.call<{ id: number }[]>('GET', '/roles?size=1');
  if (roles[0]) await admin.call('PUT', '/api-keys', { name: `Accounting export, nightly ${stamp}`, role: roles[0].id });
  await admin.call('PUT', '/roles', {
    name: `Concierge of the north lobby ${stamp}`,
    description: 'Lets the concierge of the north lobby see the residents, open the doors and answer the intercom calls',
  });
  await admin.call('PUT', '/amenities', {
    name: `Roof terrace with barbecue ${stamp}`,
    address: '12 Harbour Embankment, building 2, entrance 3, top floor',
    domains: [group.id],
    access_rules: [rule.id],
    time_slots: { duration: 3600, items: [{ days: ['sat', 'sun'], from: 36_000, to: 79_200 }] },
  });
  await admin.call('POST', '/backups/make', { name: `Before the lobby works ${stamp}`, entities: ['users', 'groups'] });
  return { residentId: resident.id, residentName: `Anna Petrova-Vodkina ${stamp}`, door, cardNumber };
}

/**
 * The door decides on the seeded card and on a card nobody has: a granted and a refused access event.
 * Its simulator stays connected until `done` deletes the door and then stops it: a door that went
 * offline would notify the administrator, and the notice would pop up over later tests.
 */
async function accessEvents(admin: Api, door: { id: number }, cardNumber: string): Promise<{ done: () => Promise<void> }> {
  const { serial_number: serial } = await admin.call<{ serial_number: string }>('GET', `/devices/${door.id}`);
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${door.id}/init/apply`, {});
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-200', reconnectMs: 0 });
  const done = async () => {
    await admin.call('DELETE', `/devices/${door.id}`).catch(() => undefined);
    await sim.stop({ graceful: false });
  };
  await sim.start();
  try {
    await expect.poll(() => sim.synced.find(cardNumber)?.grants?.length ?? 0, { timeout: 15_000 }).toBe(1);
    await sim.present(cardNumber, { lock: 1 });
    await sim.present('04FFEE0011', { lock: 1, kind: 'card' });
  } catch (e) {
    await done();
    throw e;
  }
  return { done };
}

/** The page has drawn its list (or its empty state): its title is there and nothing is loading. */
async function settle(page: Page) {
  await expect(page.locator('h1')).not.toBeEmpty();
  // A width just set is laid out by the next frames (the list turns into lines or back into a table).
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await expect(page.locator('main .MuiSkeleton-root:visible, main [role="progressbar"]:visible')).toHaveCount(0);
}

/** What on the page is wider than it should be: the page itself, the title, chips, the identifying column. */
async function layoutProblems(page: Page, desk: boolean): Promise<string[]> {
  return page.evaluate((onDesk) => {
    const problems: string[] = [];
    const cut = (el: Element) => el.scrollWidth > el.clientWidth + 1;
    const doc = document.scrollingElement ?? document.documentElement;
    if (doc.scrollWidth > window.innerWidth + 1) problems.push(`the page scrolls sideways (${doc.scrollWidth} > ${window.innerWidth})`);
    // Nothing was clicked: a dialog or panel in view now opened by itself (a line calling the page's
    // click handler to draw). The phone's menu is a modal kept mounted, slid out of view while closed.
    for (const modal of document.querySelectorAll('.MuiModal-root')) {
      const paper = modal.querySelector('.MuiPaper-root');
      const box = paper?.getBoundingClientRect();
      const shown =
        paper?.checkVisibility({ opacityProperty: true, visibilityProperty: true }) && box && box.right > 0 && box.left < window.innerWidth;
      if (shown) problems.push(`a dialog is open: ${modal.textContent?.slice(0, 60)}`);
    }
    const h1 = document.querySelector('h1');
    if (h1 && cut(h1)) problems.push(`the title is cut: ${h1.textContent}`);
    for (const chip of document.querySelectorAll('main .MuiChip-label')) {
      if (cut(chip)) problems.push(`a chip is cut: ${chip.textContent}`);
    }
    for (const cell of document.querySelectorAll('main .kit-identifying, main .kit-identifying *')) {
      if (cut(cell)) problems.push(`the identifying column is cut: ${cell.textContent}`);
    }
    // A header for screen readers only (the buttons' column) is clipped on purpose.
    const screenReaderOnly = (el: Element) => getComputedStyle(el).clip === 'rect(0px, 0px, 0px, 0px)';
    for (const header of document.querySelectorAll('main thead th, main thead th *')) {
      if (cut(header) && !screenReaderOnly(header)) problems.push(`a column header is cut: ${header.textContent}`);
    }
    if (onDesk) {
      // Were a table wider than its card, the column naming the records would still have to be in view.
      for (const wrapper of document.querySelectorAll('main .RaDatagrid-tableWrapper')) {
        const box = wrapper.getBoundingClientRect();
        for (const cell of wrapper.querySelectorAll('td.kit-identifying')) {
          if (cell.getBoundingClientRect().right > box.right + 1)
            problems.push(`the identifying column is out of view: ${cell.textContent}`);
        }
      }
    } else if (document.querySelector('main table.RaDatagrid-table')) problems.push('a phone is shown a table instead of lines');
    return problems;
  }, desk);
}

/**
 * The tables wider than their card on a desk: columns are sized by their content, the identifying
 * one wraps between words, prose wraps and secondary columns wait for a wider desk, so a desk list
 * that still scrolls sideways hides columns off to the right.
 */
async function scrollingTables(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('main .RaDatagrid-tableWrapper')]
      .filter((w) => w.scrollWidth > w.clientWidth + 1)
      .map((w) => w.scrollWidth),
  );
}

async function walkLists(page: Page, language: 'en' | 'ru') {
  const problems: string[] = [];
  const widths = [
    ['390', PHONE],
    ['1280', DESK],
  ] as const;
  for (const [i, path] of LIST_PAGES.entries()) {
    // The console is started once; each list is reached inside it and seen at both widths, the
    // second by turning the screen (as a person's window or phone does), every other page starting
    // with the width the last one ended on.
    await goInside(page, path);
    for (const [label, size] of i % 2 ? [...widths].reverse() : widths) {
      await page.setViewportSize(size);
      await settle(page);
      for (const p of await layoutProblems(page, label === '1280')) problems.push(`${path} at ${label} px (${language}): ${p}`);
      // A device is told by its serial number, a card by its number: whole on a desk, not "SN-…", "198926…".
      if ((path === '/devices' || path === '/identifiers') && label === '1280') {
        const cut = await page.evaluate(() =>
          [...document.querySelectorAll('main td')]
            .filter((td) => /^(SN-|\d{6,}$)/.test(td.textContent ?? ''))
            .filter((td) => [td, ...td.querySelectorAll('*')].some((el) => el.scrollWidth > el.clientWidth + 1))
            .map((td) => td.textContent),
        );
        for (const text of cut) problems.push(`${path} at 1280 px (${language}): ${text} is cut`);
      }
      if (label === '1280') {
        for (const width of await scrollingTables(page))
          problems.push(`${path} at 1280 px (${language}): the table scrolls sideways in its card (${width} px wide)`);
      }
      await snapshot(page, `lists-${path.slice(1).replaceAll('/', '-')}-${label}-${language}`);
    }
  }
  expect(problems).toEqual([]);
}

test.describe('every list fits its screen', () => {
  // Two seeds with a door's decisions, then 72 pages: minutes on a busy machine.
  test.describe.configure({ timeout: 600_000 });

  test('in English, at 390 px and at 1280 px', async ({ page, request }) => {
    const admin = await Api.signIn(request, ADMIN);
    const { door, cardNumber } = await seed(admin);
    const events = await accessEvents(admin, door, cardNumber);
    try {
      await signInFromLogin(page, ADMIN);
      await walkLists(page, 'en');
    } finally {
      await events.done();
    }
  });

  test('in Russian, at 390 px and at 1280 px', async ({ page, request }) => {
    const admin = await Api.signIn(request, ADMIN);
    const { door, cardNumber } = await seed(admin);
    const events = await accessEvents(admin, door, cardNumber);
    await admin.call('PATCH', '/profile', { locale: 'ru' });
    try {
      await signInFromLogin(page, ADMIN);
      await walkLists(page, 'ru');
    } finally {
      await admin.call('PATCH', '/profile', { locale: 'en' });
      await events.done();
    }
  });
});

test('an operator opens a person from the list with the keyboard alone', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const { residentId, residentName } = await seed(admin);
  await signInFromLogin(page, ADMIN);
  await page.setViewportSize(DESK);
  await page.goto(`/users?filter=${encodeURIComponent(JSON.stringify({ search: residentName }))}`);
  const row = page.getByRole('row').filter({ hasText: residentName });
  await expect(row).toBeVisible();

  // From the search box, Tab walks the list's toolbar and reaches the person's row in a few steps.
  await page.getByRole('textbox', { name: 'Search' }).focus();
  let steps = 0;
  while (steps < 15 && !(await row.evaluate((el) => el === document.activeElement))) {
    await page.keyboard.press('Tab');
    steps++;
  }
  await expect(row).toBeFocused();
  // The focus shows: an outline is drawn around the row.
  expect(await row.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/users/${residentId}(/edit)?$`));
});

test('on a phone the list is lines, and a person opens from it with the keyboard', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const { residentId, residentName } = await seed(admin);
  await page.setViewportSize(PHONE);
  await signInFromLogin(page, ADMIN);
  // The bar leaves its width to the title: the theme's switch is in the profile menu, and works there.
  await expect(page.getByRole('button', { name: 'Toggle light/dark mode' })).toBeHidden();
  await page.getByRole('button', { name: 'Profile menu' }).click();
  const dark = page.getByRole('menuitemcheckbox', { name: 'Dark mode' });
  await expect(dark).toHaveAttribute('aria-checked', 'false');
  await dark.click();
  await expect(dark).toHaveAttribute('aria-checked', 'true');
  await dark.click();
  await expect(dark).toHaveAttribute('aria-checked', 'false');
  await page.keyboard.press('Escape');
  await page.goto(`/users?filter=${encodeURIComponent(JSON.stringify({ search: residentName }))}`);
  const line = page.getByRole('link', { name: new RegExp(residentName) });
  await expect(line).toBeVisible();
  await expect(page.locator('main table')).toHaveCount(0);
  await line.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/users/${residentId}(/edit)?$`));
});
