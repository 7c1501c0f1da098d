import { matchesField, minLength, PASSWORD_MIN_LENGTH, required } from '@atrium/contract';
import { Alert, Box, Button, Stack } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, type ReactNode, useState } from 'react';
import { fieldError } from './fieldError';
import { PasswordField } from './PasswordField';

/** A new password typed twice, with the generator; calls `onSubmit` with it once valid. */
export function NewPasswordForm({
  submitLabel,
  busy,
  error,
  onSubmit,
  children,
}: {
  submitLabel: string;
  busy: boolean;
  error: string | null;
  onSubmit: (password: string) => void;
  children?: ReactNode;
}) {
  const translate = useTranslate();
  const [values, setValues] = useState({ password: '', confirm: '' });
  const [touched, setTouched] = useState(false);
  const errors = {
    password: fieldError(translate, values.password, [required, minLength(PASSWORD_MIN_LENGTH)]),
    confirm: fieldError(translate, values.confirm, [required, matchesField('password')], values),
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (errors.password || errors.confirm) return;
    onSubmit(values.password);
  };
  return (
    <Box component="form" onSubmit={submit} noValidate>
      <Stack spacing={2}>
        {children}
        {error ? <Alert severity="error">{error}</Alert> : null}
        <PasswordField
          id="new-password"
          label={translate('registration.password')}
          autoComplete="new-password"
          value={values.password}
          onChange={(e) => setValues((v) => ({ ...v, password: e.target.value }))}
          onGenerate={(p) => setValues({ password: p, confirm: p })}
          error={touched && !!errors.password}
          helperText={touched ? errors.password : undefined}
          fullWidth
        />
        <PasswordField
          id="confirm-password"
          label={translate('registration.confirm_password')}
          autoComplete="new-password"
          value={values.confirm}
          onChange={(e) => setValues((v) => ({ ...v, confirm: e.target.value }))}
          error={touched && !!errors.confirm}
          helperText={touched ? errors.confirm : undefined}
          fullWidth
        />
        <Button type="submit" variant="contained" disabled={busy}>
          {submitLabel}
        </Button>
      </Stack>
    </Box>
  );
}
