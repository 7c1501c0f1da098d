import { AdminContext, memoryStore, testDataProvider } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider, registerAreaMessages } from '../../i18n';
import { DevelopmentServerWarning } from './LicensesPage';
import * as messages from './messages';

// The Licences page warns of a server without a licence issuer key, in English and Russian, and only then.
describe('development licence warning', () => {
  registerAreaMessages([messages]);
  const render = (locale: 'en' | 'ru', development_server: boolean) =>
    renderToString(
      <MemoryRouter>
        <AdminContext dataProvider={testDataProvider()} i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
          <DevelopmentServerWarning state={{ development_server }} />
        </AdminContext>
      </MemoryRouter>,
    );

  it('is shown on a development server in both languages', () => {
    expect(render('en', true)).toContain('Development licence: this server has no licence issuer key (LICENSE_PUBLIC_KEY)');
    expect(render('ru', true)).toContain('Лицензия для разработки: у этого сервера нет ключа издателя лицензий (LICENSE_PUBLIC_KEY)');
  });

  it('is not shown when the server has an issuer key', () => {
    expect(render('en', false)).not.toContain('license-development-server');
    expect(render('en', true)).toContain('license-development-server');
  });
});
