import type { Announce } from '@atrium/contract';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import PollIcon from '@mui/icons-material/Poll';
import SendIcon from '@mui/icons-material/Send';
import StopCircleIcon from '@mui/icons-material/StopCircle';
import { Box, Button, Card, CardContent, LinearProgress, Stack, Tooltip, Typography } from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm, useDataProvider, useLocaleState, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { CreatePage, EditPage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { AnnounceForm } from './AnnounceForm';
import { AnnounceStatusChip } from './AnnounceList';
import { percent, toBody } from './poll';
import { ANNOUNCE_ROUTES, ANNOUNCEMENTS_API } from './routes';

const DEFAULTS = {
  type: 'info',
  send_via: 'email',
  body: '',
  use_owner_info: false,
  users: [],
  domains: [],
  execute_at: null,
  type_info: {
    questions: [{ text: '', answers: [{ text: '' }, { text: '' }] }],
    poll_multi_answers_allowed: false,
    poll_user_answer_allowed: false,
  },
};

export function AnnounceCreate() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <ApiRoutes routes={ANNOUNCE_ROUTES}>
      <CreatePage allowed={can('can_create_announces')} title={translate('announces.create_title')} record={DEFAULTS} transform={toBody}>
        <AnnounceForm mode="create" />
      </CreatePage>
    </ApiRoutes>
  );
}

function AnnounceTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Announce>();
  return <span>{record ? translate('announces.edit_title', { name: record.name }) : translate('announces.title')}</span>;
}

type Action = 'start' | 'stop' | 'send-poll';
const LIVE = ['sending', 'scheduled'];

/** Where delivery stands and what may be done next: start, stop, send the poll again, see the responses. */
function DeliveryPanel() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const record = useRecordContext<Announce>();
  const { can } = useSessionData();
  const dp = useDataProvider<AtriumDataProvider>();
  const refresh = useRefresh();
  const alert = useAlert();
  const [asking, setAsking] = useState<Action | null>(null);
  const run = useMutation({
    mutationFn: (action: Action) => dp.request(`/${ANNOUNCEMENTS_API}/${record?.id}/${action}`, { method: 'POST' }),
    onSuccess: (_d, action) => {
      alert.success(action === 'start' ? 'announces.started' : action === 'stop' ? 'announces.stopped' : 'announces.poll_sent');
      setAsking(null);
      refresh();
    },
    onError: (e) => {
      setAsking(null);
      alert.error(e);
    },
  });
  if (!record) return null;
  const s = record.stats;
  const sender = can('can_send_announces') && record.can_send;
  const recipientsText = [...record.users_info.map((u) => u.name), ...record.domains_info.map((g) => g.name)].join(', ');
  const later = record.execute_at && new Date(record.execute_at).getTime() > Date.now();
  const stat = (key: keyof Announce['stats']) => (
    <Box key={key}>
      <Typography variant="h6" component="p" sx={{ fontVariantNumeric: 'tabular-nums' }}>
        {s[key]}
      </Typography>
      <Typography variant="caption" color="text.secondary">
        {translate(`announces.stats.${key}`)}
      </Typography>
    </Box>
  );
  return (
    <Card variant="outlined" sx={{ mb: 2 }} component="section" aria-label={translate('announces.progress')}>
      <CardContent>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ justifyContent: 'space-between', alignItems: { md: 'center' } }}>
          <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
            <AnnounceStatusChip status={record.status} />
            {record.execute_at ? (
              <Typography variant="body2" color="text.secondary">
                {translate('resources.announces.fields.execute_at')}: {formatDateTime(record.execute_at, locale)}
              </Typography>
            ) : null}
          </Stack>
          <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
            {sender && (record.status === 'new' || record.status === 'stopped') ? (
              <Button variant="contained" startIcon={<PlayArrowIcon />} onClick={() => setAsking('start')}>
                {translate('announces.start')}
              </Button>
            ) : null}
            {sender && (record.status === 'scheduled' || record.status === 'sending' || record.status === 'sent') ? (
              <Button variant="outlined" color="error" startIcon={<StopCircleIcon />} onClick={() => setAsking('stop')}>
                {translate('announces.stop')}
              </Button>
            ) : null}
            {sender && record.type === 'poll' && (record.status === 'sending' || record.status === 'sent') ? (
              <Tooltip title={translate('announces.send_poll_hint')}>
                <Button variant="outlined" startIcon={<SendIcon />} onClick={() => run.mutate('send-poll')} disabled={run.isPending}>
                  {translate('announces.send_poll')}
                </Button>
              </Tooltip>
            ) : null}
            {record.type === 'poll' && s.recipients > 0 ? (
              <Button component={Link} to={`/announces/response?announce_id=${record.id}`} startIcon={<PollIcon />}>
                {translate('announces.open_responses')}
              </Button>
            ) : null}
          </Stack>
        </Stack>
        {s.recipients > 0 ? (
          <Box sx={{ mt: 2 }}>
            <LinearProgress
              variant="determinate"
              value={percent(s.delivered, s.recipients)}
              aria-label={translate('announces.progress')}
              sx={{ height: 8, borderRadius: 4, mb: 1.5 }}
            />
            <Stack direction="row" spacing={4} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
              {(['recipients', 'delivered', 'mail_sent', 'mail_failed', 'without_email'] as const).map(stat)}
              {record.type === 'poll' ? stat('answered') : null}
            </Stack>
          </Box>
        ) : null}
      </CardContent>
      <Confirm
        isOpen={asking === 'start'}
        loading={run.isPending}
        title={translate('announces.start_confirm_title')}
        content={translate(later ? 'announces.start_confirm_later' : 'announces.start_confirm', {
          recipients: recipientsText,
          when: record.execute_at ? formatDateTime(record.execute_at, locale) : '',
        })}
        confirm={translate('announces.start')}
        onConfirm={() => run.mutate('start')}
        onClose={() => setAsking(null)}
      />
      <Confirm
        isOpen={asking === 'stop'}
        loading={run.isPending}
        title={translate('announces.stop_confirm_title')}
        content={translate('announces.stop_confirm')}
        confirm={translate('announces.stop')}
        confirmColor="warning"
        onConfirm={() => run.mutate('stop')}
        onClose={() => setAsking(null)}
      />
    </Card>
  );
}

export function AnnounceEdit() {
  return (
    <ApiRoutes routes={ANNOUNCE_ROUTES}>
      <EditPage
        title={<AnnounceTitle />}
        transform={patchTransform(toBody)}
        // While it is being sent, the counts move on by themselves.
        queryOptions={{
          refetchInterval: (q: { state: { data?: unknown } }) =>
            LIVE.includes((q.state.data as Announce | undefined)?.status ?? '') ? 3000 : false,
        }}
      >
        <Box sx={{ px: 2, pt: 2 }}>
          <DeliveryPanel />
        </Box>
        <AnnounceForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
