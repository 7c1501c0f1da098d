import {
  type ControllableWorker,
  type RouteMetric,
  SYSTEM_WORKERS_PERMISSION,
  type SystemInfo,
  type SystemMetrics,
  type SystemWorker,
  type WorkerAction,
} from '@atrium/contract';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  MenuItem,
  TextField as MuiTextField,
  Stack,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { FunctionField, NumberField, Title, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { formatDateTime, formatDuration, formatMegabytes, formatMilliseconds, formatNumber } from '../../app/format';
import { ACTIONS_CELL } from '../../app/kit/ListBody';
import { EmptyState } from '../../app/kit/ListPage';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { Instances } from './Instances';
import { RecentLogs } from './RecentLogs';

const REFRESH_MS = 10_000;
const L = (k: string) => `system_info.${k}`;

/**
 * The device event intake: what waits to be stored (and so to be acknowledged to its device), how
 * long the oldest has waited, and what was delayed or refused, by reason.
 */
export function DeviceEvents({ events }: { events: SystemInfo['device_events'] }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const n = (v: number) => formatNumber(v, locale);
  // Each reason a row of its own under its heading (reason left, count right): in one string, a
  // phone's narrow card broke the list anywhere. Counts of different things (events, connections)
  // are not added up.
  const byReason = (label: string, counts: Record<string, number>): InfoRow => {
    const named = Object.entries(counts).filter(([, v]) => v > 0);
    if (!named.length) return [label, n(0)];
    return [label, null, named.map(([reason, v]) => [translate(L(`device_events.reasons.${reason}`), { _: reason }), n(v)])];
  };
  return (
    <InfoCard
      title={L('device_events.title')}
      rows={[
        [L('device_events.backlog'), n(events.backlog)],
        [L('device_events.oldest'), events.backlog ? formatMilliseconds(events.oldest_unstored_ms, locale) : translate(L('none'))],
        [L('device_events.awaiting_ack'), n(events.awaiting_ack)],
        [L('device_events.stored'), n(events.stored)],
        [L('device_events.acknowledged'), n(events.acknowledged)],
        byReason(L('device_events.delayed'), events.delayed),
        byReason(L('device_events.refused'), events.refused),
        [L('device_events.unstored_at_stop'), n(events.unstored_at_stop)],
      ]}
    />
  );
}

/** A card's row: a label (a message key), its value, and rows under it (labels already translated). */
type InfoRow = [string, ReactNode] | [string, ReactNode, [string, string][]];

/** One card: a title and label–value rows. */
function InfoCard({ title, rows }: { title: string; rows: InfoRow[] }) {
  const translate = useTranslate();
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate(title)}
        </Typography>
        {rows.map(([label, value, sub]) => (
          <Box key={label}>
            <LabelValue label={translate(label)} value={value} />
            {sub?.map(([subLabel, subValue]) => (
              <LabelValue key={subLabel} label={subLabel} value={subValue} indent />
            ))}
          </Box>
        ))}
      </CardContent>
    </Card>
  );
}

function LabelValue({ label, value, indent = false }: { label: string; value: ReactNode; indent?: boolean }) {
  return (
    <Stack direction="row" spacing={2} sx={{ py: 0.5, pl: indent ? 2 : 0, justifyContent: 'space-between' }}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      {/* A value keeps its width (a number never breaks) up to 70 % of the row; a longer one (an
          address) wraps at spaces, and a word too long for the card anywhere. */}
      <Typography variant="body2" component="div" sx={{ textAlign: 'right', flexShrink: 0, maxWidth: '70%', overflowWrap: 'anywhere' }}>
        {value}
      </Typography>
    </Stack>
  );
}

function State({ ok, yes = L('yes'), no = L('no') }: { ok: boolean | null; yes?: string; no?: string }) {
  const translate = useTranslate();
  if (ok === null) return <>{translate(L('none'))}</>;
  return <Chip size="small" color={ok ? 'success' : 'default'} label={translate(ok ? yes : no)} />;
}

