import {
  DEVICE_REALTIME,
  type Device,
  deviceModel,
  REMOTE_CONTROL_SESSION_SECONDS,
  type RemoteInputBody,
  type ScreenFrameEvent,
} from '@atrium/contract';
import CloseIcon from '@mui/icons-material/Close';
import DoorIcon from '@mui/icons-material/MeetingRoom';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, type MouseEvent, useCallback, useEffect, useRef, useState } from 'react';
import { useGetOne, useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { errorText } from '../../app/errors';
import { formatTime, useFormat } from '../../app/format';
import { http } from '../../app/http';
import { RealtimeClient, realtimeUrl } from '../../app/realtime';
import { sessionStore } from '../../app/session';
import { useDropShell } from '../../app/shell';

interface Session {
  session: string;
  device_id: number;
  expires_at: string;
}

/** Keys of a door panel's keypad, as the device understands them (docs/device-protocol.md, `input`). */
const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] as const;
/** The session is kept alive this long before it would end (it lasts REMOTE_CONTROL_SESSION_SECONDS). */
const KEEPALIVE_MS = (REMOTE_CONTROL_SESSION_SECONDS / 2) * 1000;
/** How long a door opening waits for its device to report it before saying it was not confirmed. */
const DOOR_CONFIRM_MS = 10_000;

/** Why remote control cannot start, in the words of spec entities §2 (closed with Close). */
function refusal(device: Device): 'not_mqtt' | 'offline' | null {
  if (device.protocol !== 'mqtt') return 'not_mqtt';
  if (!device.online) return 'offline';
  return null;
}

/**
 * The full-page remote control of a device (`/devices/remote-control?id=…`, outside the layout): the
 * device's screen as it streams it, taps on the screen, the keypad and the door, for a session kept
 * alive while the page is open and ended when it closes.
 */
export function RemoteControlPage() {
  const translate = useTranslate();
  // Outside the console's layout, so it replaces index.html's shell itself.
  useDropShell();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const { data: device, error, isPending } = useGetOne<Device>('devices', { id }, { enabled: Number.isInteger(id) && id > 0 });
  const back = () => navigate(Number.isInteger(id) && id > 0 ? `/devices/${id}` : '/devices');

  if (!Number.isInteger(id) || id <= 0 || error) {
    return (
      <Refused
        title={translate('devices.remote.title')}
        text={error ? errorText(error, translate) : translate('ra.page.not_found')}
        onClose={back}
      />
    );
  }
  if (isPending || !device) {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '100vh' }}>
        <CircularProgress aria-label={translate('ra.page.loading')} />
      </Box>
    );
  }
  const why = refusal(device);
  if (why) return <Refused title={translate('devices.remote.title')} text={translate(`devices.remote.${why}`)} onClose={back} />;
  return <RemoteConsole device={device} onClose={back} />;
}

