import { DEVICE_REALTIME, DEVICE_TASK_STATES, DEVICE_TYPES, type DeviceTaskState } from '@atrium/contract';
import { Chip } from '@mui/material';
import { useMemo } from 'react';
import { useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { useLiveTopic } from '../../app/live';
import { debounce } from '../../app/realtime';

export const typeChoices = DEVICE_TYPES.map((id) => ({ id, name: `devices.types.${id}` }));
export const stateChoices = DEVICE_TASK_STATES.map((id) => ({ id, name: `devices.tasks.states.${id}` }));

/** Refreshes the page's data when its live topic says something changed (at most twice a second). */
export function useLiveRefresh(topic: string): void {
  const refresh = useRefresh();
  const later = useMemo(() => debounce(refresh, 500), [refresh]);
  useLiveTopic(topic, later);
}

/** The live online/offline status of a device row. */
export function OnlineField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const record = useRecordContext<{ online: boolean; last_seen_at: string | null }>();
  if (!record) return null;
  const title = record.last_seen_at ? new Date(record.last_seen_at).toLocaleString() : translate('devices.never_seen');
  return (
    <Chip
      size="small"
      title={title}
      color={record.online ? 'success' : 'default'}
      variant={record.online ? 'filled' : 'outlined'}
      label={translate(record.online ? 'devices.online' : 'devices.offline')}
    />
  );
}

const STATE_COLOURS: Record<DeviceTaskState, 'default' | 'info' | 'success' | 'error' | 'warning'> = {
  new: 'default',
  queued: 'info',
  started: 'info',
  waiting: 'warning',
  stopped: 'default',
  error: 'error',
  completed: 'success',
};

export function TaskStateField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const record = useRecordContext<{ state: DeviceTaskState }>();
  if (!record) return null;
  return <Chip size="small" color={STATE_COLOURS[record.state]} label={translate(`devices.tasks.states.${record.state}`)} />;
}

export const DEVICE_TOPICS = { status: DEVICE_REALTIME.statusTopic, tasks: DEVICE_REALTIME.tasksTopic };
