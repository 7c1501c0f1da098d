import { MutationCache, QueryClient } from '@tanstack/react-query';
import { type ComponentType, lazy, useMemo, useState } from 'react';
import { Admin, CustomRoutes, Resource } from 'react-admin';
import { Route } from 'react-router-dom';
import { AREAS, type AreaDefinition, type AreaModule } from './app/areas';
import { createAuthProvider } from './app/authProvider';
import { createDataProvider } from './app/dataProvider';
import { errorText, formErrors } from './app/errors';
import { ApiError, http } from './app/http';
import { lazyNamed } from './app/lazy';
import { i18nProvider, reloadMessages, useAppLocale } from './app/locale';
import { trackLoad } from './app/pending-loads';
import './i18n/areas';
import { raStore } from './app/ra-store';
import { darkTheme, lightTheme, localisedTheme, useMuiLocalePack } from './app/theme';
import { AppLayout, AppNotification } from './layout/AppLayout';

// The areas' texts came with this chunk (i18n/areas): the provider takes them in before the console renders.
void reloadMessages();

const HomePage = lazyNamed(() => import('./pages/HomePage'), 'HomePage');
const ProfilePage = lazyNamed(() => import('./pages/ProfilePage'), 'ProfilePage');
const NotificationsPage = lazyNamed(() => import('./pages/NotificationsPage'), 'NotificationsPage');
const NotificationSettingsPage = lazyNamed(() => import('./pages/NotificationSettingsPage'), 'NotificationSettingsPage');
const NotFoundPage = lazyNamed(() => import('./pages/NotFoundPage'), 'NotFoundPage');
const ExplainPage = lazyNamed(() => import('./resources/access-events/ExplainPage'), 'ExplainPage');
const RemoteControlPage = lazyNamed(() => import('./resources/devices/RemoteControlPage'), 'RemoteControlPage');
const DeviceSearchPage = lazyNamed(() => import('./resources/devices/DeviceSearchPage'), 'DeviceSearchPage');
// conversations (issue 13): one conversation, at the spec's /conversation/:id
const ConversationPage = lazyNamed(() => import('./resources/conversations/ConversationPage'), 'ConversationPage');
// announces (issue 13): the spec's /announces/:id/edit leads to the edit page at /announces/:id
const AnnounceEditRedirect = lazyNamed(() => import('./resources/announces/AnnounceEditRedirect'), 'AnnounceEditRedirect');
// integrations (issue 14): the spec's /integration/add and /integration/:id/edit open the form over the list
const IntegrationRoute = lazyNamed(() => import('./resources/integrations/IntegrationsPage'), 'IntegrationRoute');

const part = (area: AreaDefinition, name: keyof AreaModule): ComponentType | undefined =>
  area.parts.includes(name)
    ? lazy(async () => {
        const component = (await trackLoad(area.load())).default[name];
        if (!component) throw new Error(`${area.name} has no ${name}`);
        return { default: component };
      })
    : undefined;

const translateText = i18nProvider.translate as (key: string, options?: Record<string, unknown>) => string;
const dataProvider = createDataProvider(http, {
  describeError: (error) => errorText(error, translateText),
  fieldErrors: (error) => formErrors(error, translateText),
});

/** Retries network trouble, never a client error. */
const retry = (count: number, error: unknown) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2;

/** The signed-in console: react-admin with our layout, the shell's pages and every built area. */
export function App() {
  const [queryClient] = useState(() => {
    // Answers are fresh for 10 s, but a change makes every cached answer stale: a list read before a
    // create or an edit would otherwise come back without it (react-admin marks what it patched as
    // fresh). Nothing is fetched now (the page on screen follows react-admin's own update, and a
    // deleted record must not be asked for again): what is stale is fetched when next shown.
    const client: QueryClient = new QueryClient({
      defaultOptions: { queries: { retry, refetchOnWindowFocus: false, staleTime: 10_000 } },
      mutationCache: new MutationCache({ onSuccess: () => client.invalidateQueries({ refetchType: 'none' }) }),
    });
    return client;
  });
  const authProvider = useMemo(() => createAuthProvider(queryClient), [queryClient]);
  const resources = useMemo(
    () =>
      AREAS.map((area) => (
        <Resource
          key={area.name}
          name={area.name}
          icon={area.icon}
          list={part(area, 'list')}
          edit={part(area, 'edit')}
          create={part(area, 'create')}
          show={part(area, 'show')}
        />
      )),
    [],
  );
  const locale = useAppLocale();
  const pack = useMuiLocalePack(locale);
  // Read at each render, as in Root: the catalogue of a newly chosen language arrives after the locale.
  const loading = i18nProvider.translate('app.loading');
  const light = useMemo(() => localisedTheme(lightTheme, pack, loading), [pack, loading]);
  const dark = useMemo(() => localisedTheme(darkTheme, pack, loading), [pack, loading]);
  return (
    <Admin
      disableTelemetry
      title="Atrium"
      dataProvider={dataProvider}
      authProvider={authProvider}
      i18nProvider={i18nProvider}
      store={raStore}
      queryClient={queryClient}
      theme={light}
      darkTheme={dark}
      layout={AppLayout}
      loginPage={false}
      catchAll={NotFoundPage}
      notification={AppNotification}
    >
      <CustomRoutes>
        <Route path="/home" element={<HomePage />} />
        <Route path="/profile" element={<ProfilePage />} />
        <Route path="/notifications" element={<NotificationsPage />} />
        <Route path="/notifications/settings" element={<NotificationSettingsPage />} />
        <Route path="/access-control/explain" element={<ExplainPage />} />
        {/* The spec's IP search page; a static path, so it is not taken for a device id. */}
        <Route path="/devices/search" element={<DeviceSearchPage />} />
        <Route path="/conversation/:id" element={<ConversationPage />} />
        <Route path="/announces/:id/edit" element={<AnnounceEditRedirect />} />
        <Route path="/integration/add" element={<IntegrationRoute />} />
        <Route path="/integration/:id/edit" element={<IntegrationRoute />} />
      </CustomRoutes>
      <CustomRoutes noLayout>
        {/* Full page, outside the layout; the device in the query string (spec entities §1). */}
        <Route path="/devices/remote-control" element={<RemoteControlPage />} />
      </CustomRoutes>
      {resources}
    </Admin>
  );
}
