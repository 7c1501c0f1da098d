import type { LicensePeriodRow, LicenseStatus, LicenseUsedDay } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Stack,
  Tab,
  Tabs,
  TextField,
  Typography,
  useTheme,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FunctionField, Title, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { formatDate } from '../../app/format';
import { downloadFile } from '../../app/kit/download';
import { RecordsList } from '../../app/kit/RecordsList';
import { useAlert } from '../../app/useAlert';
import { chartRange, countTicks, linear, niceMax, periodBar, polyline } from './charts';

const L = (k: string) => `license_reports.${k}`;
/** Spec core §7: licence reports may take up to 5 minutes. */
const REPORT_TIMEOUT_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const STATUS_COLOR: Record<LicenseStatus, 'success' | 'warning' | 'default' | 'info' | 'error'> = {
  active: 'success',
  ending: 'warning',
  disabled: 'default',
  pending: 'info',
  expired: 'error',
};
const SERIES = [
  { key: 'sip', used: 'sip_numbers_used', limit: 'sip_limit' },
  { key: 'mobile_app', used: 'mobile_app_used', limit: 'mobile_app_limit' },
  { key: 'ukey2', used: 'ukey2_used', limit: 'ukey2_limit' },
] as const;

/** A licence type as a person reads it: the project's licence, or a group licence's feature. */
function useTypeText(): (type: string) => string {
  const translate = useTranslate();
  return (type) => translate(L(`types.${type}`), { _: type });
}

function UsedChart({ days }: { days: LicenseUsedDay[] }) {
  const translate = useTranslate();
  const theme = useTheme();
  const colors = [theme.palette.primary.main, theme.palette.success.main, theme.palette.warning.main];
  const W = 720;
  const H = 240;
  const pad = { l: 40, r: 12, t: 12, b: 28 };
  const top = niceMax(Math.max(0, ...days.flatMap((d) => SERIES.flatMap((s) => [d[s.used], d[s.limit] ?? 0]))));
  const x = linear(0, Math.max(1, days.length - 1), pad.l, W - pad.r);
  const y = linear(0, top, H - pad.b, pad.t);
  const ticks = countTicks(top);
  return (
    <Box>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={translate(L('chart_used'))} data-testid="used-chart">
        {ticks.map((v) => (
          <g key={v}>
            <line x1={pad.l} x2={W - pad.r} y1={y(v)} y2={y(v)} stroke={theme.palette.divider} />
            <text x={pad.l - 6} y={y(v) + 4} fontSize="11" textAnchor="end" fill={theme.palette.text.secondary}>
              {v}
            </text>
          </g>
        ))}
        {days.length > 0 &&
          [0, days.length - 1].map((i) => (
            <text key={i} x={x(i)} y={H - 8} fontSize="11" textAnchor={i === 0 ? 'start' : 'end'} fill={theme.palette.text.secondary}>
              {days[i]?.day}
            </text>
          ))}
        {SERIES.map((s, i) => {
          const limits = days.map((d) => d[s.limit]);
          const hasLimit = limits.some((l) => l !== null);
          return (
            <g key={s.key}>
              {hasLimit && (
                <polyline
                  points={polyline(
                    limits.map((l) => l ?? top),
                    x,
                    y,
                  )}
                  fill="none"
                  stroke={colors[i]}
                  strokeDasharray="4 4"
                  strokeWidth={1}
                />
              )}
              <polyline
                points={polyline(
                  days.map((d) => d[s.used]),
                  x,
                  y,
                )}
                fill="none"
                stroke={colors[i]}
                strokeWidth={2}
              />
              {days.length === 1 && <circle cx={x(0)} cy={y(days[0]?.[s.used] ?? 0)} r={3} fill={colors[i]} />}
            </g>
          );
        })}
      </svg>
      <Stack direction="row" spacing={2} sx={{ flexWrap: 'wrap' }}>
        {SERIES.map((s, i) => (
          <Stack key={s.key} direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
            <Box sx={{ width: 12, height: 12, bgcolor: colors[i], borderRadius: 0.5 }} />
            <Typography variant="caption">{translate(L(`series.${s.key}`))}</Typography>
          </Stack>
        ))}
        <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
          <Box sx={{ width: 16, borderTop: `2px dashed ${theme.palette.text.secondary}` }} />
          <Typography variant="caption">{translate(L('limit'))}</Typography>
        </Stack>
      </Stack>
    </Box>
  );
}

