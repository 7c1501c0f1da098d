import BackspaceIcon from '@mui/icons-material/Backspace';
import CallIcon from '@mui/icons-material/Call';
import MeetingRoomIcon from '@mui/icons-material/MeetingRoom';
import RefreshIcon from '@mui/icons-material/Refresh';
import VideocamIcon from '@mui/icons-material/Videocam';
import {
  Box,
  Button,
  Checkbox,
  Divider,
  FormControlLabel,
  FormGroup,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Stack,
  Switch,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Dispatch, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useSessionData } from '../app/SessionContext';
import { useAlert } from '../app/useAlert';
import { activeCall } from './calls';
import type { DialerEngine, DialerSnapshot } from './engine';
import { KEYPAD_KEYS, type KeypadAction, type KeypadState, keypadView, videoButton } from './keypad';
import { canRemoveInterceptionGroup, interceptionRefusal } from './rules';
import { dialerApi, useReportError } from './useDialer';

const INTERCEPTION_KEY = ['dialer', 'interception'] as const;

/** Call interception (spec comms §2, §5): groups, and on or off; at least one group to start. */
function InterceptionBlock() {
  const t = useTranslate();
  const alert = useAlert();
  const { profile } = useSessionData();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: INTERCEPTION_KEY, queryFn: () => dialerApi.interception() });
  const [selected, setSelected] = useState<number[] | null>(null);
  const current = settings.data;
  const groups = selected ?? current?.groups ?? [];
  const ownGroups = profile.domains.map((d) => d.id);
  const save = useMutation({
    mutationFn: (body: { is_active: boolean; domains: number[] }) => dialerApi.setInterception(body),
    onSuccess: (data) => {
      queryClient.setQueryData(INTERCEPTION_KEY, data);
      setSelected(null);
    },
    onError: (e) => alert.error(e),
  });
  useReportError(settings.error);
  const active = current?.isActive ?? false;
  const toggle = (on: boolean) => {
    const refusal = interceptionRefusal(on, groups);
    if (refusal) {
      alert.warning(refusal);
      return;
    }
    save.mutate({ is_active: on, domains: groups });
  };
  const change = (id: number, checked: boolean) => {
    if (!checked && !canRemoveInterceptionGroup(id, ownGroups, active)) return;
    setSelected(checked ? [...groups, id] : groups.filter((g) => g !== id));
  };
  return (
    <Box data-testid="dialer-interception">
      <Typography variant="subtitle2">{t('dialer.interception.title')}</Typography>
      <FormControlLabel
        control={<Switch checked={active} disabled={!current || save.isPending} onChange={(e) => toggle(e.target.checked)} />}
        label={t('dialer.interception.toggle')}
      />
      <Typography variant="caption" color="text.secondary" component="div">
        {t('dialer.interception.groups')}
      </Typography>
      {current && current.userGroups.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('dialer.interception.empty')}
        </Typography>
      ) : null}
      <FormGroup sx={{ maxHeight: 160, overflow: 'auto', flexWrap: 'nowrap' }}>
        {(current?.userGroups ?? []).map((g) => {
          const checked = groups.includes(g.id);
          const locked = active || (checked && !canRemoveInterceptionGroup(g.id, ownGroups, active));
          return (
            <Tooltip key={g.id} title={checked && ownGroups.includes(g.id) ? t('dialer.interception.own_group') : ''} placement="left">
              <FormControlLabel
                control={<Checkbox size="small" checked={checked} disabled={locked} onChange={(e) => change(g.id, e.target.checked)} />}
                label={g.name}
              />
            </Tooltip>
          );
        })}
      </FormGroup>
    </Box>
  );
}

