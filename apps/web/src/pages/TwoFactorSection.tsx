import type { TwoFactorEnrolment, TwoFactorRecoveryCodes, TwoFactorStatus } from '@atrium/contract';
import SecurityIcon from '@mui/icons-material/Security';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslate } from 'react-admin';
import { errorText } from '../app/errors';
import { http } from '../app/http';
import { useAlert } from '../app/useAlert';
import { EnrolmentKey } from './EnrolmentKey';
import { PasswordField } from './PasswordField';

const STATUS_KEY = ['profile', 'two-factor'];

/** The profile's security section (issue 14): two-factor sign-in with TOTP, on and off, and recovery codes. */
export function TwoFactorSection() {
  const translate = useTranslate();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: () => http.data<TwoFactorStatus>('/profile/two-factor') });
  const [dialog, setDialog] = useState<'enrol' | 'disable' | 'codes' | null>(null);
  const s = status.data;
  return (
    <Box sx={{ px: 2, py: 1.5 }} data-testid="two-factor-section">
      <Typography variant="subtitle1" component="h2" gutterBottom>
        {translate('two_factor.title')}
      </Typography>
      {s ? (
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
          <Typography variant="body2" sx={{ flex: 1 }}>
            {s.enabled ? translate('two_factor.status_on', { count: s.recovery_codes_left }) : translate('two_factor.status_off')}
          </Typography>
          {s.enabled ? (
            <>
              <Button onClick={() => setDialog('codes')}>{translate('two_factor.new_codes')}</Button>
              <Button color="error" onClick={() => setDialog('disable')}>
                {translate('two_factor.turn_off')}
              </Button>
            </>
          ) : (
            <Button variant="outlined" startIcon={<SecurityIcon />} onClick={() => setDialog('enrol')}>
              {translate('two_factor.turn_on')}
            </Button>
          )}
        </Stack>
      ) : null}
      {dialog === 'enrol' ? <EnrolDialog onClose={() => setDialog(null)} /> : null}
      {dialog === 'disable' || dialog === 'codes' ? <ConfirmDialog kind={dialog} onClose={() => setDialog(null)} /> : null}
    </Box>
  );
}

/** Password, then the QR code and key, then the first code; the recovery codes are shown once at the end. */
function EnrolDialog({ onClose }: { onClose: () => void }) {
  const translate = useTranslate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (e: FormEvent, step: () => Promise<void>) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await step();
    } catch (err) {
      setError(errorText(err, translate));
    } finally {
      setBusy(false);
    }
  };
  const start = (e: FormEvent) =>
    run(e, async () => {
      setEnrolment(await http.data<TwoFactorEnrolment>('/profile/two-factor/enrol', { method: 'POST', body: { password } }));
    });
  const confirm = (e: FormEvent) =>
    run(e, async () => {
      const done = await http.data<TwoFactorRecoveryCodes>('/profile/two-factor/confirm', { method: 'POST', body: { code: code.trim() } });
      setCodes(done.recovery_codes);
      await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
    });

  return (
    <Dialog open onClose={busy || codes ? undefined : onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{translate('two_factor.turn_on')}</DialogTitle>
      {codes ? (
        <RecoveryCodes codes={codes} onClose={onClose} />
      ) : enrolment ? (
        <Box component="form" onSubmit={confirm} noValidate>
          <DialogContent>
            <Stack spacing={2} sx={{ alignItems: 'center' }}>
              <EnrolmentKey enrolment={enrolment} />
              {error ? (
                <Alert severity="error" role="alert" sx={{ width: '100%' }}>
                  {error}
                </Alert>
              ) : null}
              <TextField
                id="two-factor-confirm-code"
                label={translate('two_factor.code')}
                autoComplete="one-time-code"
                autoFocus
                value={code}
                onChange={(e) => setCode(e.target.value)}
                slotProps={{ htmlInput: { maxLength: 32, inputMode: 'numeric' } }}
                fullWidth
              />
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose} disabled={busy}>
              {translate('ra.action.cancel')}
            </Button>
            <Button type="submit" variant="contained" disabled={busy || !code.trim()}>
              {translate('two_factor.verify')}
            </Button>
          </DialogActions>
        </Box>
      ) : (
        <Box component="form" onSubmit={start} noValidate>
          <DialogContent>
            <Stack spacing={2}>
              <Typography variant="body2">{translate('two_factor.enrol_hint')}</Typography>
              {error ? (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              ) : null}
              <PasswordField
                id="two-factor-password"
                label={translate('profile.old_password')}
                autoComplete="current-password"
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                fullWidth
              />
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose} disabled={busy}>
              {translate('ra.action.cancel')}
            </Button>
            <Button type="submit" variant="contained" disabled={busy || !password}>
              {translate('two_factor.next')}
            </Button>
          </DialogActions>
        </Box>
      )}
    </Dialog>
  );
}

