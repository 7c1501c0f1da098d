import { Alert, Box, Button, Checkbox, FormControlLabel, Stack, TextField } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { signIn } from '../app/auth';
import { errorText } from '../app/errors';
import { ApiError } from '../app/http';
import { PasswordField } from './PasswordField';
import { PageLink, PublicPage } from './PublicPage';
import { usePublicSettings } from './usePublicSettings';

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

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!login.trim() || !password) {
      setError(translate('auth.incorrect_credentials'));
      return;
    }
    setBusy(true);
    try {
      const result = await signIn(login.trim(), password, remember);
      // Signed in: the route guard leaves this page for the redirect or home.
      if (result.kind === 'choose-project') navigate(`/choose-project${location.search}`);
    } catch (err) {
      console.error(err);
      const wrong = err instanceof ApiError && (err.status === 401 || err.code === 'invalid_credentials');
      setError(wrong ? translate('auth.incorrect_credentials') : errorText(err, translate));
      setBusy(false);
    }
  };

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
          <Stack direction="row" sx={{ justifyContent: 'space-between', flexWrap: 'wrap', gap: 1 }}>
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
