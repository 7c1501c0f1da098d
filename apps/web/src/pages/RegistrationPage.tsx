import { ERRORS, maxLength, required } from '@atrium/contract';
import { Alert, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type ReactNode, useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { http } from '../app/http';
import { fieldError } from './fieldError';
import { linkError } from './linkError';
import { NewPasswordForm } from './NewPasswordForm';
import { PageLink, PublicPage } from './PublicPage';
import { useSubmit } from './useSubmit';

interface Invite {
  login?: string;
  email?: string | null;
  name?: string;
}

/**
 * /registration/:token — an invited user sets a password (GET then POST /registration/token);
 * /registration — simple registration with name, login and password (POST /registration/simple).
 */
export function RegistrationPage() {
  const translate = useTranslate();
  const { token } = useParams();
  const [invite, setInvite] = useState<Invite | null | false>(null);
  const [inviteError, setInviteError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [who, setWho] = useState({ name: '', login: '' });
  const [touched, setTouched] = useState(false);
  const { busy, error, run } = useSubmit();

  useEffect(() => {
    if (!token) return;
    let live = true;
    http
      .data<Invite>(`/registration/token/${encodeURIComponent(token)}`, { auth: false })
      .then((i) => live && setInvite(i ?? {}))
      .catch((err) => {
        if (!live) return;
        setInvite(false);
        setInviteError(linkError(err, 'token', ERRORS.invite_invalid.message, translate));
      });
    return () => {
      live = false;
    };
  }, [token, translate]);

  const whoErrors = {
    name: fieldError(translate, who.name, [required, maxLength(255)]),
    login: fieldError(translate, who.login, [required, maxLength(255)]),
  };

  let body: ReactNode;
  if (done) {
    body = (
      <Alert severity="success">
        {translate('registration.done')} <PageLink to="/login">{translate('auth.sign_in')}</PageLink>
      </Alert>
    );
  } else if (token && invite === null) {
    body = (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <CircularProgress size={24} />
        <Typography>{translate('registration.checking')}</Typography>
      </Stack>
    );
  } else if (token && invite === false) {
    body = <Alert severity="error">{inviteError}</Alert>;
  } else if (token && invite) {
    body = (
      <NewPasswordForm
        submitLabel={translate('registration.submit')}
        busy={busy}
        error={error}
        onSubmit={(password) =>
          void run(async () => {
            await http.request('/registration/token', { method: 'POST', body: { token, password }, auth: false });
            setDone(true);
          })
        }
      >
        <Typography color="text.secondary">
          {translate('registration.invite_hint', { login: invite.login ?? invite.email ?? invite.name ?? '' })}
        </Typography>
      </NewPasswordForm>
    );
  } else {
    body = (
      <NewPasswordForm
        submitLabel={translate('registration.submit')}
        busy={busy}
        error={error}
        onSubmit={(password) => {
          setTouched(true);
          if (whoErrors.name || whoErrors.login) return;
          void run(async () => {
            await http.request('/registration/simple', {
              method: 'POST',
              body: { name: who.name.trim(), login: who.login.trim(), password },
              auth: false,
            });
            setDone(true);
          });
        }}
      >
        <TextField
          id="name"
          label={translate('registration.name')}
          value={who.name}
          onChange={(e) => setWho((w) => ({ ...w, name: e.target.value }))}
          error={touched && !!whoErrors.name}
          helperText={touched ? whoErrors.name : undefined}
          autoComplete="name"
          fullWidth
        />
        <TextField
          id="login"
          label={translate('registration.login')}
          value={who.login}
          onChange={(e) => setWho((w) => ({ ...w, login: e.target.value }))}
          error={touched && !!whoErrors.login}
          helperText={touched ? whoErrors.login : undefined}
          autoComplete="username"
          fullWidth
        />
      </NewPasswordForm>
    );
  }

  return (
    <PublicPage
      title={translate(token ? 'registration.invite_title' : 'registration.title')}
      footer={<PageLink to="/login">{translate('auth.to_login')}</PageLink>}
    >
      {body}
    </PublicPage>
  );
}