/** Turning it off, or new recovery codes: the password and a current code. */
function ConfirmDialog({ kind, onClose }: { kind: 'disable' | 'codes'; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const body = { password, code: code.trim() };
      if (kind === 'disable') {
        await http.request('/profile/two-factor/disable', { method: 'POST', body });
        alert.done();
        onClose();
      } else {
        setCodes((await http.data<TwoFactorRecoveryCodes>('/profile/two-factor/recovery-codes', { method: 'POST', body })).recovery_codes);
      }
      await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
    } catch (err) {
      setError(errorText(err, translate));
    } finally {
      setBusy(false);
    }
  };
  const title = translate(kind === 'disable' ? 'two_factor.turn_off' : 'two_factor.new_codes');
  return (
    <Dialog open onClose={busy || codes ? undefined : onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{title}</DialogTitle>
      {codes ? (
        <RecoveryCodes codes={codes} onClose={onClose} />
      ) : (
        <Box component="form" onSubmit={submit} noValidate>
          <DialogContent>
            <Stack spacing={2}>
              <Typography variant="body2">{translate('two_factor.confirm_hint')}</Typography>
              {error ? (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              ) : null}
              <PasswordField
                id="two-factor-off-password"
                label={translate('profile.old_password')}
                autoComplete="current-password"
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                fullWidth
              />
              <TextField
                id="two-factor-off-code"
                label={translate('two_factor.code')}
                helperText={translate('two_factor.code_help')}
                autoComplete="one-time-code"
                value={code}
                onChange={(e) => setCode(e.target.value)}
                slotProps={{ htmlInput: { maxLength: 32 } }}
                fullWidth
              />
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose} disabled={busy}>
              {translate('ra.action.cancel')}
            </Button>
            <Button
              type="submit"
              variant="contained"
              color={kind === 'disable' ? 'error' : 'primary'}
              disabled={busy || !password || !code.trim()}
            >
              {title}
            </Button>
          </DialogActions>
        </Box>
      )}
    </Dialog>
  );
}

/** The recovery codes, shown this once. */
function RecoveryCodes({ codes, onClose }: { codes: string[]; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  return (
    <>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {translate('two_factor.codes_hint')}
        </Alert>
        <Box
          component="ul"
          data-testid="two-factor-recovery-codes"
          sx={{ columns: 2, fontFamily: 'monospace', fontSize: 16, listStyle: 'none', p: 0, m: 0, '& li': { py: 0.5 } }}
        >
          {codes.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button
          onClick={() => {
            void navigator.clipboard
              ?.writeText(codes.join('\n'))
              .then(() => alert.success('two_factor.copied'))
              .catch(() => undefined);
          }}
        >
          {translate('two_factor.copy')}
        </Button>
        <Button variant="contained" onClick={onClose}>
          {translate('two_factor.saved_codes')}
        </Button>
      </DialogActions>
    </>
  );
}
