import type { SsoLoginOption } from '@atrium/contract';
import LoginIcon from '@mui/icons-material/Login';
import { Button, Divider, Stack, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useEffect, useRef, useState } from 'react';
import { type SignInResult, signInWithTicket } from '../app/auth';
import { errorText } from '../app/errors';
import { http } from '../app/http';
import { safeRedirect } from '../app/redirect';

/** The API's single sign-on start for a provider, bringing the person back to `search`'s redirect afterwards. */
export const ssoStartUrl = (id: number, search: string): string => {
  const redirect = safeRedirect(search);
  return `/api/v0/sso/${id}/start${redirect ? `?redirect=${encodeURIComponent(redirect)}` : ''}`;
};

/** Single sign-on (issue 14): one "Sign in with <provider>" button per enabled OpenID Connect provider. */
export function SsoButtons({ search }: { search: string }) {
  const translate = useTranslate();
  const [providers, setProviders] = useState<SsoLoginOption[]>([]);
  useEffect(() => {
    let live = true;
    http
      .data<SsoLoginOption[]>('/sso/login-options', { auth: false })
      .then((list) => {
        if (live) setProviders(list);
      })
      .catch((error) => console.error(error));
    return () => {
      live = false;
    };
  }, []);
  if (!providers.length) return null;
  return (
    <Stack spacing={1}>
      <Divider>
        <Typography variant="caption" color="text.secondary">
          {translate('sso_sign_in.or')}
        </Typography>
      </Divider>
      {providers.map((p) => (
        <Button key={p.id} variant="outlined" startIcon={<LoginIcon />} href={ssoStartUrl(p.id, search)} fullWidth>
          {translate('sso_sign_in.with', { name: p.name })}
        </Button>
      ))}
    </Stack>
  );
}

/**
 * The way back from the provider: the API sends the browser to `/login#sso_ticket=…` (or
 * `#sso_error=…`). The ticket is exchanged for the session once, and the fragment is cleared at once.
 */
export function useSsoReturn(onResult: (r: SignInResult) => void, onError: (message: string) => void): void {
  const translate = useTranslate();
  const handled = useRef(false);
  useEffect(() => {
    if (handled.current) return;
    handled.current = true;
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    const ticket = fragment.get('sso_ticket');
    const error = fragment.get('sso_error');
    if (!ticket && !error) return;
    const redirect = fragment.get('redirect');
    const back = redirect && safeRedirect(`?redirect=${encodeURIComponent(redirect)}`);
    window.history.replaceState(null, '', back ? `/login?redirect=${encodeURIComponent(back)}` : '/login');
    if (error) {
      onError(errorText({ message: error }, translate));
      return;
    }
    signInWithTicket(ticket as string, false)
      .then(onResult)
      .catch((e) => onError(errorText(e, translate)));
  }, [onResult, onError, translate]);
}
