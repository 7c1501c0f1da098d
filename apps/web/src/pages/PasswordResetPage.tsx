import { Alert } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useState } from 'react';
import { useParams } from 'react-router-dom';
import { http } from '../app/http';
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
              await http.request('/password/reset', { method: 'POST', body: { code: token, password }, auth: false });
              setDone(true);
            })
          }
        />
      )}
    </PublicPage>
  );
}
