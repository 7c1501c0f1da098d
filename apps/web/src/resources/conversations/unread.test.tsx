import ChatIcon from '@mui/icons-material/Chat';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { CONVERSATIONS_UNREAD_KEY, ConversationsMenuIcon } from './unread';

/** The badge's own element (the stylesheet names the class too). */
const BADGE = /class="[^"]*MuiBadge-badge/;

const render = (unread: { conversations: number; messages: number }, locale: 'en' | 'ru' = 'en') => {
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY } } });
  queryClient.setQueryData(CONVERSATIONS_UNREAD_KEY, { data: unread });
  return renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <QueryClientProvider client={queryClient}>
          <ConversationsMenuIcon Icon={ChatIcon} />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );
};

describe('the Conversations menu badge', () => {
  it('shows how many conversations have unread messages, told in words in both languages', () => {
    const en = render({ conversations: 3, messages: 7 });
    expect(en).toContain('>3<');
    expect(en).toContain('title="3 conversations with unread messages"');
    expect(en).toMatch(BADGE);
    const ru = render({ conversations: 2, messages: 2 }, 'ru');
    expect(ru).toContain('title="2 разговора с непрочитанными сообщениями"');
    expect(render({ conversations: 150, messages: 900 })).toContain('>99+<');
  });

  it('shows nothing when every conversation is read', () => {
    // No badge at all: a hidden one would still put its "0" into the menu entry's text.
    const html = render({ conversations: 0, messages: 0 });
    expect(html).not.toMatch(BADGE);
    expect(html).not.toContain('>0<');
    expect(html).not.toContain('title=');
  });
});
