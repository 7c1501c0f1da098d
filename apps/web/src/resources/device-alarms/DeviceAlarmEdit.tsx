import {
  ALARM_COMMENT_MAX,
  ALARM_REALTIME,
  type DeviceAlarm,
  type DeviceAlarmChanged,
  type DeviceAlarmLog,
  ProcessAlarmBodySchema,
} from '@atrium/contract';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import DeleteIcon from '@mui/icons-material/Delete';
import NotificationsActiveIcon from '@mui/icons-material/NotificationsActive';
import NotificationsOffIcon from '@mui/icons-material/NotificationsOff';
import ReplayIcon from '@mui/icons-material/Replay';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { useDataProvider, useLocaleState, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { Link, useNavigate } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { EditPage } from '../../app/kit/RecordPage';
import { useLiveTopic } from '../../app/live';
import { useAlert } from '../../app/useAlert';
import { AlarmStatusChip, DEVICE_ALARM_ROUTES, DEVICE_ALARMS } from './DeviceAlarmList';
import { alarmTitle, kindText, logInfo, logText } from './transform';

const LOG_ICONS = {
  enabled: <NotificationsActiveIcon color="error" fontSize="small" />,
  repeated: <ReplayIcon color="error" fontSize="small" />,
  disabled: <NotificationsOffIcon color="warning" fontSize="small" />,
  processed: <CheckCircleIcon color="success" fontSize="small" />,
} as const;

function useWhen() {
  const [locale] = useLocaleState();
  return (iso: string | null) => (iso ? formatDateTime(iso, locale) : '—');
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: '180px 1fr', gap: 1, py: 0.5 }}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography variant="body2" component="div">
        {children}
      </Typography>
    </Box>
  );
}

/** The log as a timeline, oldest first: what the device did, and who processed it with what comment. */
function AlarmLog({ alarm }: { alarm: DeviceAlarm }) {
  const translate = useTranslate();
  const when = useWhen();
  const dp = useDataProvider<AtriumDataProvider>();
  const { data: logs, isPending } = useQuery({
    queryKey: ['device-alarm-logs', alarm.id, alarm.updated_at],
    queryFn: async ({ signal }) => (await dp.request<{ data: DeviceAlarmLog[] }>(`/alarms/${alarm.id}/logs`, { signal })).data,
  });
  return (
    <Card variant="outlined" component="section" aria-labelledby="alarm-log-title">
      <CardContent>
        <Typography id="alarm-log-title" variant="h6" component="h2" gutterBottom>
          {translate('device_alarms.log')}
        </Typography>
        {isPending ? null : !logs?.length ? (
          <Typography color="text.secondary">{translate('device_alarms.log_empty')}</Typography>
        ) : (
          <Box component="ol" aria-label={translate('device_alarms.log')} sx={{ listStyle: 'none', m: 0, p: 0 }}>
            {logs.map((l, i) => (
              <Box
                component="li"
                key={l.id}
                sx={{
                  display: 'grid',
                  gridTemplateColumns: '28px 1fr',
                  columnGap: 1,
                  position: 'relative',
                  pb: i < logs.length - 1 ? 2 : 0,
                }}
              >
                <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center' }}>
                  {LOG_ICONS[l.event]}
                  {i < logs.length - 1 ? <Box sx={{ flex: 1, width: 2, bgcolor: 'divider', mt: 0.5 }} /> : null}
                </Box>
                <Box>
                  <Typography variant="body2" sx={{ fontWeight: 500 }}>
                    {logText(l, translate)}
                  </Typography>
                  <Typography variant="caption" color="text.secondary" component="p">
                    {[when(l.created_at), logInfo(l.info)].filter(Boolean).join(' · ')}
                  </Typography>
                  {l.comment ? (
                    <Typography variant="body2" sx={{ mt: 0.5, whiteSpace: 'pre-wrap', borderLeft: 3, borderColor: 'divider', pl: 1 }}>
                      {l.comment}
                    </Typography>
                  ) : null}
                </Box>
              </Box>
            ))}
          </Box>
        )}
      </CardContent>
    </Card>
  );
}

