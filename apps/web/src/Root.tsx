import { CssBaseline } from '@mui/material';
import { createTheme, ThemeProvider } from '@mui/material/styles';
import { I18nContext, StoreContextProvider, useStore } from 'ra-core';
import { type ReactNode, Suspense, useEffect, useMemo } from 'react';
import { createBrowserRouter, Navigate, Outlet, Route, RouterProvider, Routes, useLocation } from 'react-router-dom';
import { lazyNamed } from './app/lazy';
import { i18nProvider, LocaleScope, useAppLocale, useDocumentLanguage } from './app/locale';
import { raStore } from './app/ra-store';
import { loginWithRedirect, safeRedirect } from './app/redirect';
import { sessionStore } from './app/session';
import { darkTheme, lightTheme, localisedTheme, useMuiLocalePack } from './app/theme';
import { useSession } from './app/useSession';
import { ChunkErrorBoundary } from './layout/ChunkErrorBoundary';
import { PageLoader } from './layout/PageLoader';
import { isGuestKeyPath } from './resources/guest-access/guestKeyPath';

// Every page is its own chunk; the console (react-admin and all signed-in pages) is one more,
// so the sign-in pages never load it (ARCHITECTURE §9).
const App = lazyNamed(() => import('./App'), 'App');
const LoginPage = lazyNamed(() => import('./pages/LoginPage'), 'LoginPage');
const ChooseProjectPage = lazyNamed(() => import('./pages/ChooseProjectPage'), 'ChooseProjectPage');
const RegistrationPage = lazyNamed(() => import('./pages/RegistrationPage'), 'RegistrationPage');
const RegistrationConfirmPage = lazyNamed(() => import('./pages/RegistrationConfirmPage'), 'RegistrationConfirmPage');
const SelfRegistrationPage = lazyNamed(() => import('./pages/SelfRegistrationPage'), 'SelfRegistrationPage');
const PasswordRecoveryPage = lazyNamed(() => import('./pages/PasswordRecoveryPage'), 'PasswordRecoveryPage');
const PasswordResetPage = lazyNamed(() => import('./pages/PasswordResetPage'), 'PasswordResetPage');
const TermsPage = lazyNamed(() => import('./pages/TermsPage'), 'TermsPage');
const GuestKeyPage = lazyNamed(() => import('./resources/guest-access/GuestKeyPage'), 'GuestKeyPage');
// announces (issue 13): a recipient reads the announce and answers the poll from their mail's link
const AnnouncePage = lazyNamed(() => import('./resources/announces/AnnouncePage'), 'AnnouncePage');

/** Flag A: signed-out users go to sign in, with the wanted path to come back to. */
function SignedIn({ children }: { children: ReactNode }) {
  const { session, endReason } = useSession();
  const location = useLocation();
  if (session) return children;
  const wanted = `${location.pathname}${location.search}`;
  return <Navigate to={endReason === 'logout' ? '/login' : loginWithRedirect(wanted)} replace />;
}

/** Flag O: signed-in users go to the redirect of the sign-in, or home. */
function SignedOut() {
  const { session } = useSession();
  const location = useLocation();
  if (session) return <Navigate to={safeRedirect(location.search) ?? '/home'} replace />;
  return (
    <LocaleScope>
      <Outlet />
    </LocaleScope>
  );
}

/** Flag P: anyone. */
function Public() {
  return (
    <LocaleScope>
      <Outlet />
    </LocaleScope>
  );
}

/**
 * The console, or the guest's public page (Flag P): `/guest-access/<key>` shares its prefix with
 * the console's `/guest-access/add` and `/guest-access/<id>/edit`, and route patterns cannot tell
 * a key (16–64 url-safe characters) from those, so the path's shape decides.
 */
function ConsoleOrGuestKey() {
  const { pathname } = useLocation();
  if (isGuestKeyPath(pathname))
    return (
      <LocaleScope>
        <Routes>
          <Route path="/guest-access/:keyId" element={<GuestKeyPage />} />
        </Routes>
      </LocaleScope>
    );
  return (
    <SignedIn>
      <App />
    </SignedIn>
  );
}

function RootRedirect() {
  const { session } = useSession();
  return <Navigate to={session ? '/home' : '/login'} replace />;
}

function Themed({ children }: { children: ReactNode }) {
  const [mode] = useStore<'light' | 'dark'>('theme', 'light');
  const locale = useAppLocale();
  const pack = useMuiLocalePack(locale);
  // Read at each render: the language switches (and MUI's pack arrives) after the locale is chosen.
  const loading = i18nProvider.translate('app.loading');
  const theme = useMemo(() => createTheme(localisedTheme(mode === 'dark' ? darkTheme : lightTheme, pack, loading)), [mode, pack, loading]);
  useDocumentLanguage();
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {children}
    </ThemeProvider>
  );
}

/** Every page of the console, as descendant routes of the one data route (see `router`). */
function Pages() {
  return (
    <ChunkErrorBoundary>
      <Suspense fallback={<PageLoader />}>
        <Routes>
          <Route path="/" element={<RootRedirect />} />
          <Route element={<SignedOut />}>
            <Route path="/login" element={<LoginPage />} />
            <Route path="/registration/:token?" element={<RegistrationPage />} />
            <Route path="/self-registration/:token?" element={<SelfRegistrationPage />} />
            <Route path="/password/recovery" element={<PasswordRecoveryPage />} />
            <Route path="/password/reset/:token" element={<PasswordResetPage />} />
          </Route>
          <Route element={<Public />}>
            <Route path="/choose-project" element={<ChooseProjectPage />} />
            <Route path="/registration/confirm/:token" element={<RegistrationConfirmPage />} />
            <Route path="/terms-and-conditions" element={<TermsPage />} />
            <Route path="/announce/:token" element={<AnnouncePage />} />
          </Route>
          <Route path="/*" element={<ConsoleOrGuestKey />} />
        </Routes>
      </Suspense>
    </ChunkErrorBoundary>
  );
}

/**
 * A data router (not BrowserRouter): react-admin can then warn before a form with unsaved changes
 * is left (its warnWhenUnsavedChanges needs navigation blocking, which only data routers offer).
 */
const router = createBrowserRouter([{ path: '*', element: <Pages /> }]);

export function Root() {
  useEffect(() => {
    // Another tab signing in or out changes what this one may show.
    const onStorage = () => sessionStore.reload();
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  return (
    <StoreContextProvider value={raStore}>
      <I18nContext.Provider value={i18nProvider}>
        <Themed>
          <RouterProvider router={router} />
        </Themed>
      </I18nContext.Provider>
    </StoreContextProvider>
  );
}
