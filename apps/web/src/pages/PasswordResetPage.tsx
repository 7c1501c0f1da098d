import { ERRORS } from '@atrium/contract';
import { Alert } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useState } from 'react';
import { useParams } from 'react-router-dom';
import { ApiError, http } from '../app/http';
import { malformedLink } from './linkError';
import { NewPasswordForm } from './NewPasswordForm';
import { PageLink, PublicPage } from './PublicPage';
import { useSubmit } from './useSubmit';

export function PasswordResetPage() {
  const translate = useTranslate();
  const { token = '' } = useParams();
  const [done, setDone] = useState(false);
  const { busy, error, run } = useSubmit();
  return (
    <PublicPage title={translate('recovery.reset_title')} footer={<PageLink to="/login">{translate('auth.to_login')}</PageLink>}>
      {done ? (
        <Alert severity="success">
          {translate('recovery.reset_done')} <PageLink to="/login">{translate('auth.sign_in')}</PageLink>
        </Alert>
      ) : (
        <NewPasswordForm
          submitLabel={translate('recovery.reset_submit')}
          busy={busy}
          error={error}
          onSubmit={(password) =>
            void run(async () => {
              try {
                await http.request('/password/reset', { method: 'POST', body: { code: token, password }, auth: false });
              } catch (error) {
                throw malformedLink(error, 'code') ? new ApiError(400, ERRORS.verification_link_outdated.message) : error;
              }
              setDone(true);
            })
          }
        />
      )}
    </PublicPage>
  );
}
