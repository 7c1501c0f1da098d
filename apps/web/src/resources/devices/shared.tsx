import { DEVICE_REALTIME, DEVICE_TASK_STATES, DEVICE_TYPES, type DeviceTaskState } from '@atrium/contract';
import { Chip } from '@mui/material';
import { useRecordContext, useTranslate } from 'react-admin';
import { formatDateTime, useFormat } from '../../app/format';
import { useLiveRefresh } from '../../app/live';

export const typeChoices = DEVICE_TYPES.map((id) => ({ id, name: `devices.types.${id}` }));
export const stateChoices = DEVICE_TASK_STATES.map((id) => ({ id, name: `devices.tasks.states.${id}` }));

export { useLiveRefresh };

/** The live online/offline status of a device row. */
export function OnlineField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  const record = useRecordContext<{ online: boolean; last_seen_at: string | null }>();
  if (!record) return null;
  const title = record.last_seen_at ? formatDateTime(record.last_seen_at, locale) : translate('devices.never_seen');
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
