import { Alert, Box, Button, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, useState } from 'react';
import { signInWithCode, signInWithEnrolment, startSignInEnrolment, type TwoFactorPending } from '../app/auth';
import { errorText } from '../app/errors';
import { EnrolmentKey } from './EnrolmentKey';
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

  const selected = challenges.find((c) => c.project.id === projectId);
  if (selected?.enrolment_required) {
    return <TwoFactorEnrolStep key={selected.project.id} pending={selected} remember={remember} onBack={onBack} />;
  }

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

/**
 * The user's role requires two-factor sign-in and they have none yet (issue 14): the sign-in's
 * challenge sets it up (QR code and key, then the first code), the recovery codes are shown once,
 * and only then is the project entered.
 */
export function TwoFactorEnrolStep({ pending, remember, onBack }: { pending: TwoFactorPending; remember: boolean; onBack: () => void }) {
  const translate = useTranslate();
  const [enrolment, setEnrolment] = useState<{ secret: string; qr: string } | null>(null);
  const [done, setDone] = useState<{ recoveryCodes: string[]; enter: () => void } | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
    } catch (err) {
      console.error(err);
      setError(errorText(err, translate));
    } finally {
      setBusy(false);
    }
  };
  const start = () => run(async () => setEnrolment(await startSignInEnrolment(pending.challenge)));
  const confirm = (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) {
      setError(translate('two_factor.code_required'));
      return;
    }
    void run(async () => setDone(await signInWithEnrolment(pending.challenge, code.trim(), remember)));
  };

  return (
    <PublicPage title={translate('two_factor.step_title')}>
      <Stack spacing={2} sx={{ mt: 1 }} data-testid="two-factor-enrol-step">
        {error ? (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        ) : null}
        {done ? (
          <>
            <Alert severity="warning">{translate('two_factor.codes_hint')}</Alert>
            <Box
              component="ul"
              data-testid="two-factor-recovery-codes"
              sx={{ columns: 2, fontFamily: 'monospace', fontSize: 16, listStyle: 'none', p: 0, m: 0, '& li': { py: 0.5 } }}
            >
              {done.recoveryCodes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </Box>
            <Button variant="contained" size="large" onClick={done.enter} fullWidth>
              {translate('two_factor.saved_codes')}
            </Button>
          </>
        ) : enrolment ? (
          <Box component="form" onSubmit={confirm} noValidate>
            <Stack spacing={2} sx={{ alignItems: 'center' }}>
              <EnrolmentKey enrolment={enrolment} />
              <TextField
                id="two-factor-code"
                label={translate('two_factor.code')}
                autoComplete="one-time-code"
                autoFocus
                value={code}
                onChange={(e) => setCode(e.target.value)}
                slotProps={{ htmlInput: { maxLength: 32, inputMode: 'numeric' } }}
                fullWidth
              />
              <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
                {translate('two_factor.verify')}
              </Button>
            </Stack>
          </Box>
        ) : (
          <>
            <Typography variant="body2">{translate('two_factor.required_hint')}</Typography>
            <Button variant="contained" size="large" onClick={() => void start()} disabled={busy} fullWidth>
              {translate('two_factor.set_up')}
            </Button>
          </>
        )}
        {done ? null : (
          <Button onClick={onBack} disabled={busy}>
            {translate('auth.to_login')}
          </Button>
        )}
      </Stack>
    </PublicPage>
  );
}
