import { type DeviceTaskState, EMERGENCY_REALTIME, type EmergencyAlert, type EmergencyPlayback } from '@atrium/contract';
import CampaignIcon from '@mui/icons-material/Campaign';
import StopIcon from '@mui/icons-material/Stop';
import { Box, Button, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Confirm, FunctionField, useDataProvider, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime, useFormat } from '../../app/format';
import { RecordsList } from '../../app/kit/RecordsList';
import { useLiveTopic } from '../../app/live';
import { debounce } from '../../app/realtime';
import { useSessionData } from '../../app/SessionContext';
import { taskErrorText } from '../../app/task-error';
import { useAlert } from '../../app/useAlert';
import { EMERGENCY_API } from './shared';

type PlaybackDevice = EmergencyPlayback['devices'][number];

/** Several devices reporting at once make one read of the playback. */
const LIVE_DEBOUNCE_MS = 250;

const COLORS: Record<DeviceTaskState, 'default' | 'success' | 'error' | 'warning' | 'info'> = {
  new: 'default',
  queued: 'info',
  started: 'info',
  completed: 'success',
  error: 'error',
  stopped: 'default',
  waiting: 'warning',
};

export function TaskChip({ state, error, label }: { state: DeviceTaskState; error?: string | null; label: string }) {
  const translate = useTranslate();
  return (
    <Chip
      size="small"
      color={COLORS[state]}
      variant={state === 'completed' ? 'filled' : 'outlined'}
      label={label}
      title={taskErrorText(translate, error)}
    />
  );
}

/** A device's task on a kit list: its chip worded from `states` (a catalogue prefix), nothing before it exists. */
export function TaskStateField({ source, states }: { source: string; label: string; sortable?: boolean; states: string }) {
  const translate = useTranslate();
  const record = useRecordContext<Record<string, { state: DeviceTaskState; error?: string | null } | null>>();
  const task = record?.[source];
  return task ? <TaskChip state={task.state} error={task.error} label={translate(`${states}.${task.state}`)} /> : null;
}

/**
 * Start and stop (each confirmed), and the latest playback device by device, read again whenever
 * the server tells of a change to it over the realtime channel (EMERGENCY_REALTIME: a start, a
 * stop, a device's task), at most a few times a second.
 */
