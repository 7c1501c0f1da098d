import { ERRORS } from '@atrium/contract';
import { Alert, CircularProgress, Stack } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { http } from '../app/http';
import { linkError } from './linkError';
import { PageLink, PublicPage } from './PublicPage';

/** The link of a registration e-mail: confirms the account (POST /registration/confirm). */
export function RegistrationConfirmPage() {
  const translate = useTranslate();
  const { token = '' } = useParams();
  const [state, setState] = useState<{ status: 'pending' | 'done' | 'failed'; error?: string }>({ status: 'pending' });
  useEffect(() => {
    let live = true;
    http
      .request('/registration/confirm', { method: 'POST', body: { token }, auth: false })
      .then(() => live && setState({ status: 'done' }))
      .catch(
        (err) =>
          live && setState({ status: 'failed', error: linkError(err, 'token', ERRORS.verification_link_outdated.message, translate) }),
      );
    return () => {
      live = false;
    };
  }, [token, translate]);
  return (
    <PublicPage title={translate('registration.confirm_title')} footer={<PageLink to="/login">{translate('auth.to_login')}</PageLink>}>
      {state.status === 'pending' ? (
        <Stack sx={{ py: 3, alignItems: 'center' }}>
          <CircularProgress aria-label={translate('app.loading')} />
        </Stack>
      ) : state.status === 'done' ? (
        <Alert severity="success">{translate('registration.confirm_done')}</Alert>
      ) : (
        <Alert severity="error">{state.error}</Alert>
      )}
    </PublicPage>
  );
}
