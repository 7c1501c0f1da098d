import CallIcon from '@mui/icons-material/Call';
import CallEndIcon from '@mui/icons-material/CallEnd';
import DoorFrontIcon from '@mui/icons-material/DoorFront';
import FullscreenIcon from '@mui/icons-material/Fullscreen';
import FullscreenExitIcon from '@mui/icons-material/FullscreenExit';
import MicIcon from '@mui/icons-material/Mic';
import MicOffIcon from '@mui/icons-material/MicOff';
import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import SosIcon from '@mui/icons-material/Sos';
import VideocamIcon from '@mui/icons-material/Videocam';
import VolumeOffIcon from '@mui/icons-material/VolumeOff';
import VolumeUpIcon from '@mui/icons-material/VolumeUp';
import { Avatar, Box, Card, CardActionArea, CardActions, CardContent, Chip, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import { type ReactNode, useEffect, useRef, useSyncExternalStore } from 'react';
import { useTranslate } from 'react-admin';
import { answeredByOther, canHold, canResume, isDisabled } from './calls';
import type { CallHandle, DialerEngine, DialerSnapshot } from './engine';
import { formatDuration } from './recents';
import type { DialerCall } from './types';
import { useTick } from './useDialer';

const noStream = { get: () => null, subscribe: () => () => undefined, hasVideo: false };

/** The far side's stream of a call, re-rendering when a track arrives. */
function useRemoteStream(handle: CallHandle | undefined): { stream: MediaStream | null; hasVideo: boolean } {
  const remote = handle?.remoteStream ?? noStream;
  const version = useSyncExternalStore(
    (l) => remote.subscribe(l),
    () => `${remote.get() ? 1 : 0}:${remote.hasVideo ? 1 : 0}`,
  );
  return { stream: version.startsWith('1') ? remote.get() : null, hasVideo: remote.hasVideo };
}

/** Plays a call's sound (muted with the call's volume setting). */
function CallAudio({ handle, muted }: { handle: CallHandle; muted: boolean }) {
  const { stream } = useRemoteStream(handle);
  const ref = useRef<HTMLAudioElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  return <audio ref={ref} autoPlay muted={muted} data-testid="dialer-audio" />;
}

function CallVideo({ handle }: { handle: CallHandle }) {
  const { stream, hasVideo } = useRemoteStream(handle);
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  if (!hasVideo) return null;
  // The sound plays from CallAudio: the picture stays muted.
  return <video ref={ref} autoPlay playsInline muted style={{ width: '100%', height: '100%', objectFit: 'contain', background: '#000' }} />;
}

const titleOf = (call: DialerCall) => (call.info?.user ? `${call.info.user} (${call.number})` : call.number);

/**
 * The status as a person reads it: an incoming call that is `calling` rings here; a call placed
 * here and held by the other side is simply on hold (the "answered" of processed_paused is the
 * holder's queue wording).
 */
function statusLabel(call: DialerCall): string {
  if (call.status === 'calling' && call.direction === 'incoming') return 'dialer.calls.status.ringing';
  if (call.status === 'processed_paused' && call.type !== 'awaiting') return 'dialer.calls.status.paused';
  return `dialer.calls.status.${call.status}`;
}

function Action({
  label,
  onClick,
  children,
  color,
}: {
  label: string;
  onClick: () => void;
  children: ReactNode;
  color?: 'success' | 'error' | 'primary' | 'warning';
}) {
  return (
    <Tooltip title={label}>
      <IconButton aria-label={label} onClick={onClick} color={color ?? 'default'}>
        {children}
      </IconButton>
    </Tooltip>
  );
}

function CallCard({
  call,
  ownNumber,
  engine,
  handle,
  now,
}: {
  call: DialerCall;
  ownNumber: string;
  engine: DialerEngine;
  handle: CallHandle | undefined;
  now: number;
}) {
  const t = useTranslate();
  const disabled = isDisabled(call, ownNumber);
  const ringing = call.direction === 'incoming' && call.status === 'calling' && call.hasSIPSession;
  const talking = (call.status === 'active' || call.status === 'joining') && call.hasSIPSession;
  const kind = call.type === 'awaiting' ? 'awaiting' : call.direction;
  return (
    <Card
      variant="outlined"
      data-testid="dialer-call"
      data-status={call.status}
      data-sos={call.sosCall ? 'true' : undefined}
      sx={{
        opacity: disabled || call.status === 'destroyed' ? 0.6 : 1,
        borderColor: call.sosCall ? 'error.main' : call.isSelected ? 'primary.main' : 'divider',
        borderWidth: call.sosCall || call.isSelected ? 2 : 1,
        bgcolor: call.sosCall ? 'error.50' : undefined,
      }}
    >
      <CardActionArea disabled={disabled} onClick={() => engine.select(call.speechId)}>
        <CardContent sx={{ pb: 1 }}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            {call.sosCall ? <SosIcon color="error" /> : null}
            <Typography variant="subtitle1" sx={{ flex: 1 }} noWrap>
              {titleOf(call)}
            </Typography>
            {call.video ? <VideocamIcon fontSize="small" color="action" /> : null}
            {call.started && call.status === 'active' ? (
              <Typography variant="body2">{formatDuration((now - call.started) / 1000)}</Typography>
            ) : null}
          </Stack>
          {call.info?.address ? (
            <Typography variant="body2" color="text.secondary" noWrap>
              {call.info.address}
            </Typography>
          ) : null}
          <Stack direction="row" spacing={1} sx={{ mt: 0.5, flexWrap: 'wrap' }}>
            {call.sosCall ? <Chip size="small" color="error" label={t('dialer.calls.sos')} /> : null}
            <Chip size="small" variant="outlined" label={t(`dialer.calls.${kind}`)} />
            <Chip size="small" color={talking ? 'success' : 'default'} label={t(statusLabel(call))} />
            {answeredByOther(call, ownNumber) ? <Chip size="small" color="warning" label={t('dialer.calls.answered_by_another')} /> : null}
          </Stack>
        </CardContent>
      </CardActionArea>
      {call.status !== 'destroyed' && !disabled ? (
        <CardActions sx={{ pt: 0, flexWrap: 'wrap' }}>
          {ringing ? (
            <Action label={t('dialer.calls.answer')} color="success" onClick={() => engine.accept(call.speechId)}>
              <CallIcon />
            </Action>
          ) : null}
          {talking ? (
            <>
              <Action
                label={t(call.settings.mic.muted ? 'dialer.calls.unmute_mic' : 'dialer.calls.mute_mic')}
                onClick={() => engine.toggleMute(call.speechId, 'mic')}
              >
                {call.settings.mic.muted ? <MicOffIcon color="error" /> : <MicIcon />}
              </Action>
              <Action
                label={t(call.settings.volume.muted ? 'dialer.calls.unmute_volume' : 'dialer.calls.mute_volume')}
                onClick={() => engine.toggleMute(call.speechId, 'volume')}
              >
                {call.settings.volume.muted ? <VolumeOffIcon color="error" /> : <VolumeUpIcon />}
              </Action>
              {handle && call.status === 'active' ? (
                <Action label={t('dialer.calls.open_door')} color="primary" onClick={() => engine.openDoor(call.speechId)}>
                  <DoorFrontIcon />
                </Action>
              ) : null}
            </>
          ) : null}
          {canHold(call, ownNumber) ? (
            <Action label={t('dialer.calls.hold')} color="warning" onClick={() => engine.hold(call.speechId)}>
              <PauseIcon />
            </Action>
          ) : null}
          {canResume(call, ownNumber) ? (
            <Action label={t('dialer.calls.resume')} color="success" onClick={() => engine.resume(call.speechId)}>
              <PlayArrowIcon />
            </Action>
          ) : null}
          <Box sx={{ flex: 1 }} />
          <Action label={t(ringing ? 'dialer.calls.decline' : 'dialer.calls.end')} color="error" onClick={() => engine.end(call.speechId)}>
            <CallEndIcon />
          </Action>
        </CardActions>
      ) : null}
    </Card>
  );
}

/** The centre column of spec comms §2: the media and controls of the selected call, then every call's card. */
export function CallsPane({ ownNumber, snapshot, engine }: { ownNumber: string; snapshot: DialerSnapshot; engine: DialerEngine }) {
  const t = useTranslate();
  const { calls, handles } = snapshot;
  const now = useTick(calls.some((c) => c.status === 'active'));
  const selected = calls.find((c) => c.isSelected && c.status !== 'destroyed') ?? calls.find((c) => c.hasSIPSession) ?? null;
  const selectedHandle = selected ? handles.get(selected.speechId) : undefined;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: 0, overflow: 'auto', p: 1.5, gap: 1.5 }} data-testid="dialer-calls">
      {[...handles.entries()].map(([id, handle]) => (
        <CallAudio key={id} handle={handle} muted={calls.find((c) => c.speechId === id)?.settings.volume.muted ?? false} />
      ))}
      {selected ? (
        <Box
          sx={
            selected.fullscreen
              ? {
                  position: 'fixed',
                  inset: 0,
                  zIndex: (th) => th.zIndex.modal + 1,
                  bgcolor: '#000',
                  display: 'flex',
                  flexDirection: 'column',
                }
              : {
                  position: 'relative',
                  height: 260,
                  bgcolor: selected.sosCall ? 'error.dark' : 'grey.900',
                  borderRadius: 1,
                  overflow: 'hidden',
                  flexShrink: 0,
                }
          }
          data-testid="dialer-media"
        >
          {selectedHandle ? <CallVideo handle={selectedHandle} /> : null}
          {!selectedHandle?.remoteStream?.hasVideo ? (
            <Stack sx={{ position: 'absolute', inset: 0, alignItems: 'center', justifyContent: 'center', color: 'common.white', gap: 1 }}>
              <Avatar sx={{ width: 72, height: 72, bgcolor: selected.sosCall ? 'error.main' : 'primary.main' }}>
                {selected.sosCall ? (
                  <SosIcon fontSize="large" />
                ) : selected.status === 'paused' || selected.status === 'processed_paused' ? (
                  <PauseIcon fontSize="large" />
                ) : (
                  <CallIcon fontSize="large" />
                )}
              </Avatar>
              <Typography variant="h6" component="h2">
                {titleOf(selected)}
              </Typography>
              <Typography variant="body2">{t(statusLabel(selected))}</Typography>
            </Stack>
          ) : null}
          <IconButton
            sx={{ position: 'absolute', right: 8, bottom: 8, color: 'common.white' }}
            aria-label={t(selected.fullscreen ? 'dialer.calls.exit_fullscreen' : 'dialer.calls.fullscreen')}
            onClick={() => engine.setFullscreen(selected.speechId, !selected.fullscreen)}
          >
            {selected.fullscreen ? <FullscreenExitIcon /> : <FullscreenIcon />}
          </IconButton>
        </Box>
      ) : null}
      {calls.length === 0 ? (
        <Typography color="text.secondary" sx={{ textAlign: 'center', py: 6 }}>
          {t('dialer.calls.empty')}
        </Typography>
      ) : (
        calls.map((call) => (
          <CallCard key={call.speechId} call={call} ownNumber={ownNumber} engine={engine} handle={handles.get(call.speechId)} now={now} />
        ))
      )}
    </Box>
  );
}
