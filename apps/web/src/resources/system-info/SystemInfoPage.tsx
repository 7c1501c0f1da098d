import {
  type ControllableWorker,
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
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Title, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { RecentLogs } from './RecentLogs';

const REFRESH_MS = 10_000;
const L = (k: string) => `system_info.${k}`;

/** 93784 s → "1d 2h 3m". */
/**
 * The device event intake: what waits to be stored (and so to be acknowledged to its device), how
 * long the oldest has waited, and what was delayed or refused, by reason.
 */
export function DeviceEvents({ events }: { events: SystemInfo['device_events'] }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const n = (v: number) => v.toLocaleString(locale);
  const byReason = (counts: Record<string, number>) => {
    const named = Object.entries(counts).filter(([, v]) => v > 0);
    return named.length
      ? named.map(([reason, v]) => `${translate(L(`device_events.reasons.${reason}`), { _: reason })}: ${n(v)}`).join(', ')
      : n(0);
  };
  return (
    <InfoCard
      title={L('device_events.title')}
      rows={[
        [L('device_events.backlog'), n(events.backlog)],
        [
          L('device_events.oldest'),
          events.backlog ? `${n(Math.round(events.oldest_unstored_ms / 100) / 10)} ${translate(L('seconds'))}` : translate(L('none')),
        ],
        [L('device_events.awaiting_ack'), n(events.awaiting_ack)],
        [L('device_events.stored'), n(events.stored)],
        [L('device_events.acknowledged'), n(events.acknowledged)],
        [L('device_events.delayed'), byReason(events.delayed)],
        [L('device_events.refused'), byReason(events.refused)],
        [L('device_events.unstored_at_stop'), n(events.unstored_at_stop)],
      ]}
    />
  );
}

export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d) return `${d}d ${h}h ${m}m`;
  if (h) return `${h}h ${m}m`;
  return m ? `${m}m ${Math.floor(seconds % 60)}s` : `${Math.floor(seconds)}s`;
}

/** Bytes in MB, one decimal. */
export const formatMb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** One card: a title and label–value rows. */
function InfoCard({ title, rows }: { title: string; rows: [string, ReactNode][] }) {
  const translate = useTranslate();
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate(title)}
        </Typography>
        {rows.map(([label, value]) => (
          <Stack key={label} direction="row" spacing={2} sx={{ py: 0.5, justifyContent: 'space-between' }}>
            <Typography variant="body2" color="text.secondary">
              {translate(label)}
            </Typography>
            <Typography variant="body2" component="div" sx={{ textAlign: 'right', wordBreak: 'break-all' }}>
              {value}
            </Typography>
          </Stack>
        ))}
      </CardContent>
    </Card>
  );
}

function State({ ok, yes = L('yes'), no = L('no') }: { ok: boolean | null; yes?: string; no?: string }) {
  const translate = useTranslate();
  if (ok === null) return <>{translate(L('none'))}</>;
  return <Chip size="small" color={ok ? 'success' : 'default'} label={translate(ok ? yes : no)} />;
}

