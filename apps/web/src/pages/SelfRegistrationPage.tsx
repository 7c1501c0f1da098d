import { type Country, email, internationalPhone, maxLength, minLength, nameLike, PASSWORD_MIN_LENGTH, required } from '@atrium/contract';
import { Alert, Box, Button, Checkbox, FormControlLabel, LinearProgress, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { http } from '../app/http';
import { getAppLocale, useAppLocale } from '../app/locale';
import { localizedCountries } from './countries';
import { fieldError } from './fieldError';
import { PasswordField } from './PasswordField';
import { PageLink, PublicPage } from './PublicPage';
import { usePublicSettings } from './usePublicSettings';
import { useSubmit } from './useSubmit';

const USER_TYPES = ['private', 'company'] as const;

/** Step 1: the fields of spec core §7, POST /registration/self; its answer names the pending registration. */
function RegistrationForm() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [countries, setCountries] = useState<Country[]>([]);
  const locale = useAppLocale();
  const [v, setV] = useState({
    user_name: '',
    user_country: '',
    user_email: '',
    user_type: 'private' as (typeof USER_TYPES)[number],
    user_phone: '',
    object_name: '',
    user_password: '',
  });
  const [terms, setTerms] = useState(false);
  const [touched, setTouched] = useState(false);
  const { busy, error, run } = useSubmit();

  useEffect(() => {
    http
      .data<Country[]>('/countries', { auth: false })
      .then((list) => setCountries(Array.isArray(list) ? list : []))
      .catch((err) => console.error(err));
  }, []);

  const errors: Partial<Record<keyof typeof v | 'terms', string>> = {
    user_name: fieldError(translate, v.user_name, [required, maxLength(255)]),
    user_country: fieldError(translate, v.user_country, [required]),
    user_email: fieldError(translate, v.user_email, [required, email]),
    user_phone: fieldError(translate, v.user_phone, [required, internationalPhone]),
    object_name: fieldError(translate, v.object_name, [required, nameLike]),
    user_password: fieldError(translate, v.user_password, [required, minLength(PASSWORD_MIN_LENGTH)]),
    terms: terms ? undefined : translate('validation.required'),
  };
  const field = (name: keyof typeof v) => ({
    id: name,
    name,
    value: v[name],
    onChange: (e: { target: { value: string } }) => setV((prev) => ({ ...prev, [name]: e.target.value })),
    error: touched && !!errors[name],
    helperText: touched ? errors[name] : undefined,
    fullWidth: true,
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (Object.values(errors).some(Boolean)) return;
    void run(async () => {
      const answer = await http.data<{ code?: string; token?: string } | null>('/registration/self', {
        method: 'POST',
        body: { ...v, user_phone: v.user_phone.replace(/[\s\-()]/g, ''), user_email: v.user_email.trim(), locale: getAppLocale() },
        auth: false,
      });
      const handle = answer?.code ?? answer?.token;
      navigate(handle ? `/self-registration/${encodeURIComponent(handle)}` : '/self-registration/pending', {
        state: { email: v.user_email.trim() },
      });
    });
  };

  return (
    <Box component="form" onSubmit={submit} noValidate>
      <Stack spacing={2}>
        {error ? <Alert severity="error">{error}</Alert> : null}
        <TextField label={translate('self_registration.user_name')} autoComplete="name" {...field('user_name')} />
        <TextField select label={translate('self_registration.user_country')} {...field('user_country')}>
          {localizedCountries(countries, locale).map((c) => (
            <MenuItem key={c.code} value={c.code}>
              {c.name}
            </MenuItem>
          ))}
        </TextField>
        <TextField label={translate('self_registration.user_email')} type="email" autoComplete="email" {...field('user_email')} />
        <TextField select label={translate('self_registration.user_type')} {...field('user_type')}>
          {USER_TYPES.map((t) => (
            <MenuItem key={t} value={t}>
              {translate(`self_registration.user_types.${t}`)}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          label={translate('self_registration.user_phone')}
          type="tel"
          autoComplete="tel"
          placeholder="+"
          {...field('user_phone')}
        />
        <TextField label={translate('self_registration.object_name')} {...field('object_name')} />
        <PasswordField
          label={translate('self_registration.user_password')}
          autoComplete="new-password"
          onGenerate={(p) => setV((prev) => ({ ...prev, user_password: p }))}
          {...field('user_password')}
        />
        <FormControlLabel
          control={<Checkbox checked={terms} onChange={(e) => setTerms(e.target.checked)} name="terms" />}
          label={translate('registration.agree_terms')}
        />
        {touched && errors.terms ? (
          <Typography color="error" variant="caption">
            {errors.terms}
          </Typography>
        ) : null}
        <PageLink to="/terms-and-conditions">{translate('registration.terms_link')}</PageLink>
        <Button type="submit" variant="contained" disabled={busy}>
          {translate('self_registration.submit')}
        </Button>
      </Stack>
    </Box>
  );
}

/** Step 2: the code from the e-mail (POST /email/confirm), with resend (POST /registration/self/resend/{code}). */
function CodeForm({ handle }: { handle: string }) {
  const translate = useTranslate();
  const pending = handle !== 'pending';
  const [address, setAddress] = useState<string>(() => (window.history.state?.usr?.email as string | undefined) ?? '');
  const [code, setCode] = useState('');
  const [done, setDone] = useState(false);
  const [resent, setResent] = useState(false);
  const { busy, error, run } = useSubmit();

  useEffect(() => {
    if (!pending) return;
    http
      .data<{ email?: string; user_email?: string } | null>(`/registration/self/code/${encodeURIComponent(handle)}`, { auth: false })
      .then((info) => {
        const found = info?.email ?? info?.user_email;
        if (found) setAddress(found);
      })
      .catch((err) => console.error(err));
  }, [handle, pending]);

  if (done) {
    return (
      <Alert severity="success">
        {translate('self_registration.done')} <PageLink to="/login">{translate('auth.sign_in')}</PageLink>
      </Alert>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) return;
    void run(async () => {
      await http.request('/email/confirm', { method: 'POST', body: { code: code.trim() }, auth: false });
      setDone(true);
    });
  };
  return (
    <Box component="form" onSubmit={submit} noValidate>
      <Stack spacing={2}>
        <Typography color="text.secondary">{translate('self_registration.code_hint', { email: address || '…' })}</Typography>
        {error ? <Alert severity="error">{error}</Alert> : null}
        {resent ? <Alert severity="info">{translate('self_registration.resent')}</Alert> : null}
        <TextField
          id="code"
          label={translate('self_registration.code')}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          autoComplete="one-time-code"
          fullWidth
          autoFocus
        />
        <Button type="submit" variant="contained" disabled={busy || !code.trim()}>
          {translate('self_registration.confirm')}
        </Button>
        {pending ? (
          <Button
            variant="text"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                await http.request(`/registration/self/resend/${encodeURIComponent(handle)}`, { method: 'POST', auth: false });
                setResent(true);
              })
            }
          >
            {translate('self_registration.resend')}
          </Button>
        ) : null}
      </Stack>
    </Box>
  );
}

/** /self-registration and /self-registration/:token (the pending registration's code). */
/** The form only while the server takes self-registrations; otherwise that it is closed (and how to get an account). */
function RegistrationOrClosed() {
  const translate = useTranslate();
  const settings = usePublicSettings();
  if (!settings) return <LinearProgress aria-label={translate('kit.busy')} />;
  if (!settings.can_user_register_himself) {
    return (
      <Alert severity="info" role="status">
        {translate('self_registration.closed')}
      </Alert>
    );
  }
  return <RegistrationForm />;
}

export function SelfRegistrationPage() {
  const translate = useTranslate();
  const { token } = useParams();
  return (
    <PublicPage
      title={translate(token ? 'self_registration.code_title' : 'self_registration.title')}
      footer={<PageLink to="/login">{translate('auth.to_login')}</PageLink>}
    >
      {token ? <CodeForm handle={token} /> : <RegistrationOrClosed />}
    </PublicPage>
  );
}
