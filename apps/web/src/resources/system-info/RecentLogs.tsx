import { LOG_LEVELS, type LogLevel, type SystemLogEntry, type SystemLogs } from '@atrium/contract';
import { Alert, Box, Card, CardContent, Chip, FormControlLabel, MenuItem, Stack, Switch, TextField, Typography } from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { FunctionField, useDataProvider, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { EmptyState } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { RecordsList } from '../../app/kit/RecordsList';

const L = (k: string) => `system_info.logs.${k}`;
const LIVE_MS = 3000;
const LIMITS = [100, 200, 500, 2000] as const;
const COLOR: Record<LogLevel, 'default' | 'info' | 'warning' | 'error'> = {
  trace: 'default',
  debug: 'default',
  info: 'info',
  warn: 'warning',
  error: 'error',
  fatal: 'error',
};

/** A line's other fields, compact: `key=value` pairs, objects as JSON. */
export function formatFields(fields: SystemLogEntry['fields']): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

/** The search text, sent once typing pauses. */
function useSettled(value: string, ms = 400): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Recent logs (spec comms §7 "System: … logs"): this instance's last lines, by level and text, live or paused. */
export function RecentLogs() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const [level, setLevel] = useState<LogLevel | ''>('');
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState<number>(200);
  const [live, setLive] = useState(true);
  const q = useSettled(search.trim());
  const params = new URLSearchParams({ limit: String(limit) });
  if (level) params.set('level', level);
  if (q) params.set('q', q);
  const logs = useQuery({
    queryKey: ['system', 'logs', params.toString()],
    queryFn: async () => (await dp.request<{ data: SystemLogs }>(`/system/logs?${params}`)).data,
    refetchInterval: live ? LIVE_MS : false,
    placeholderData: keepPreviousData,
  });
  // A line is named by its number since the instance started, which stays across refreshes.
  const items = (logs.data?.items ?? []).map((e) => ({ ...e, id: e.seq }));
  return (
    <Card variant="outlined" sx={{ mt: 2 }}>
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ mb: 1, alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
          <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {translate(L('title'))}
          </Typography>
          <TextField
            select
            size="small"
            label={translate(L('level'))}
            value={level}
            onChange={(e) => setLevel(e.target.value as LogLevel | '')}
            sx={{ minWidth: 140 }}
          >
            <MenuItem value="">{translate(L('all_levels'))}</MenuItem>
            {LOG_LEVELS.map((l) => (
              <MenuItem key={l} value={l}>
                {translate(L(`levels.${l}`))}
              </MenuItem>
            ))}
          </TextField>
          <TextField size="small" label={translate(L('search'))} value={search} onChange={(e) => setSearch(e.target.value)} />
          <TextField
            select
            size="small"
            label={translate(L('limit'))}
            value={limit}
            onChange={(e) => setLimit(Number(e.target.value))}
            sx={{ minWidth: 100 }}
          >
            {LIMITS.map((n) => (
              <MenuItem key={n} value={n}>
                {n}
              </MenuItem>
            ))}
          </TextField>
          <FormControlLabel control={<Switch checked={live} onChange={(e) => setLive(e.target.checked)} />} label={translate(L('live'))} />
        </Stack>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {translate(L('hint'), { held: logs.data?.held ?? 0, capacity: logs.data?.capacity ?? 0 })}
        </Typography>
        {logs.isError ? <Alert severity="error">{errorText(logs.error, translate)}</Alert> : null}
        <RecordsList
          records={logs.isPending ? undefined : items}
          loading={logs.isPending}
          resource="system-info/logs"
          perPage={25}
          label={translate(L('title'))}
          empty={<EmptyState text={translate(L('empty'))} />}
        >
          <DateTimeField source="time" label={L('time')} sortable={false} />
          <FunctionField
            source="level"
            label={L('level')}
            sortable={false}
            render={(e: SystemLogEntry) => <Chip size="small" color={COLOR[e.level]} label={translate(L(`levels.${e.level}`))} />}
          />
          <FunctionField
            source="msg"
            label={L('message')}
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(e: SystemLogEntry) => e.msg}
          />
          <FunctionField
            source="fields"
            label={L('details')}
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(e: SystemLogEntry) => (
              <Box component="span" sx={{ fontFamily: 'monospace', fontSize: 12, overflowWrap: 'break-word' }}>
                {e.request_id ? `request=${e.request_id} ` : ''}
                {formatFields(e.fields)}
              </Box>
            )}
          />
        </RecordsList>
      </CardContent>
    </Card>
  );
}