function UsedTable({ days }: { days: LicenseUsedDay[] }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const cell = (used: number, limit: number | null) => `${used} (${limit ?? '∞'})`;
  return (
    <RecordsList
      records={[...days].reverse().map((d) => ({ ...d, id: d.day }))}
      resource="reports/licenses/used"
      primary="day"
      label={translate(L('tabs.used'))}
    >
      <FunctionField
        source="day"
        label={L('columns.day')}
        sortable={false}
        render={(d: LicenseUsedDay) => formatDate(d.day, locale, { utc: true })}
      />
      <FunctionField
        source="sip"
        label={L('columns.sip')}
        sortable={false}
        render={(d: LicenseUsedDay) => cell(d.sip_numbers_used, d.sip_limit)}
      />
      <FunctionField
        source="mobile_app"
        label={L('columns.mobile_app')}
        sortable={false}
        render={(d: LicenseUsedDay) => cell(d.mobile_app_used, d.mobile_app_limit)}
      />
      <FunctionField
        source="ukey2"
        label={L('columns.ukey2')}
        sortable={false}
        render={(d: LicenseUsedDay) => cell(d.ukey2_used, d.ukey2_limit)}
      />
    </RecordsList>
  );
}

function PeriodChart({ rows, range }: { rows: LicensePeriodRow[]; range: { from: string; to: string } }) {
  const translate = useTranslate();
  const theme = useTheme();
  const W = 720;
  const rowH = 26;
  const labelW = 200;
  const H = rows.length * rowH + 24;
  const typeText = useTypeText();
  const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
  const r = chartRange(rows, { from: Date.parse(range.from) / 1000, to: Date.parse(range.to) / 1000 + 86_399 });
  const x = linear(r.from, r.to, labelW, W - 8);
  const color: Record<LicenseStatus, string> = {
    active: theme.palette.success.main,
    ending: theme.palette.warning.main,
    disabled: theme.palette.grey[500],
    pending: theme.palette.info.main,
    expired: theme.palette.error.main,
  };
  return (
    <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={translate(L('chart_period'))} data-testid="period-chart">
      {rows.map((row, i) => {
        const bar = periodBar(row, r, x);
        const label = `${row.name} · ${typeText(row.type)}`;
        return (
          <g key={`${row.kind}-${row.id}-${row.type}-${row.from}-${row.to}`}>
            <text x={4} y={i * rowH + 17} fontSize="12" fill={theme.palette.text.primary}>
              {label.length > 30 ? `${label.slice(0, 29)}…` : label}
            </text>
            {bar && <rect x={bar.x} y={i * rowH + 5} width={bar.width} height={rowH - 10} rx={3} fill={color[row.status]} />}
          </g>
        );
      })}
      <text x={labelW} y={H - 6} fontSize="11" fill={theme.palette.text.secondary}>
        {day(r.from)}
      </text>
      <text x={W - 8} y={H - 6} fontSize="11" textAnchor="end" fill={theme.palette.text.secondary}>
        {day(r.to)}
      </text>
    </svg>
  );
}