export function PlaybackPanel({ alert }: { alert: EmergencyAlert }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  const dp = useDataProvider<AtriumDataProvider>();
  const refresh = useRefresh();
  const notice = useAlert();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const [confirm, setConfirm] = useState<'start' | 'stop' | null>(null);
  const key = ['emergency', alert.id, 'playback'];
  const playback = useQuery({
    queryKey: key,
    queryFn: async () => (await dp.request<{ data: EmergencyPlayback | null }>(`/${EMERGENCY_API}/${alert.id}/playback`)).data,
  });
  const reread = useMemo(
    () => debounce(() => void queryClient.invalidateQueries({ queryKey: ['emergency', alert.id, 'playback'] }), LIVE_DEBOUNCE_MS),
    [queryClient, alert.id],
  );
  useEffect(() => () => reread.cancel(), [reread]);
  useLiveTopic(EMERGENCY_REALTIME.topic(alert.id), (m) => {
    if (m.event === EMERGENCY_REALTIME.events.playback) reread();
  });
  const act = useMutation({
    mutationFn: async (action: 'start' | 'stop') =>
      (await dp.request<{ data: EmergencyPlayback }>(`/${EMERGENCY_API}/${alert.id}/${action}`, { method: 'POST' })).data,
    onSuccess: (p, action) => {
      queryClient.setQueryData(key, p);
      notice.success(action === 'start' ? 'emergency.playback.started' : 'emergency.playback.stopped');
      refresh();
    },
    onError: (e) => notice.error(e),
    onSettled: () => setConfirm(null),
  });
  const p = playback.data;
  const playing = p ? !p.stopped_at : false;
  const mayPlay = alert.can_play && can('can_playback_emergency_alerts');
  const when = (iso: string) => formatDateTime(iso, locale);
  return (
    <Card variant="outlined" sx={{ m: 2 }} component="section" aria-labelledby="emergency-playback-title">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}>
          <Typography id="emergency-playback-title" variant="h6" component="h2">
            {translate('emergency.playback.title')}
          </Typography>
          {mayPlay ? (
            playing ? (
              <Button
                color="error"
                variant="contained"
                startIcon={<StopIcon />}
                onClick={() => setConfirm('stop')}
                disabled={act.isPending}
              >
                {translate('emergency.playback.stop')}
              </Button>
            ) : (
              <Button
                color="error"
                variant="contained"
                startIcon={<CampaignIcon />}
                onClick={() => setConfirm('start')}
                disabled={act.isPending || !alert.audio_url}
              >
                {translate('emergency.playback.start')}
              </Button>
            )
          ) : null}
        </Stack>
        {!p ? (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
            {translate('emergency.playback.never')}
          </Typography>
        ) : (
          <>
            <Typography variant="body2" sx={{ mt: 1 }} data-testid="emergency-playback-summary" role="status">
              {translate('emergency.playback.summary', {
                played: p.summary.played,
                devices: p.summary.devices,
                failed: p.summary.failed,
                pending: p.summary.pending,
                locks: p.summary.locks_opened,
              })}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {translate('emergency.playback.started_at', { at: when(p.started_at) })}
              {p.stopped_at ? ` · ${translate('emergency.playback.stopped_at', { at: when(p.stopped_at) })}` : ''}
            </Typography>
            <RecordsList
              records={p.devices.map((d) => ({ ...d, id: d.device_id }))}
              resource="emergency-alerts/playback"
              perPage={Math.max(p.devices.length, 1)}
              primary="device_name"
              label={translate('emergency.playback.title')}
            >
              <FunctionField
                source="device_name"
                label="emergency.playback.device"
                render={(d: PlaybackDevice) => (
                  <Box component="span" data-testid={`playback-device-${d.device_id}`}>
                    {d.device_name}
                    <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                      {translate(`devices.types.${d.device_type}`)} ·{' '}
                      {translate(d.online ? 'emergency.playback.online' : 'emergency.playback.offline')}
                    </Typography>
                  </Box>
                )}
              />
              <TaskStateField source="play" label="emergency.playback.sound" sortable={false} states="emergency.playback.states" />
              <FunctionField
                source="locks"
                label="emergency.playback.doors"
                sortable={false}
                render={(d: PlaybackDevice) => (
                  <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap' }}>
                    {d.locks.map((l) => (
                      <TaskChip
                        key={l.task_id}
                        state={l.state}
                        error={l.error}
                        label={`${translate('emergency.playback.lock', { lock: l.lock })}: ${translate(`emergency.playback.door_states.${l.state}`)}`}
                      />
                    ))}
                  </Stack>
                )}
              />
              <TaskStateField source="stop" label="emergency.playback.stop_state" sortable={false} states="devices.tasks.states" />
            </RecordsList>
          </>
        )}
      </CardContent>
      <Confirm
        isOpen={confirm === 'start'}
        title="emergency.playback.start_title"
        content={`${translate('emergency.playback.start_confirm', {
          name: alert.name,
          type: translate(`devices.types.${alert.device_type}`),
          seconds: alert.playback_duration,
        })}${alert.open_locks ? ` ${translate('emergency.playback.start_confirm_doors')}` : ''}`}
        confirm="emergency.playback.start"
        confirmColor="warning"
        loading={act.isPending}
        onConfirm={() => act.mutate('start')}
        onClose={() => setConfirm(null)}
      />
      <Confirm
        isOpen={confirm === 'stop'}
        title="emergency.playback.stop_title"
        content={translate('emergency.playback.stop_confirm', { name: alert.name })}
        confirm="emergency.playback.stop"
        loading={act.isPending}
        onConfirm={() => act.mutate('stop')}
        onClose={() => setConfirm(null)}
      />
    </Card>
  );
}
