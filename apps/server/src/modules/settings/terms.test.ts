// The terms and conditions are the operator's: per project and language, sanitized when saved,
// served publicly at /terms/{en|ru}.html from the default project, the built-in text otherwise.
import { TERMS_MAX_LENGTH } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';
import { DEFAULT_TERMS } from './terms.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());
afterEach(async () => {
  await t.database.db.execute(sql`UPDATE projects SET settings = settings - 'terms'`);
});

async function as(permissions: string[]) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
  return client(t.app, await login(t.app, u.login, u.password));
}

const page = async (locale: string) => (await client(t.app).get(`/terms/${locale}.html`)).body;

describe('terms and conditions', () => {
  it('are the built-in text until the operator writes one, then the operator’s, per language, on the public page', async () => {
    expect((await admin.get('/settings/terms')).json().data).toEqual({
      en: { html: DEFAULT_TERMS.en, is_default: true },
      ru: { html: DEFAULT_TERMS.ru, is_default: true },
    });
    const saved = await admin.patch('/settings/terms', { en: '<h2>Our rules</h2><p>Be <strong>kind</strong>.</p>' });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data).toEqual({
      en: { html: '<h2>Our rules</h2><p>Be <strong>kind</strong>.</p>', is_default: false },
      ru: { html: DEFAULT_TERMS.ru, is_default: true },
    });
    const en = await client(t.app).get('/terms/en.html');
    expect(en.headers['content-type']).toContain('text/html');
    expect(en.body).toBe('<h2>Our rules</h2><p>Be <strong>kind</strong>.</p>');
    expect(await page('ru')).toBe(DEFAULT_TERMS.ru);
    // Russian alone: the English text stays.
    await admin.patch('/settings/terms', { ru: '<p>Наши правила</p>' });
    expect(await page('ru')).toBe('<p>Наши правила</p>');
    expect(await page('en')).toBe('<h2>Our rules</h2><p>Be <strong>kind</strong>.</p>');
    expect((await admin.get('/settings/terms')).json().data.en.is_default).toBe(false);
  });

  it('keep basic formatting and drop script, handlers and styles before they are stored', async () => {
    const res = await admin.patch('/settings/terms', {
      en: '<p onclick="steal()">Read <a href="javascript:alert(1)">this</a> and <a href="https://example.com/x">that</a></p><script>alert(1)</script><style>p{}</style><iframe src="https://evil.example"></iframe><ul><li>one</li></ul>',
    });
    expect(res.statusCode).toBe(200);
    const [row] = await queryRows<{ en: string }>(
      t.database.db,
      sql`SELECT settings -> 'terms' ->> 'en' AS en FROM projects WHERE id = ${t.project.projectId}`,
    );
    for (const stored of [row?.en ?? '', res.json().data.en.html, await page('en')]) {
      expect(stored).not.toMatch(/script|onclick|javascript:|<style|<iframe|alert/);
      expect(stored).toContain('<ul><li>one</li></ul>');
      expect(stored).toContain('<a href="https://example.com/x" target="_blank" rel="noopener noreferrer">that</a>');
    }
  });

  it('go back to the built-in text when cleared (null, empty, or nothing left once sanitized)', async () => {
    for (const cleared of [null, '', '   ', '<script>alert(1)</script>']) {
      await admin.patch('/settings/terms', { en: '<p>Ours</p>', ru: '<p>Наши</p>' });
      expect(await page('en')).toBe('<p>Ours</p>');
      const res = await admin.patch('/settings/terms', { en: cleared });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.en).toEqual({ html: DEFAULT_TERMS.en, is_default: true });
      expect(await page('en')).toBe(DEFAULT_TERMS.en);
      expect(await page('ru')).toBe('<p>Наши</p>');
    }
  });

  it('refuse bad input: too long, not text, unknown languages', async () => {
    for (const body of [{ en: 'x'.repeat(TERMS_MAX_LENGTH + 1) }, { en: 5 }, { de: '<p>Hallo</p>' }]) {
      const res = await admin.patch('/settings/terms', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
    }
    expect(await page('en')).toBe(DEFAULT_TERMS.en);
  });

  it('are read with view rights and changed only with change project settings', async () => {
    const other = await as(['can_view_all_identifiers']);
    expect((await other.get('/settings/terms')).statusCode).toBe(403);
    const refused = await other.patch('/settings/terms', { en: '<p>Mine</p>' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().details).toEqual([{ permission: 'can_change_project_settings' }]);
    const viewer = await as(['can_view_project_settings']);
    expect((await viewer.get('/settings/terms')).statusCode).toBe(200);
    expect((await viewer.patch('/settings/terms', { en: '<p>Mine</p>' })).statusCode).toBe(403);
    expect(await page('en')).toBe(DEFAULT_TERMS.en);
  });
});