function PeriodTable({ rows }: { rows: LicensePeriodRow[] }) {
  const translate = useTranslate();
  const typeText = useTypeText();
  const [locale] = useLocaleState();
  const day = (s: number) => (s <= 0 || s >= 999_999_999_999 ? '…' : formatDate(s * 1000, locale, { utc: true }));
  return (
    <RecordsList
      records={rows.map((r) => ({ ...r, key: r.id, id: `${r.kind}-${r.id}-${r.type}-${r.from}-${r.to}` }))}
      resource="reports/licenses/period"
      primary="name"
      label={translate(L('tabs.period'))}
    >
      <FunctionField
        source="kind"
        label={L('columns.kind')}
        sortable={false}
        render={(r: LicensePeriodRow) => translate(L(`kinds.${r.kind}`))}
      />
      <FunctionField source="name" label={L('columns.name')} sortable={false} render={(r: LicensePeriodRow) => r.name} />
      <FunctionField source="type" label={L('columns.type')} sortable={false} render={(r: LicensePeriodRow) => typeText(r.type)} />
      <FunctionField
        source="period"
        label={L('columns.period')}
        sortable={false}
        render={(r: LicensePeriodRow) =>
          r.from <= 0 && r.to >= 999_999_999_999 ? translate(L('unlimited')) : `${day(r.from)} – ${day(r.to)}`
        }
      />
      <FunctionField source="quantity" label={L('columns.quantity')} sortable={false} render={(r: LicensePeriodRow) => r.quantity ?? '∞'} />
      <FunctionField
        source="status"
        label={L('columns.status')}
        sortable={false}
        render={(r: LicensePeriodRow) => <Chip size="small" color={STATUS_COLOR[r.status]} label={translate(L(`statuses.${r.status}`))} />}
      />
    </RecordsList>
  );
}

/** Licence reports (spec comms §2 /reports/licenses): licences used per day and licence periods, charts and xlsx. */
export function LicenseReportsPage() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const [tab, setTab] = useState<'used' | 'period'>('used');
  const [range, setRange] = useState(() => ({ from: isoDay(Date.now() - 29 * DAY_MS), to: isoDay(Date.now()) }));
  const valid = Boolean(range.from && range.to && range.from <= range.to);
  const report = useQuery({
    queryKey: ['reports', 'licenses', tab, range],
    enabled: valid,
    queryFn: async () =>
      (
        await dp.request<{ data: LicenseUsedDay[] | LicensePeriodRow[] }>(`/reports/licenses/${tab}`, {
          query: range,
          timeout: REPORT_TIMEOUT_MS,
        })
      ).data,
  });
  const download = async () => {
    try {
      await downloadFile(`/reports/licenses/${tab}/download`, range, `licenses-${tab}.xlsx`);
    } catch (e) {
      alert.error(e);
    }
  };
  const rows = report.data ?? [];
  return (
    <Box sx={{ p: 2 }}>
      <Title title={translate(L('title'))} />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { sm: 'center' } }}>
        <TextField
          type="date"
          size="small"
          label={translate(L('from'))}
          value={range.from}
          onChange={(e) => setRange((r) => ({ ...r, from: e.target.value }))}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          type="date"
          size="small"
          label={translate(L('to'))}
          value={range.to}
          onChange={(e) => setRange((r) => ({ ...r, to: e.target.value }))}
          slotProps={{ inputLabel: { shrink: true } }}
          error={!valid}
        />
        <Button variant="outlined" startIcon={<DownloadIcon />} onClick={download} disabled={!valid}>
          {translate(L('download'))}
        </Button>
      </Stack>
      <Tabs value={tab} onChange={(_, v) => setTab(v)} sx={{ mb: 2 }}>
        <Tab value="used" label={translate(L('tabs.used'))} />
        <Tab value="period" label={translate(L('tabs.period'))} />
      </Tabs>
      {report.isError && <Alert severity="error">{errorText(report.error, translate)}</Alert>}
      {report.isPending && valid && <CircularProgress aria-label={translate('app.loading')} />}
      {report.isSuccess && !rows.length && <Typography color="text.secondary">{translate(L('empty'))}</Typography>}
      {report.isSuccess && rows.length > 0 && (
        <Card variant="outlined">
          <CardContent>
            {tab === 'used' ? (
              <>
                <UsedChart days={rows as LicenseUsedDay[]} />
                <UsedTable days={rows as LicenseUsedDay[]} />
              </>
            ) : (
              <>
                <PeriodChart rows={rows as LicensePeriodRow[]} range={range} />
                <PeriodTable rows={rows as LicensePeriodRow[]} />
              </>
            )}
          </CardContent>
        </Card>
      )}
    </Box>
  );
}
