import { keyframes } from '@emotion/react';
import PhoneIcon from '@mui/icons-material/Phone';
import PhoneDisabledIcon from '@mui/icons-material/PhoneDisabled';
import PhoneLockedIcon from '@mui/icons-material/PhoneLocked';
import RingVolumeIcon from '@mui/icons-material/RingVolume';
import { Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import { useCallback, useMemo, useReducer, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useSessionData } from '../app/SessionContext';
import { useAlert } from '../app/useAlert';
import { type FloatingButton, useFloatingButton } from '../layout/FloatingButtons';
import { ringingCall } from './calls';
import { DialerPanel } from './DialerPanel';
import { keypadReducer } from './keypad';
import { type ButtonIcon, buttonLook } from './registration';
import { useDialer } from './useDialer';

const vibrate = keyframes`
  0%, 100% { transform: rotate(0deg); }
  20% { transform: rotate(-14deg); }
  40% { transform: rotate(14deg); }
  60% { transform: rotate(-10deg); }
  80% { transform: rotate(10deg); }
`;

const ICONS: Record<Exclude<ButtonIcon, 'loading'>, typeof PhoneIcon> = {
  phone: PhoneIcon,
  phone_locked: PhoneLockedIcon,
  phone_disabled: PhoneDisabledIcon,
  ringing: RingVolumeIcon,
};

interface PendingDial {
  number: string;
  video: boolean;
  sipNumberId?: number;
  wording: 'cancel' | 'hold';
  activeNumber: string;
}

/** The dialer's button, panel and prompts (the lazily loaded part of `<Dialer />`). */
export function DialerRoot() {
  const translate = useTranslate();
  const alert = useAlert();
  const { profile, settings } = useSessionData();
  const ownNumber = profile.profile.sip_number ?? '';
  const [open, setOpen] = useState(false);
  const onRing = useCallback(() => setOpen(true), []);
  const { engine, snapshot, approval, askMedia } = useDialer({ ownNumber, proxyHost: settings?.sip_proxy_host ?? null, onRing });
  const [keypad, keypadDispatch] = useReducer(keypadReducer, { value: '', lastDialled: null });
  const [pending, setPending] = useState<PendingDial | null>(null);

  const ringing = ringingCall(snapshot.calls) !== null;
  const look = buttonLook(snapshot.registration, ringing);
  const waiting = snapshot.calls.filter(
    (c) => c.status === 'paused' || c.status === 'processed_paused' || (c.status === 'calling' && c.direction === 'incoming'),
  ).length;
  const button = useMemo<FloatingButton>(() => {
    const Icon = look.icon === 'loading' ? null : ICONS[look.icon];
    const alertLook = look.color === 'error';
    return {
      id: 'dialer',
      order: 10,
      label: translate(ringing ? 'dialer.registration.ringing' : `dialer.registration.${snapshot.registration}`),
      state: ringing ? 'active' : alertLook ? 'alert' : 'idle',
      badge: waiting || null,
      onClick: () => {
        setOpen((o) => !o);
        if (snapshot.registration === 'error' || snapshot.registration === 'invalid_registration') engine.reconnect();
      },
      icon: (
        <Box
          component="span"
          data-registration={snapshot.registration}
          data-ringing={ringing ? 'true' : undefined}
          sx={{
            display: 'inline-flex',
            color: alertLook || ringing ? 'inherit' : `${look.color}.light`,
            animation: look.vibrate ? `${vibrate} 0.6s ease-in-out infinite` : undefined,
          }}
        >
          {Icon ? <Icon /> : <CircularProgress size={22} color="inherit" sx={{ color: 'info.light' }} />}
        </Box>
      ),
    };
  }, [look, ringing, snapshot.registration, translate, waiting, engine]);
  useFloatingButton(button);

  const dial = (number: string, video: boolean, sipNumberId?: number, confirmed = false) => {
    const result = engine.dial(number, { video, sipNumberId, confirmed });
    if (result.kind === 'refused') alert.warning(result.message);
    else if (result.kind === 'offline') alert.warning(`dialer.registration.${snapshot.registration}`);
    else if (result.kind === 'confirm') setPending({ number, video, sipNumberId, wording: result.wording, activeNumber: result.number });
    else keypadDispatch({ type: 'dialled', number });
  };

  const returnTo = snapshot.returnTo;
  return (
    <>
      <DialerPanel
        open={open}
        onClose={() => setOpen(false)}
        ownNumber={ownNumber}
        snapshot={snapshot}
        engine={engine}
        keypad={keypad}
        keypadDispatch={keypadDispatch}
        dial={dial}
        mediaDenied={approval === 'denied'}
        askMedia={askMedia}
      />
      <Dialog open={pending !== null} onClose={() => setPending(null)} data-testid="dialer-confirm">
        <DialogTitle>{translate('dialer.confirm.title')}</DialogTitle>
        <DialogContent>{pending ? translate(`dialer.confirm.${pending.wording}`, { number: pending.activeNumber }) : null}</DialogContent>
        <DialogActions>
          <Button onClick={() => setPending(null)}>{translate('dialer.confirm.back')}</Button>
          <Button
            variant="contained"
            onClick={() => {
              if (pending) dial(pending.number, pending.video, pending.sipNumberId, true);
              setPending(null);
            }}
          >
            {translate('dialer.confirm.ok')}
          </Button>
        </DialogActions>
      </Dialog>
      <Dialog open={returnTo !== null} onClose={() => engine.dismissReturn()} data-testid="dialer-return">
        <DialogTitle>{translate('dialer.return_prompt.title')}</DialogTitle>
        <DialogContent>
          {returnTo ? translate('dialer.return_prompt.text', { number: returnTo.info?.user ?? returnTo.number }) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => engine.dismissReturn()}>{translate('dialer.return_prompt.stay')}</Button>
          <Button variant="contained" onClick={() => returnTo && engine.resume(returnTo.speechId)}>
            {translate('dialer.return_prompt.ok')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
