import { Alert, Box, Button, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, useState } from 'react';
import { signInWithCode, type TwoFactorPending } from '../app/auth';
import { errorText } from '../app/errors';
import { PublicPage } from './PublicPage';

/**
 * The second step of sign-in (issue 14): the password was right and the user has two-factor sign-in
 * on, so a code from the authenticator app (or a recovery code) opens the project.
 */
export function TwoFactorStep({ challenges, remember, onBack }: { challenges: TwoFactorPending[]; remember: boolean; onBack: () => void }) {
  const translate = useTranslate();
  const [projectId, setProjectId] = useState(challenges[0]?.project.id ?? 0);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const pending = challenges.find((c) => c.project.id === projectId);
    if (!pending || !code.trim()) {
      setError(translate('two_factor.code_required'));
      return;
    }
    setBusy(true);
    try {
      // Signed in: the route guard leaves this page for the redirect or home.
      await signInWithCode(pending.challenge, code.trim(), remember);
    } catch (err) {
      console.error(err);
      setError(errorText(err, translate));
      setBusy(false);
    }
  };

  return (
    <PublicPage title={translate('two_factor.step_title')}>
      <Box component="form" onSubmit={submit} noValidate aria-label={translate('two_factor.step_title')}>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            {translate('two_factor.step_hint')}
          </Typography>
          {error ? (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          ) : null}
          {challenges.length > 1 ? (
            <TextField
              select
              id="two-factor-project"
              label={translate('two_factor.project')}
              value={projectId}
              onChange={(e) => setProjectId(Number(e.target.value))}
              fullWidth
            >
              {challenges.map((c) => (
                <MenuItem key={c.project.id} value={c.project.id}>
                  {c.project.name}
                </MenuItem>
              ))}
            </TextField>
          ) : null}
          <TextField
            id="two-factor-code"
            name="code"
            label={translate('two_factor.code')}
            helperText={translate('two_factor.code_help')}
            autoComplete="one-time-code"
            autoFocus
            value={code}
            onChange={(e) => setCode(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 32, spellCheck: false } }}
            fullWidth
          />
          <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
            {translate('two_factor.verify')}
          </Button>
          <Button onClick={onBack} disabled={busy}>
            {translate('auth.to_login')}
          </Button>
        </Stack>
      </Box>
    </PublicPage>
  );
}