/** The workers of one instance (this one first; another chosen when several share the database), with their actions. */
function Workers({ info }: { info: SystemInfo }) {
  const translate = useTranslate();
  const [chosen, choose] = useState(info.instance.id);
  const target = info.instances.find((i) => i.id === chosen && !i.self);
  // An instance that left the list since it was chosen: back to this one.
  const workers = target ? target.workers : info.workers;
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const mayControl = can(SYSTEM_WORKERS_PERMISSION);
  const act = useMutation({
    mutationFn: ({ name, action }: { name: ControllableWorker; action: WorkerAction }) =>
      dp.request(`/system/workers/${name}/${action}${target ? `?instance=${encodeURIComponent(target.id)}` : ''}`, { method: 'POST' }),
    onSuccess: () => {
      alert.done();
      void queryClient.invalidateQueries({ queryKey: ['system', 'info'] });
    },
    onError: (e) => alert.error(e),
  });
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2">
          {translate(L('workers.title'))}
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {translate(L('workers.hint'))}
        </Typography>
        {info.instances.length > 1 ? (
          <MuiTextField
            select
            size="small"
            label={translate(L('instances.choose'))}
            value={target ? target.id : info.instance.id}
            onChange={(e) => choose(e.target.value)}
            sx={{ mb: 1, minWidth: 240 }}
          >
            {info.instances.map((i) => (
              <MenuItem key={i.id} value={i.id}>
                {i.self ? `${i.name} (${translate(L('instances.self'))})` : i.name}
              </MenuItem>
            ))}
          </MuiTextField>
        ) : null}
        <RecordsList
          records={workers.map((w) => ({ ...w, id: w.name }))}
          resource="system-info/workers"
          sort={{ field: 'id', order: 'ASC' }}
        >
          <FunctionField
            source="name"
            label={L('workers.name')}
            sortable={false}
            render={(w: SystemWorker) => translate(L(`workers.names.${w.name}`))}
          />
          <FunctionField
            source="is_running"
            label={L('workers.state')}
            sortable={false}
            render={(w: SystemWorker) => <State ok={w.is_running} yes={L('workers.running')} no={L('workers.stopped')} />}
          />
          <FunctionField
            label={L('workers.actions')}
            sortable={false}
            cellClassName={ACTIONS_CELL}
            render={(w: SystemWorker) =>
              w.controllable && mayControl ? (
                (['start', 'stop', 'restart'] as const).map((action) => (
                  <Button
                    key={action}
                    size="small"
                    disabled={act.isPending || (action === 'start' && w.is_running) || (action === 'stop' && !w.is_running)}
                    onClick={() => act.mutate({ name: w.name as ControllableWorker, action })}
                  >
                    {translate(L(`workers.${action}`))}
                  </Button>
                ))
              ) : w.controllable ? null : (
                <Typography variant="body2" color="text.secondary" component="span">
                  {translate(L('workers.follows_process'))}
                </Typography>
              )
            }
          />
        </RecordsList>
      </CardContent>
    </Card>
  );
}

function RouteMetricsTable({ metrics, when }: { metrics: SystemMetrics; when: (iso: string) => string }) {
  const translate = useTranslate();
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2">
          {translate(L('metrics.title'))}
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {translate(L('metrics.since'), { since: when(metrics.since) })}
        </Typography>
        {metrics.dropped ? (
          <Alert severity="warning" sx={{ mb: 1 }}>
            {translate(L('metrics.dropped'), { smart_count: metrics.dropped })}
          </Alert>
        ) : null}
        <RecordsList
          records={metrics.routes.map((r) => ({ ...r, id: `${r.method} ${r.route}` }))}
          resource="system-info/routes"
          sort={{ field: 'count', order: 'DESC' }}
          primary="route"
          empty={<EmptyState text={translate(L('metrics.empty'))} />}
        >
          <FunctionField source="method" label={L('metrics.method')} render={(r: RouteMetric) => r.method} />
          <FunctionField
            source="route"
            label={L('metrics.route')}
            render={(r: RouteMetric) => (
              <Box component="span" sx={{ fontFamily: 'monospace' }}>
                {r.route}
              </Box>
            )}
          />
          <NumberField source="count" label={L('metrics.count')} />
          <NumberField source="client_errors" label={L('metrics.client_errors')} />
          <FunctionField
            source="server_errors"
            label={L('metrics.server_errors')}
            textAlign="right"
            render={(r: RouteMetric) => (
              <Box component="span" sx={r.server_errors ? { color: 'error.main' } : undefined}>
                {r.server_errors}
              </Box>
            )}
          />
          <NumberField source="avg_ms" label={L('metrics.avg_ms')} />
          <FunctionField source="p95_ms" label={L('metrics.p95_ms')} textAlign="right" render={(r: RouteMetric) => r.p95_ms ?? '>10000'} />
          <NumberField source="max_ms" label={L('metrics.max_ms')} />
        </RecordsList>
      </CardContent>
    </Card>
  );
}