/** Door management (spec comms §2): the concierge devices, each with open-door. */
function DoorsBlock({ active }: { active: boolean }) {
  const t = useTranslate();
  const alert = useAlert();
  const devices = useQuery({
    queryKey: ['dialer', 'devices'],
    queryFn: () => dialerApi.conciergeDevices(),
    enabled: active,
    staleTime: 60_000,
  });
  useReportError(devices.error);
  const open = useMutation({
    mutationFn: (token: string) => dialerApi.openDoor(token),
    onSuccess: () => alert.success('dialer.doors.opened'),
    onError: (e) => alert.error(e),
  });
  return (
    <Box data-testid="dialer-doors">
      <Stack direction="row" sx={{ alignItems: 'center' }}>
        <Typography variant="subtitle2" sx={{ flex: 1 }}>
          {t('dialer.doors.title')}
        </Typography>
        <IconButton size="small" onClick={() => void devices.refetch()} aria-label={t('dialer.doors.refresh')}>
          <RefreshIcon fontSize="small" />
        </IconButton>
      </Stack>
      <List dense sx={{ maxHeight: 180, overflow: 'auto' }}>
        {(devices.data ?? []).map((d) => (
          <ListItem
            key={d.token}
            secondaryAction={
              <Tooltip title={t('dialer.doors.open', { name: d.name })}>
                <IconButton
                  edge="end"
                  color="primary"
                  disabled={open.isPending}
                  onClick={() => open.mutate(d.token)}
                  aria-label={t('dialer.doors.open', { name: d.name })}
                >
                  <MeetingRoomIcon />
                </IconButton>
              </Tooltip>
            }
          >
            <ListItemText primary={d.name} secondary={d.sip_number?.number ?? undefined} />
          </ListItem>
        ))}
        {devices.data && devices.data.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            {t('dialer.doors.empty')}
          </Typography>
        ) : null}
      </List>
    </Box>
  );
}

/** The keypad of spec comms §2; during a call its keys go out as DTMF. */
function Keypad({
  keypad,
  dispatch,
  dial,
  engine,
  snapshot,
}: {
  keypad: KeypadState;
  dispatch: Dispatch<KeypadAction>;
  dial: (number: string, video: boolean) => void;
  engine: DialerEngine;
  snapshot: DialerSnapshot;
}) {
  const t = useTranslate();
  const view = keypadView(keypad);
  const talking = activeCall(snapshot.calls);
  const video = () => {
    const action = videoButton(keypad);
    if (action.kind === 'fill') dispatch({ type: 'set', value: action.number });
    else if (action.kind === 'call') dial(action.number, true);
  };
  return (
    <Box data-testid="dialer-keypad">
      <Typography variant="subtitle2">{t('dialer.keypad.title')}</Typography>
      <Stack direction="row" sx={{ alignItems: 'center', my: 1, minHeight: 40 }}>
        <Typography
          variant="h5"
          aria-label={t('dialer.keypad.number')}
          data-testid="dialer-keypad-display"
          sx={{
            flex: 1,
            textAlign: 'center',
            fontFamily: 'monospace',
            color: keypad.value ? 'text.primary' : 'text.disabled',
            overflowWrap: 'anywhere',
          }}
        >
          {view.display}
        </Typography>
        {view.showBackspace ? (
          <IconButton onClick={() => dispatch({ type: 'backspace' })} aria-label={t('dialer.keypad.backspace')}>
            <BackspaceIcon />
          </IconButton>
        ) : null}
      </Stack>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(3, 1fr)', gap: 1 }}>
        {KEYPAD_KEYS.map((key) => (
          <Button
            key={key}
            variant="outlined"
            sx={{ fontSize: 20, py: 1 }}
            onClick={() => {
              dispatch({ type: 'press', key });
              if (talking) engine.sendDtmf(talking.speechId, key);
            }}
          >
            {key}
          </Button>
        ))}
      </Box>
      <Stack direction="row" spacing={1} sx={{ mt: 1.5, justifyContent: 'center' }}>
        {view.showVoice ? (
          <Button variant="contained" color="success" startIcon={<CallIcon />} onClick={() => dial(keypad.value, false)}>
            {t('dialer.keypad.voice')}
          </Button>
        ) : null}
        <Button variant="outlined" color="success" startIcon={<VideocamIcon />} onClick={video}>
          {t('dialer.keypad.video')}
        </Button>
      </Stack>
    </Box>
  );
}

/** The right column of spec comms §2: interception (when allowed), door management, keypad. */
export function ControlsPane(props: {
  ownNumber: string;
  active: boolean;
  keypad: KeypadState;
  keypadDispatch: Dispatch<KeypadAction>;
  dial: (number: string, video: boolean) => void;
  engine: DialerEngine;
  snapshot: DialerSnapshot;
}) {
  const { can } = useSessionData();
  return (
    <Stack
      sx={{ p: 1.5, gap: 1.5, overflow: 'auto', minHeight: 0, borderLeft: { md: 1 }, borderColor: { md: 'divider' } }}
      divider={<Divider flexItem />}
    >
      {can('can_intercept_calls') && props.active ? <InterceptionBlock /> : null}
      <DoorsBlock active={props.active} />
      <Keypad keypad={props.keypad} dispatch={props.keypadDispatch} dial={props.dial} engine={props.engine} snapshot={props.snapshot} />
    </Stack>
  );
}
