import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

/**
 * Names and codes a Russian reader meets as they are: products and standards, the language switch's
 * "English" (each language is named in its own), "e-mail" (a word Russian writes as is in running text), and what this server was installed with (its
 * project "Atrium"). Anything else in Latin letters outside records' own data is an untranslated text.
 */
const PROPER =
  /\b(Atrium|English|ID|IP|SIP|MQTT|HTTPS?|API|UKEY2?|QR|SOS|CSV|Excel|xlsx|PNG|JPEG|GIF|WebP|PDF|URL|SMTP|TLS|SSL|STARTTLS|Apple Wallet|App Store|Google Play|iOS|Android|iPhone|PostgreSQL|PGlite|RU|EN|[Ee]-mail|UDP|TCP|\d+xx|Node\.js|JSON|gzip|WebSocket|RTP|DNS|DHCP|STUN|OpenID Connect|Axxon One|gRPC|HEX|PIN)\b/g;

/**
 * Every text a person sees or a screen reader speaks on the page (visible text, aria-label, title,
 * placeholder, alt), leaving out records' own data (table cells, form values: names people typed)
 * and anything marked as written in another language (`lang`, e.g. an English mail's subject).
 * Home's recent changes and the notifications name records, so they count as data too (marked
 * `data-user-content`; the sentences are checked in audit-events.spec.ts, the notification texts by
 * the catalogue tests).
 */
async function shownTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const skip =
      'td, [role="cell"], [role="gridcell"], script, style, noscript, input, textarea, [aria-hidden="true"], [data-user-content]';
    const foreign = (el: Element) => {
      const lang = el.closest('[lang]')?.getAttribute('lang') ?? 'ru';
      return !lang.startsWith('ru');
    };
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = n.textContent?.trim();
      if (!el || !text || el.closest(skip) || foreign(el)) continue;
      if (!(el as HTMLElement).checkVisibility?.()) continue;
      texts.push(text);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      if (el.closest(skip.replace('input, textarea, ', '')) || foreign(el)) continue;
      for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
        const v = el.getAttribute(a)?.trim();
        if (v) texts.push(v);
      }
    }
    return texts;
  });
}

/** The page's English: texts with Latin words left once proper names are taken out, and dates written the American way. */
async function englishOn(page: Page, known: string[]): Promise<string[]> {
  const found = (await shownTexts(page)).filter((t) => {
    let rest = t.replace(PROPER, '');
    for (const k of known) rest = rest.split(k).join('');
    return /[A-Za-z]{2,}/.test(rest);
  });
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text keeps cells apart, so a date is not glued to its neighbour
  const body = await page.locator('body').innerText();
  const dates = body.match(/\b\d{1,2}\/\d{1,2}\/\d{4}\b|\b\d{1,2}:\d{2}(:\d{2})? ?[AP]M\b/g) ?? [];
  return [...new Set([...found, ...dates.map((d) => `date ${d}`)])];
}

// The tour's pages under Russian: nothing left in English, seen or spoken, and dates as Russians write them.
test('a Russian reader meets no English on the pages of the tour', async ({ page, request }) => {
  test.setTimeout(180_000);
  const admin = await Api.signIn(request, ADMIN);
  const user = await makeUser(admin);
  // People's and records' names are data, not texts of the console: this run's are known.
  const known = [user.name, user.login, 'Administrator', 'admin', 'Site'];
  const english: string[] = [];
  // The language is saved to the administrator's profile: the other walks expect English back.
  try {
    await signInFromLogin(page, ADMIN);
    await page.getByRole('button', { name: 'Русский' }).click();
    await expect(sideMenu(page).getByRole('menuitem', { name: 'Главная', exact: true })).toBeVisible();

    const pages = [
      '/home',
      '/users',
      '/groups',
      '/roles',
      '/domain-types',
      '/outbox',
      '/roles/create',
      '/users/create',
      '/devices',
      '/identifiers',
      '/access-control/events',
      '/audit-events',
      '/notifications',
      '/profile',
      '/system-info',
    ];
    for (const path of pages) {
      await page.goto(path);
      await expect(page.locator('h1')).toBeVisible();
      // Lists finish loading before they are read.
      await expect(page.getByRole('progressbar')).toHaveCount(0);
      for (const t of await englishOn(page, known)) english.push(`${path}: ${t}`);
      await snapshot(page, `russian${path.replaceAll('/', '-')}`);
    }
  } finally {
    await admin.call('PATCH', '/profile', { locale: 'en' });
  }
  expect(english).toEqual([]);
});