/** Processing: a comment, required; or, once processed, who did it and what they wrote. */
function Processing({ alarm }: { alarm: DeviceAlarm }) {
  const translate = useTranslate();
  const when = useWhen();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const [comment, setComment] = useState('');
  const [touched, setTouched] = useState(false);
  const id = useId();
  const check = ProcessAlarmBodySchema.safeParse({ comment });
  const process = useMutation({
    mutationFn: () => dp.request(`/alarms/${alarm.id}/process`, { method: 'POST', body: { comment: comment.trim() } }),
    onSuccess: () => {
      alert.success('device_alarms.processed_done');
      setComment('');
      setTouched(false);
      refresh();
    },
    onError: (e) => alert.error(e),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (check.success) process.mutate();
  };
  return (
    <Card variant="outlined" component="section" aria-labelledby={`${id}-title`}>
      <CardContent>
        <Typography id={`${id}-title`} variant="h6" component="h2" gutterBottom>
          {translate('device_alarms.processing')}
        </Typography>
        {alarm.processed_at ? (
          <>
            <Alert severity="success" variant="outlined" sx={{ mb: 1 }}>
              {translate('device_alarms.processed_by', { user: alarm.processed_by?.name || '—', at: when(alarm.processed_at) })}
            </Alert>
            <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }} data-testid="alarm-comment">
              {alarm.comment}
            </Typography>
          </>
        ) : alarm.can_process ? (
          <Box component="form" onSubmit={submit} noValidate>
            <TextField
              label={translate('device_alarms.comment')}
              value={comment}
              onChange={(e) => setComment(e.target.value)}
              onBlur={() => setTouched(true)}
              required
              multiline
              minRows={3}
              fullWidth
              error={touched && !check.success}
              helperText={
                touched && !check.success
                  ? translate(comment.trim() ? 'validation.max_length' : 'validation.required', { length: ALARM_COMMENT_MAX })
                  : translate('device_alarms.comment_hint')
              }
              slotProps={{ htmlInput: { maxLength: ALARM_COMMENT_MAX + 1 } }}
            />
            <Button type="submit" variant="contained" sx={{ mt: 1 }} disabled={process.isPending} startIcon={<CheckCircleIcon />}>
              {translate('device_alarms.process')}
            </Button>
          </Box>
        ) : (
          <Alert severity="info" variant="outlined">
            {translate('device_alarms.cannot_process')}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}

function DeleteAlarm({ alarm }: { alarm: DeviceAlarm }) {
  const translate = useTranslate();
  const alert = useAlert();
  const navigate = useNavigate();
  const dp = useDataProvider<AtriumDataProvider>();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => dp.request(`/alarms/${alarm.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      alert.success('device_alarms.deleted');
      navigate(`/${DEVICE_ALARMS}`);
    },
    onError: (e) => {
      setOpen(false);
      alert.error(e);
    },
  });
  if (!alarm.can_delete) return null;
  return (
    <>
      <Button color="error" startIcon={<DeleteIcon />} onClick={() => setOpen(true)}>
        {translate('device_alarms.delete')}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="alarm-delete-title">
        <DialogTitle id="alarm-delete-title">{translate('device_alarms.delete_title')}</DialogTitle>
        <DialogContent>{translate('device_alarms.delete_confirm', { id: alarm.id })}</DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={remove.isPending}>
            {translate('form.cancel')}
          </Button>
          <Button color="error" variant="contained" onClick={() => remove.mutate()} disabled={remove.isPending}>
            {translate('form.approve')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

function AlarmView() {
  const translate = useTranslate();
  const when = useWhen();
  const refresh = useRefresh();
  const alarm = useRecordContext<DeviceAlarm>();
  // The device clearing it, or someone else processing it, shows at once.
  useLiveTopic(ALARM_REALTIME.topic, (m) => {
    if (alarm && (m.data as DeviceAlarmChanged | null)?.id === alarm.id) refresh();
  });
  if (!alarm) return null;
  return (
    <Box sx={{ p: 2 }}>
      <Stack direction="row" spacing={1} sx={{ mb: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <Button component={Link} to={`/${DEVICE_ALARMS}`} startIcon={<ArrowBackIcon />}>
          {translate('device_alarms.back')}
        </Button>
        <Box sx={{ flex: 1 }} />
        <DeleteAlarm alarm={alarm} />
      </Stack>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '3fr 2fr' }, gap: 2, alignItems: 'start' }}>
        <Stack spacing={2}>
          <Card variant="outlined" component="section" aria-labelledby="alarm-details-title">
            <CardContent>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
                <Typography id="alarm-details-title" variant="h6" component="h2">
                  {alarmTitle(alarm, translate)}
                </Typography>
                <AlarmStatusChip />
              </Stack>
              <Row label={translate('device_alarms.device')}>
                <Link to={`/devices/${alarm.device_id}`}>{alarm.device_name}</Link>
              </Row>
              <Row label={translate('device_alarms.group')}>{alarm.domain_name ?? '—'}</Row>
              <Row label={translate('resources.devices/alarms.fields.kind')}>{kindText(alarm.kind, translate)}</Row>
              <Row label={translate('device_alarms.zone')}>{alarm.zone ?? '—'}</Row>
              <Row label={translate('device_alarms.raised_at')}>{when(alarm.raised_at)}</Row>
              <Row label={translate('device_alarms.cleared_at')}>
                {alarm.is_active ? translate('device_alarms.still_on') : when(alarm.cleared_at)}
              </Row>
            </CardContent>
          </Card>
          <Processing alarm={alarm} />
        </Stack>
        <AlarmLog alarm={alarm} />
      </Box>
    </Box>
  );
}

function AlarmTitle() {
  const translate = useTranslate();
  const a = useRecordContext<DeviceAlarm>();
  return (
    <span>
      {a
        ? translate('device_alarms.edit_title', { id: a.id, kind: kindText(a.kind, translate), device: a.device_name })
        : translate('device_alarms.title')}
    </span>
  );
}

/** /devices/alarms/:id/edit: the alarm, its processing with a comment, and its log. */
export function DeviceAlarmEdit() {
  return (
    <ApiRoutes routes={DEVICE_ALARM_ROUTES}>
      <EditPage title={<AlarmTitle />} actions={false} component="div">
        <AlarmView />
      </EditPage>
    </ApiRoutes>
  );
}