/** System info (spec comms §7): this instance's state, its workers, route metrics and recent logs; refreshed every 10 s (logs live every 3 s). */
export function SystemInfoPage() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const info = useQuery({
    queryKey: ['system', 'info'],
    queryFn: async () => (await dp.request<{ data: SystemInfo }>('/system/info')).data,
    refetchInterval: REFRESH_MS,
  });
  const metrics = useQuery({
    queryKey: ['system', 'metrics'],
    queryFn: async () => (await dp.request<{ data: SystemMetrics }>('/system/metrics')).data,
    refetchInterval: REFRESH_MS,
  });
  const when = (iso: string | null) => (iso ? formatDateTime(iso, locale) : translate(L('none')));
  const title = <Title title={translate(L('title'))} />;
  if (info.isPending) return <CircularProgress aria-label={translate('app.loading')} />;
  if (info.isError)
    return (
      <Box sx={{ p: 2 }}>
        {title}
        <Alert severity="error">{errorText(info.error, translate)}</Alert>
      </Box>
    );
  const s = info.data;
  const none = translate(L('none'));
  return (
    <Box sx={{ p: 2 }}>
      {title}
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {translate(L('refreshed'))} {/* The name is the operator's (INSTANCE_NAME) or the host's: data, not text to translate. */}
        <span data-user-content>{s.instance.name}</span>
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr', lg: '1fr 1fr 1fr' }, mb: 2 }}>
        <InfoCard
          title={L('server.title')}
          rows={[
            [L('server.version'), s.version],
            [L('server.node_version'), s.node_version],
            [L('server.started_at'), when(s.started_at)],
            [L('server.uptime'), formatDuration(s.uptime_seconds, locale)],
          ]}
        />
        <InfoCard
          title={L('database.title')}
          rows={[
            [L('database.kind'), translate(L(`database.kinds.${s.database.kind}`))],
            [
              L('database.status'),
              <State
                key="status"
                ok={s.database.status === 'ok'}
                yes={L('database.statuses.ok')}
                no={L('database.statuses.unavailable')}
              />,
            ],
            [L('database.latency'), s.database.latency_ms === null ? none : formatMilliseconds(s.database.latency_ms, locale)],
            [L('database.change_feed'), <State key="feed" ok={s.database.change_feed_live} />],
          ]}
        />
        <InfoCard
          title={L('mqtt.title')}
          rows={[
            [L('mqtt.mode'), translate(L(`mqtt.modes.${s.mqtt.mode}`))],
            [L('mqtt.address'), s.mqtt.address ?? none],
            [L('mqtt.connected'), <State key="connected" ok={s.mqtt.connected} />],
          ]}
        />
        <InfoCard
          title={L('sip.title')}
          rows={[
            [L('sip.enabled'), <State key="enabled" ok={s.sip.enabled} />],
            [L('sip.running'), <State key="running" ok={s.sip.is_running} />],
            [L('sip.started_at'), when(s.sip.started_at)],
            [L('sip.udp_port'), s.sip.udp_port ?? none],
            [L('sip.ws_port'), s.sip.ws_port ?? none],
            [L('sip.tls_port'), s.sip.tls_port ?? none],
            ...(s.sip.edge
              ? ([
                  [L('sip.malformed'), formatNumber(s.sip.edge.malformed, locale)],
                  [L('sip.send_failures'), formatNumber(s.sip.edge.send_failures, locale)],
                  [L('sip.worker_crashes'), formatNumber(s.sip.edge.worker_crashes, locale)],
                ] as [string, ReactNode][])
              : []),
          ]}
        />
        <DeviceEvents events={s.device_events} />
        <InfoCard
          title={L('memory.title')}
          rows={[
            [L('memory.rss'), formatMegabytes(s.memory.rss, locale)],
            [L('memory.heap_used'), formatMegabytes(s.memory.heap_used, locale)],
            [L('memory.heap_total'), formatMegabytes(s.memory.heap_total, locale)],
            [L('memory.external'), formatMegabytes(s.memory.external, locale)],
          ]}
        />
        {/* A row of its own: the workers' names and their buttons need more than one card's width. */}
        <Box sx={{ gridColumn: '1 / -1', minWidth: 0 }}>
          <Workers info={s} />
        </Box>
      </Box>
      <Box sx={{ mb: 2 }}>
        <Instances instances={s.instances} when={(iso) => when(iso)} />
      </Box>
      {metrics.data ? <RouteMetricsTable metrics={metrics.data} when={(iso) => when(iso)} /> : null}
      {metrics.isError ? <Alert severity="error">{errorText(metrics.error, translate)}</Alert> : null}
      <RecentLogs />
    </Box>
  );
}
