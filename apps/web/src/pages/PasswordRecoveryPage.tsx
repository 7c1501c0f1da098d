import { email, required } from '@atrium/contract';
import { Alert, Box, Button, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, useState } from 'react';
import { http } from '../app/http';
import { fieldError } from './fieldError';
import { PageLink, PublicPage } from './PublicPage';
import { useSubmit } from './useSubmit';

export function PasswordRecoveryPage() {
  const translate = useTranslate();
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useSubmit();
  const invalid = fieldError(translate, value, [required, email]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (invalid) return;
    void run(async () => {
      await http.request('/password/recovery', { method: 'POST', body: { email: value.trim() }, auth: false });
      setSent(true);
    });
  };

  return (
    <PublicPage title={translate('recovery.title')} footer={<PageLink to="/login">{translate('auth.to_login')}</PageLink>}>
      {sent ? (
        <Alert severity="success">{translate('recovery.sent')}</Alert>
      ) : (
        <Box component="form" onSubmit={submit} noValidate>
          <Stack spacing={2}>
            <Typography color="text.secondary">{translate('recovery.hint')}</Typography>
            {error ? <Alert severity="error">{error}</Alert> : null}
            <TextField
              id="email"
              label={translate('recovery.email')}
              type="email"
              autoComplete="email"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              onBlur={() => setTouched(true)}
              error={touched && !!invalid}
              helperText={touched ? invalid : undefined}
              fullWidth
              autoFocus
            />
            <Button type="submit" variant="contained" disabled={busy}>
              {translate('recovery.submit')}
            </Button>
          </Stack>
        </Box>
      )}
    </PublicPage>
  );
}
