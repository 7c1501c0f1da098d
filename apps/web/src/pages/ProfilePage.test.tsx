import type { Profile } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
// react-router-dom: the copy of react-router that react-admin reads its router from.
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { createI18nProvider } from '../i18n';
import '../i18n/areas';

const session = vi.hoisted(() => ({ permissions: [] as string[] }));
vi.mock('../app/SessionContext', () => ({
  useSessionData: () => {
    const profile = {
      id: 7,
      login: 'pat',
      name: 'Pat',
      email: null,
      locale: 'en',
      avatar_url: null,
      role: { id: 3, name: 'Resident', permissions: session.permissions },
      domains: [{ id: 1, name: 'Root' }],
      license_info: null,
      profile: { address: 'Flat 1', phone: '+37120000000', time_zone: null, time_format: null, identifier_format: 'dec' },
    } as unknown as Profile;
    return { profile, permissions: session.permissions, ruleContext: { permissions: session.permissions } };
  },
}));

const { ProfilePage } = await import('./ProfilePage');
const HINT = 'Only an administrator can change this';

// No DOM in these tests (environment node): the page is rendered to HTML as the server would.
function render(permissions: string[]): string {
  session.permissions = permissions;
  return renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider('en')} store={memoryStore({ locale: 'en' })}>
        <QueryClientProvider client={new QueryClient()}>
          <ProfilePage />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );
}

/** The <input> of a form field, by its name or id. */
function input(html: string, field: string): string {
  const tag = new RegExp(`<input[^>]*\\b(?:name|id)="${field}"[^>]*>`).exec(html)?.[0];
  if (!tag) throw new Error(`no input ${field}`);
  return tag;
}
const disabled = (tag: string) => /\sdisabled=""/.test(tag);

describe('the profile page', () => {
  it('without the right to edit one’s record: name, address and phone are read-only, with a hint', () => {
    const html = render([]);
    for (const field of ['name', 'address', 'phone']) expect(disabled(input(html, field)), field).toBe(true);
    expect(html.split(HINT).length - 1).toBe(3);
    // Language, time zone and formats stay the person's own choice.
    for (const field of ['locale', 'time_zone', 'time_format', 'identifier_format'])
      expect(disabled(input(html, field)), field).toBe(false);
  });

  it.each([
    ['edit-own-profile', ['can_edit_own_profile']],
    ['an edit scope over all users', ['can_edit_all_users']],
    ['an edit scope over the users of one’s groups', ['can_edit_users']],
  ])('with %s everything is editable and there is no hint', (_, permissions) => {
    const html = render(permissions);
    for (const field of ['name', 'address', 'phone', 'locale', 'time_zone']) expect(disabled(input(html, field)), field).toBe(false);
    expect(html).not.toContain(HINT);
  });
});
