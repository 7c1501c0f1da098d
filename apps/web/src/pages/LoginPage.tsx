import { Alert, Box, Button, Checkbox, FormControlLabel, Stack, TextField } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, lazy, Suspense, useCallback, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { type SignInResult, signIn } from '../app/auth';
import { errorText } from '../app/errors';
import { ApiError } from '../app/http';
import { PasswordField } from './PasswordField';
import { PageLink, PublicPage } from './PublicPage';
import { SsoButtons, useSsoReturn } from './SsoSignIn';
import { usePublicSettings } from './usePublicSettings';

// Loaded only when a password was right and a code is asked for: the sign-in page itself stays light.
const TwoFactorStep = lazy(() => import('./TwoFactorStep').then((m) => ({ default: m.TwoFactorStep })));

export function LoginPage() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const location = useLocation();
  const settings = usePublicSettings();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // two-factor sign-in (issue 14): the password was right, a code is wanted.
  const [codeStep, setCodeStep] = useState<Extract<SignInResult, { kind: 'two-factor' }> | null>(null);

  // Signed in: the route guard leaves this page for the redirect or home.
  const afterSignIn = useCallback(
    (result: SignInResult) => {
      if (result.kind === 'choose-project') navigate(`/choose-project${window.location.search}`);
      if (result.kind === 'two-factor') {
        setCodeStep(result);
        setBusy(false);
      }
    },
    [navigate],
  );
  // single sign-on (issue 14): back from the provider with a ticket or an error.
  useSsoReturn(afterSignIn, setError);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!login.trim() || !password) {
      setError(translate('auth.incorrect_credentials'));
      return;
    }
    setBusy(true);
    try {
      afterSignIn(await signIn(login.trim(), password, remember));
    } catch (err) {
      console.error(err);
      const wrong = err instanceof ApiError && (err.status === 401 || err.code === 'invalid_credentials');
      setError(wrong ? translate('auth.incorrect_credentials') : errorText(err, translate));
      setBusy(false);
    }
  };

  if (codeStep) {
    return (
      <Suspense fallback={null}>
        <TwoFactorStep
          challenges={codeStep.challenges}
          remember={codeStep.remember}
          onBack={() => {
            setCodeStep(null);
            setPassword('');
          }}
        />
      </Suspense>
    );
  }

  return (
    <PublicPage
      title={translate('auth.title')}
      footer={<PageLink to="/terms-and-conditions">{translate('registration.terms_link')}</PageLink>}
    >
      <Box component="form" onSubmit={submit} noValidate aria-label={translate('auth.title')}>
        <Stack spacing={2} sx={{ mt: 1 }}>
          {error ? (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          ) : null}
          <TextField
            id="login"
            name="login"
            label={translate('auth.login')}
            autoComplete="username"
            autoFocus
            value={login}
            onChange={(e) => setLogin(e.target.value)}
            fullWidth
          />
          <PasswordField
            id="password"
            name="password"
            label={translate('auth.password')}
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            fullWidth
          />
          <FormControlLabel
            control={<Checkbox checked={remember} onChange={(e) => setRemember(e.target.checked)} name="remember" />}
            label={translate('auth.remember_me')}
          />
          <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
            {translate('auth.sign_in')}
          </Button>
          <SsoButtons search={location.search} />
          {/* Its line is kept while the server's settings say which links to show: the card does not grow under the pointer. */}
          <Stack direction="row" sx={{ justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, minHeight: '1.5rem' }}>
            {settings?.can_user_recovery_password ? (
              <PageLink to="/password/recovery">{translate('auth.forgot_password')}</PageLink>
            ) : (
              <span />
            )}
            {settings?.can_user_register_himself ? <PageLink to="/self-registration">{translate('auth.register')}</PageLink> : null}
          </Stack>
        </Stack>
      </Box>
    </PublicPage>
  );
}
