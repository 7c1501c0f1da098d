import type { MobileClientInfo } from '@atrium/contract';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { beforeAll, describe, expect, it } from 'vitest';
import { createI18nProvider, registerAreaMessages } from '../../i18n';
import * as messages from './messages';
import { MobileClientList } from './UserDialogs';

// The mobile clients of a user on the user page (issue 14): read-only fields, removal only for whoever may act on the user.

const client: MobileClientInfo = {
  id: 7,
  mobile_client_id: 'install-7f3a',
  platform: 'android',
  info: 'Pixel 8, Android 15',
  auth_at: '2026-11-23T10:00:00.000Z',
  vendor_id: null,
  sip_number: '1001',
  ukey2: null,
};

const render = (node: React.ReactNode, locale: 'en' | 'ru' = 'en') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        {node}
      </AdminContext>
    </MemoryRouter>,
  );

beforeAll(() => registerAreaMessages([messages]));

describe('the mobile clients of a user', () => {
  it('lists each client’s fields, with a dash for what it did not report', () => {
    const html = render(<MobileClientList clients={[client]} />);
    for (const text of [
      'Client ID',
      'install-7f3a',
      'Platform',
      'Android',
      'Pixel 8, Android 15',
      'SIP number',
      '1001',
      'Vendor ID',
      '—',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain(new Date(client.auth_at).toLocaleString());
    expect(html).not.toContain('Remove the mobile client');
  });

  it('offers removal only when the user may be acted on', () => {
    const html = render(
      <MobileClientList
        clients={[client, { ...client, id: 8, mobile_client_id: 'install-8', platform: 'ios' }]}
        onRemove={() => undefined}
      />,
    );
    expect(html.match(/aria-label="Remove the mobile client"/g)).toHaveLength(2);
    expect(html).toContain('iOS');
  });

  it('says when there are none, in English and Russian', () => {
    expect(render(<MobileClientList clients={[]} />)).toContain('This user has no mobile clients.');
    const ru = render(<MobileClientList clients={[client]} onRemove={() => undefined} />, 'ru');
    expect(ru).toContain('ID клиента');
    expect(ru).toContain('Удалить мобильный клиент');
  });
});
