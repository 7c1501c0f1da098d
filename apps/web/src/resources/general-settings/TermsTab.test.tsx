import type { TermsSettings } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { en, ru } from './messages';
import { TermsForm, termsBody } from './TermsTab';

const terms: TermsSettings = {
  en: { html: '<p>Our rules</p>', is_default: false },
  ru: { html: '<h1>Условия использования</h1>', is_default: true },
};

// No DOM in these tests (environment node): the tab is rendered to HTML as the server would.
const render = (readOnly: boolean, locale: 'en' | 'ru' = 'en') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={new QueryClient()}>
          <TermsForm terms={terms} readOnly={readOnly} busy={false} onSave={() => undefined} onReset={() => undefined} />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

describe('terms and conditions tab', () => {
  it('has its texts in English and Russian', () => {
    expect(Object.keys(ru.general_settings.terms)).toEqual(Object.keys(en.general_settings.terms));
    for (const m of [en, ru]) {
      for (const v of Object.values(m.general_settings.terms)) expect(v).toMatch(/\S/);
      expect(m.general_settings.tabs.terms).toMatch(/\S/);
    }
  });

  it('shows a text area per language with its text, which one is built in, and a reset only for the own text', () => {
    const html = render(false);
    expect(html).toContain('English text');
    expect(html).toContain('Russian text');
    expect(html).toContain('&lt;p&gt;Our rules&lt;/p&gt;');
    expect(html).toContain('&lt;h1&gt;Условия использования&lt;/h1&gt;');
    expect(html).toContain('Own text');
    expect(html).toContain('Built-in text');
    expect(html.match(/Reset to default/g)).toHaveLength(1);
    expect(html).toContain('href="/api/v0/terms/en.html"');
    expect(html).toContain('Save');
    const russian = render(false, 'ru');
    expect(russian).toContain('Текст на английском');
    expect(russian).toContain('Вернуть встроенный');
  });

  it('read-only without the right to change: no save, no reset, the text areas locked', () => {
    const html = render(true);
    expect(html).toContain('You may view these settings but not change them.');
    expect(html).not.toContain('Reset to default');
    expect(html).not.toContain('>Save<');
    const areas = html.match(/<textarea[^>]*aria-label[^>]*>/g) ?? [];
    expect(areas).toHaveLength(2);
    expect(areas.every((a) => /readonly=""/i.test(a))).toBe(true);
  });

  it('saves only the languages changed', () => {
    expect(termsBody(terms, { en: '<p>Our rules</p>', ru: '<h1>Условия использования</h1>' })).toEqual({});
    expect(termsBody(terms, { en: '<p>New</p>', ru: '<h1>Условия использования</h1>' })).toEqual({ en: '<p>New</p>' });
  });
});