function Workers({ workers }: { workers: SystemWorker[] }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const mayControl = can(SYSTEM_WORKERS_PERMISSION);
  const act = useMutation({
    mutationFn: ({ name, action }: { name: ControllableWorker; action: WorkerAction }) =>
      dp.request(`/system/workers/${name}/${action}`, { method: 'POST' }),
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
        {/* A table wider than a phone scrolls sideways: reached and scrolled by keyboard too (focusable, named). */}
        <TableContainer tabIndex={0} role="region" aria-label={translate(L('workers.title'))}>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{translate(L('workers.name'))}</TableCell>
                <TableCell>{translate(L('workers.state'))}</TableCell>
                <TableCell>{translate(L('workers.actions'))}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {workers.map((w) => (
                <TableRow key={w.name}>
                  <TableCell>{translate(L(`workers.names.${w.name}`))}</TableCell>
                  <TableCell>
                    <State ok={w.is_running} yes={L('workers.running')} no={L('workers.stopped')} />
                  </TableCell>
                  <TableCell>
                    {w.controllable && mayControl ? (
                      <Stack direction="row" spacing={1}>
                        {(['start', 'stop', 'restart'] as const).map((action) => (
                          <Button
                            key={action}
                            size="small"
                            disabled={act.isPending || (action === 'start' && w.is_running) || (action === 'stop' && !w.is_running)}
                            onClick={() => act.mutate({ name: w.name as ControllableWorker, action })}
                          >
                            {translate(L(`workers.${action}`))}
                          </Button>
                        ))}
                      </Stack>
                    ) : w.controllable ? null : (
                      <Typography variant="body2" color="text.secondary">
                        {translate(L('workers.follows_process'))}
                      </Typography>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      </CardContent>
    </Card>
  );
}

function RouteMetricsTable({ metrics, when }: { metrics: SystemMetrics; when: (iso: string) => string }) {
  const translate = useTranslate();
  const columns = ['method', 'route', 'count', 'client_errors', 'server_errors', 'avg_ms', 'p95_ms', 'max_ms'] as const;
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
        <TableContainer sx={{ maxHeight: 520 }} tabIndex={0} role="region" aria-label={translate(L('metrics.title'))}>
          <Table size="small" stickyHeader>
            <TableHead>
              <TableRow>
                {columns.map((c) => (
                  <TableCell key={c} align={c === 'method' || c === 'route' ? 'left' : 'right'}>
                    {translate(L(`metrics.${c}`))}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {metrics.routes.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={columns.length}>{translate(L('metrics.empty'))}</TableCell>
                </TableRow>
              ) : (
                metrics.routes.map((r) => (
                  <TableRow key={`${r.method} ${r.route}`}>
                    <TableCell>{r.method}</TableCell>
                    <TableCell sx={{ fontFamily: 'monospace' }}>{r.route}</TableCell>
                    <TableCell align="right">{r.count}</TableCell>
                    <TableCell align="right">{r.client_errors}</TableCell>
                    <TableCell align="right" sx={r.server_errors ? { color: 'error.main' } : undefined}>
                      {r.server_errors}
                    </TableCell>
                    <TableCell align="right">{r.avg_ms}</TableCell>
                    <TableCell align="right">{r.p95_ms ?? '>10000'}</TableCell>
                    <TableCell align="right">{r.max_ms}</TableCell>
                  </TableRow>
                ))
              )}
            </TableBody>
          </Table>
        </TableContainer>
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
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(locale) : translate(L('none')));
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
        {translate(L('refreshed'))}
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr', lg: '1fr 1fr 1fr' }, mb: 2 }}>
        <InfoCard
          title={L('server.title')}
          rows={[
            [L('server.version'), s.version],
            [L('server.node_version'), s.node_version],
            [L('server.started_at'), when(s.started_at)],
            [L('server.uptime'), formatUptime(s.uptime_seconds)],
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
            [L('database.latency'), s.database.latency_ms === null ? none : `${s.database.latency_ms} ms`],
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
                  [L('sip.malformed'), s.sip.edge.malformed.toLocaleString(locale)],
                  [L('sip.send_failures'), s.sip.edge.send_failures.toLocaleString(locale)],
                  [L('sip.worker_crashes'), s.sip.edge.worker_crashes.toLocaleString(locale)],
                ] as [string, ReactNode][])
              : []),
          ]}
        />
        <DeviceEvents events={s.device_events} />
        <InfoCard
          title={L('memory.title')}
          rows={[
            [L('memory.rss'), formatMb(s.memory.rss)],
            [L('memory.heap_used'), formatMb(s.memory.heap_used)],
            [L('memory.heap_total'), formatMb(s.memory.heap_total)],
            [L('memory.external'), formatMb(s.memory.external)],
          ]}
        />
        <Workers workers={s.workers} />
      </Box>
      {metrics.data ? <RouteMetricsTable metrics={metrics.data} when={(iso) => when(iso)} /> : null}
      {metrics.isError ? <Alert severity="error">{errorText(metrics.error, translate)}</Alert> : null}
      <RecentLogs />
    </Box>
  );
}
