import { GUEST_IDENTIFIER_NAME, type GuestInfo } from '@atrium/contract';
import DoorFrontIcon from '@mui/icons-material/DoorFrontOutlined';
import { Alert, Button, CircularProgress, Divider, Stack, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useCallback, useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { errorText } from '../../app/errors';
import { formatDateTime } from '../../app/format';
import { http } from '../../app/http';
import { reloadMessages, setAppLocale, useAppLocale } from '../../app/locale';
import { raStore } from '../../app/ra-store';
import { registerAreaMessages } from '../../i18n';
import { PublicPage } from '../../pages/PublicPage';
import { browserLocale, doorNames } from './guestPage';
import * as guestAccessMessages from './messages';
import { QrCode } from './QrCode';

// The guest's page is outside the console: it brings its own texts.
registerAreaMessages([guestAccessMessages]);
void reloadMessages();

const keyPath = (key: string) => `/guest-access/key/${encodeURIComponent(key)}`;

/** A first visit speaks the browser's language; a language chosen on any page of the console wins. */
function useBrowserLanguageOnce() {
  useEffect(() => {
    if (raStore.getItem('locale') === undefined) setAppLocale(browserLocale(navigator.languages ?? [navigator.language]));
  }, []);
}

type Outcome = { severity: 'success' | 'error'; text: string };

/** One door's button: opens it (POST …/open with the door's token) and says how it went. */
function DoorButton({
  keyId,
  token,
  name,
  onOpened,
}: {
  keyId: string;
  token: string;
  name: string;
  onOpened: (passesLeft: number | null) => void;
}) {
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const open = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const body = await http.request<{ data: { opened: boolean; passes_left: number | null } }>(`${keyPath(keyId)}/open`, {
        method: 'POST',
        body: { token },
        auth: false,
      });
      const left = body.data.passes_left;
      onOpened(left);
      setOutcome({
        severity: 'success',
        text:
          left === null ? translate('guest_access.opened', { name }) : translate('guest_access.opened_passes_left', { name, count: left }),
      });
    } catch (error) {
      setOutcome({ severity: 'error', text: errorText(error, translate) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack spacing={1}>
      <Button
        variant="contained"
        size="large"
        startIcon={busy ? <CircularProgress size={20} color="inherit" /> : <DoorFrontIcon />}
        onClick={open}
        disabled={busy}
        fullWidth
      >
        {translate('guest_access.open_door', { name })}
      </Button>
      {outcome ? (
        <Alert severity={outcome.severity} role={outcome.severity === 'error' ? 'alert' : 'status'}>
          {outcome.text}
        </Alert>
      ) : null}
    </Stack>
  );
}

/**
 * The guest's page `/guest-access/:keyId`, without sign-in: the pass's QR code for the reader, the
 * grantor's message, validity in the viewer's local time, passes left and a button per door.
 */
export function GuestKeyPage() {
  const translate = useTranslate();
  const locale = useAppLocale();
  const { keyId = '' } = useParams();
  useBrowserLanguageOnce();
  const [info, setInfo] = useState<GuestInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    let live = true;
    setError(null);
    http
      .request<{ data: GuestInfo }>(keyPath(keyId), { auth: false })
      .then((body) => live && setInfo(body.data))
      .catch((err) => live && setError(errorText(err, translate)));
    return () => {
      live = false;
    };
  }, [keyId, translate]);
  useEffect(load, [load]);
  const onOpened = useCallback((passesLeft: number | null) => {
    setInfo((prev) => (prev ? { ...prev, passes_left: passesLeft } : prev));
  }, []);
  const when = (iso: string) => formatDateTime(iso, locale, { seconds: false });
  return (
    <PublicPage title={info?.name && info.name !== GUEST_IDENTIFIER_NAME ? info.name : translate('guest_access.key_title')}>
      {error ? (
        <Alert
          severity="error"
          role="alert"
          action={
            <Button color="inherit" size="small" onClick={() => load()}>
              {translate('guest_access.retry')}
            </Button>
          }
        >
          {error}
        </Alert>
      ) : !info ? (
        <Stack sx={{ py: 3, alignItems: 'center' }}>
          <CircularProgress aria-label={translate('guest_access.key_loading')} />
        </Stack>
      ) : (
        <Stack spacing={2}>
          {info.key_message ? (
            <Alert severity="info" icon={false} sx={{ whiteSpace: 'pre-line' }}>
              {info.key_message}
            </Alert>
          ) : null}
          <Stack spacing={1} sx={{ alignItems: 'center' }}>
            <QrCode value={info.qr} size={240} alt={translate('guest_access.qr_alt')} />
            <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
              {translate('guest_access.key_qr_hint')}
            </Typography>
          </Stack>
          <Stack spacing={0.5}>
            <Typography variant="body1">
              {info.valid_from && info.valid_to
                ? translate('guest_access.valid_between', { from: when(info.valid_from), to: when(info.valid_to) })
                : translate('guest_access.valid_always')}
            </Typography>
            <Typography variant="body1" aria-live="polite">
              {info.passes_left === null
                ? translate('guest_access.passes_unlimited')
                : translate('guest_access.passes_left', { count: info.passes_left })}
            </Typography>
          </Stack>
          <Divider />
          <Typography variant="h6" component="h2">
            {translate('guest_access.doors')}
          </Typography>
          {info.doors.length === 0 ? (
            <Typography variant="body2">{translate('guest_access.no_doors')}</Typography>
          ) : (
            doorNames(info.doors, (name, lock) => translate('guest_access.door_lock', { name, lock })).map((d) => (
              <DoorButton key={d.token} keyId={keyId} token={d.token} name={d.name} onOpened={onOpened} />
            ))
          )}
        </Stack>
      )}
    </PublicPage>
  );
}