function Refused({ title, text, onClose }: { title: string; text: string; onClose: () => void }) {
  const translate = useTranslate();
  return (
    <Dialog open onClose={onClose} aria-labelledby="remote-refused-title">
      <DialogTitle id="remote-refused-title">{title}</DialogTitle>
      <DialogContent>
        <Typography>{text}</Typography>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} autoFocus>
          {translate('ra.action.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function RemoteConsole({ device, onClose }: { device: Device; onClose: () => void }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  const [session, setSession] = useState<Session | null>(null);
  const [needsLogin, setNeedsLogin] = useState(Boolean(device.device_login));
  const [login, setLogin] = useState(device.device_login ?? '');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [frame, setFrame] = useState<ScreenFrameEvent | null>(null);
  const [ended, setEnded] = useState(false);
  const [busy, setBusy] = useState(false);
  // What became of each door opened from here: asked, confirmed by the device, or not confirmed in time.
  const [doors, setDoors] = useState<Record<number, 'opening' | 'opened' | 'unconfirmed'>>({});
  const doorTimers = useRef(new Map<number, ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const timers = doorTimers.current;
    return () => {
      for (const t of timers.values()) clearTimeout(t);
    };
  }, []);
  const doorIs = useCallback((lock: number, state: 'opening' | 'opened' | 'unconfirmed') => {
    clearTimeout(doorTimers.current.get(lock));
    setDoors((d) => ({ ...d, [lock]: state }));
    if (state === 'opening')
      doorTimers.current.set(
        lock,
        setTimeout(() => setDoors((d) => (d[lock] === 'opening' ? { ...d, [lock]: 'unconfirmed' } : d)), DOOR_CONFIRM_MS),
      );
  }, []);
  const locks = Math.max(1, deviceModel(device.type, device.model)?.capabilities.locks ?? 1);

  const open = useCallback(
    async (credentials?: { login: string; password: string }) => {
      setBusy(true);
      setProblem(null);
      try {
        const s = await http.data<Session>('/devices/remote-control', {
          method: 'PUT',
          body: { serial_number: device.serial_number, ...(credentials ?? {}) },
        });
        setEnded(false);
        setFrame(null);
        setNeedsLogin(false);
        setSession(s);
      } catch (e) {
        setProblem(errorText(e, translate));
      } finally {
        setBusy(false);
      }
    },
    [device.serial_number, translate],
  );

  // A device without a web login of its own is connected to at once.
  const started = useRef(false);
  useEffect(() => {
    if (started.current || device.device_login) return;
    started.current = true;
    void open();
  }, [device.device_login, open]);

  // The screen arrives on the session's topic; the session is kept alive while the page is open.
  useEffect(() => {
    if (!session) return;
    const topic = DEVICE_REALTIME.screenTopic(session.session);
    const client = new RealtimeClient({
      url: () => {
        const token = sessionStore.token();
        return token ? realtimeUrl(token) : null;
      },
      onMessage: (m) => {
        if (m.topic !== topic) return;
        if (m.event === DEVICE_REALTIME.events.screen) setFrame(m.data as ScreenFrameEvent);
        if (m.event === DEVICE_REALTIME.events.sessionEnded) setEnded(true);
        if (m.event === DEVICE_REALTIME.events.doorOpened) doorIs(Number((m.data as { lock?: number }).lock ?? 1), 'opened');
      },
      onRejected: () => http.refresh(),
    });
    client.subscribe(topic);
    client.start();
    const keepalive = setInterval(() => {
      http
        .data<Session>(`/devices/remote-control/${session.session}`, { method: 'PATCH' })
        .then((s) => setSession((current) => (current?.session === s.session ? { ...current, expires_at: s.expires_at } : current)))
        .catch((e: unknown) => {
          setProblem(errorText(e, translate));
          setEnded(true);
        });
    }, KEEPALIVE_MS);
    return () => {
      clearInterval(keepalive);
      client.stop();
      // Leaving the page ends the session: the device stops streaming at once.
      void http.request(`/devices/remote-control/${session.session}`, { method: 'DELETE' }).catch(() => undefined);
    };
  }, [session, translate, doorIs]);

  const send = async (input: RemoteInputBody) => {
    if (!session || ended) return;
    try {
      if (input.kind === 'open_door') doorIs(input.lock, 'opening');
      await http.data(`/devices/remote-control/${session.session}/input`, { method: 'POST', body: input });
      if (input.kind === 'open_door') setProblem(null);
    } catch (e) {
      if (input.kind === 'open_door') {
        clearTimeout(doorTimers.current.get(input.lock));
        setDoors(({ [input.lock]: _, ...rest }) => rest);
      }
      setProblem(errorText(e, translate));
    }
  };

  const tap = (e: MouseEvent<HTMLImageElement>) => {
    if (!frame) return;
    const box = e.currentTarget.getBoundingClientRect();
    const x = Math.round(((e.clientX - box.left) / box.width) * frame.width);
    const y = Math.round(((e.clientY - box.top) / box.height) * frame.height);
    void send({ kind: 'tap', x: Math.min(Math.max(x, 0), frame.width - 1), y: Math.min(Math.max(y, 0), frame.height - 1) });
  };

  const submitLogin = (e: FormEvent) => {
    e.preventDefault();
    void open({ login, password });
  };

  return (
    <Box component="main" sx={{ minHeight: '100vh', bgcolor: 'background.default', p: { xs: 1, sm: 3 } }}>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 2, mb: 2, flexWrap: 'wrap' }}>
        <Box sx={{ flex: 1, minWidth: 200 }}>
          <Typography variant="h5" component="h1">
            {translate('devices.remote.heading', { name: device.name })}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {device.serial_number}
            {session && !ended ? ` · ${translate('devices.remote.until', { time: formatTime(session.expires_at, locale) })}` : ''}
          </Typography>
        </Box>
        <Button variant="outlined" startIcon={<CloseIcon />} onClick={onClose}>
          {translate('devices.remote.end')}
        </Button>
      </Stack>

      {problem ? (
        <Alert severity="error" sx={{ mb: 2, maxWidth: 720 }} role="alert">
          {problem}
        </Alert>
      ) : null}

      {needsLogin ? (
        <Paper component="form" onSubmit={submitLogin} sx={{ p: 3, maxWidth: 420 }} aria-label={translate('devices.remote.login_title')}>
          <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
            {translate('devices.remote.login_title')}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {translate('devices.remote.login_text')}
          </Typography>
          <TextField
            label={translate('resources.devices.fields.device_login')}
            value={login}
            onChange={(e) => setLogin(e.target.value)}
            fullWidth
            sx={{ mb: 2 }}
            autoComplete="off"
          />
          <TextField
            label={translate('resources.devices.fields.device_password')}
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            fullWidth
            sx={{ mb: 2 }}
            autoComplete="off"
          />
          <Button type="submit" variant="contained" disabled={busy}>
            {translate('devices.remote.connect')}
          </Button>
        </Paper>
      ) : (
        <Stack direction={{ xs: 'column', md: 'row' }} sx={{ gap: 3, alignItems: 'flex-start' }}>
          <Paper
            sx={{
              p: 1,
              bgcolor: 'grey.900',
              display: 'grid',
              placeItems: 'center',
              width: { xs: '100%', md: 'auto' },
              minWidth: 240,
              minHeight: 320,
            }}
          >
            {frame ? (
              <Box
                component="img"
                src={`data:image/${frame.format};base64,${frame.data}`}
                alt={translate('devices.remote.screen')}
                onClick={tap}
                data-testid="remote-screen"
                data-seq={frame.seq}
                sx={{
                  height: { xs: 'auto', md: 480 },
                  width: { xs: '100%', md: 'auto' },
                  aspectRatio: `${frame.width} / ${frame.height}`,
                  imageRendering: 'pixelated',
                  cursor: ended ? 'default' : 'crosshair',
                  opacity: ended ? 0.4 : 1,
                }}
              />
            ) : (
              <Stack sx={{ alignItems: 'center', gap: 2, color: 'grey.300', p: 3 }}>
                {busy || (session && !ended) ? <CircularProgress color="inherit" size={28} /> : null}
                <Typography variant="body2">
                  {translate(session ? 'devices.remote.waiting' : busy ? 'devices.remote.connecting' : 'devices.remote.not_connected')}
                </Typography>
              </Stack>
            )}
          </Paper>
          <Stack sx={{ gap: 2, minWidth: 240 }}>
            {ended ? (
              <Alert
                severity="info"
                action={
                  <Button color="inherit" size="small" onClick={() => void open(device.device_login ? { login, password } : undefined)}>
                    {translate('devices.remote.reconnect')}
                  </Button>
                }
              >
                {translate('devices.remote.ended')}
              </Alert>
            ) : null}
            <Box
              role="group"
              aria-label={translate('devices.remote.keypad')}
              sx={{ display: 'grid', gridTemplateColumns: 'repeat(3, 64px)', gap: 1 }}
            >
              {KEYS.map((key) => (
                <Button
                  key={key}
                  variant="outlined"
                  disabled={!session || ended}
                  onClick={() => void send({ kind: 'key', key })}
                  sx={{ minWidth: 64, height: 48, fontSize: 20 }}
                >
                  {key}
                </Button>
              ))}
            </Box>
            {Array.from({ length: locks }, (_, i) => i + 1).map((lock) => (
              <Stack key={lock} spacing={0.5}>
                <Button
                  variant="contained"
                  color="success"
                  startIcon={<DoorIcon />}
                  disabled={!session || ended}
                  onClick={() => void send({ kind: 'open_door', lock })}
                >
                  {locks > 1 ? translate('devices.remote.open_lock', { lock }) : translate('devices.remote.open_door')}
                </Button>
                <Typography
                  role="status"
                  variant="body2"
                  sx={{
                    minHeight: 20,
                    color: doors[lock] === 'opened' ? 'success.main' : doors[lock] === 'unconfirmed' ? 'warning.main' : 'text.secondary',
                  }}
                >
                  {doors[lock] ? translate(`devices.remote.door.${doors[lock]}`, { lock }) : ''}
                </Typography>
              </Stack>
            ))}
            <Typography variant="caption" color="text.secondary" sx={{ maxWidth: 240 }}>
              {translate('devices.remote.hint')}
            </Typography>
          </Stack>
        </Stack>
      )}
    </Box>
  );
}
