import {
  IP_BLOCKING_EDIT_PERMISSION,
  IP_BLOCKING_LIMITS,
  IP_BLOCKING_SERVICES,
  type IpBan,
  type IpBlockingService,
  type IpBlockingServiceName,
  IpOrRangeSchema,
  type IpWhitelistEntry,
} from '@atrium/contract';
import { Alert, Box, Button, Card, CardContent, CircularProgress, MenuItem, Stack, Switch, TextField, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Confirm, FunctionField, Title, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { formatDateTime, formatNumber } from '../../app/format';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { EllipsisField, EmptyState } from '../../app/kit/ListPage';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const L = (k: string) => `ip_blocking.${k}`;
const REFRESH_MS = 10_000;
const KEY = ['ip-blocking'] as const;

/** The addresses typed in the whitelist field: split on commas, spaces and new lines; the invalid ones apart. */
export function parseAddresses(text: string): { ips: string[]; invalid: string[] } {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  return {
    ips: parts.filter((p) => IpOrRangeSchema.safeParse(p).success),
    invalid: parts.filter((p) => !IpOrRangeSchema.safeParse(p).success),
  };
}

type Rule = Pick<IpBlockingService, 'name' | 'is_enabled' | 'max_failures' | 'window_seconds' | 'ban_seconds'>;
const ruleOf = ({ name, is_enabled, max_failures, window_seconds, ban_seconds }: IpBlockingService): Rule => ({
  name,
  is_enabled,
  max_failures,
  window_seconds,
  ban_seconds,
});

/** Status: each service on or off with its rule, and how many addresses it bans and exempts. */
export function Services({ services, mayEdit }: { services: IpBlockingService[]; mayEdit: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Rule[]>(() => services.map(ruleOf));
  useEffect(() => setDraft(services.map(ruleOf)), [services]);
  const save = useMutation({
    mutationFn: (data: Rule[]) => dp.request('/ip-blocking/status', { method: 'POST', body: { data } }),
    onSuccess: () => {
      alert.done();
      void queryClient.invalidateQueries({ queryKey: KEY });
    },
    onError: (e) => alert.error(e),
  });
  const rows = useMemo(() => services.map((s) => ({ ...s, id: s.name })), [services]);
  const rule = (name: string): Rule => draft.find((r) => r.name === name) ?? ruleOf(services.find((s) => s.name === name)!);
  const set = (name: string, patch: Partial<Rule>) => setDraft((d) => d.map((r) => (r.name === name ? { ...r, ...patch } : r)));
  const minutes = (name: string, field: 'window_seconds' | 'ban_seconds', value: number) => (
    <TextField
      size="small"
      type="number"
      value={Math.round(value / 60)}
      disabled={!mayEdit}
      slotProps={{
        htmlInput: {
          min: Math.ceil(IP_BLOCKING_LIMITS[field].min / 60),
          max: Math.floor(IP_BLOCKING_LIMITS[field].max / 60),
          'aria-label': `${translate(L(`services.names.${name}`))}: ${translate(L(field === 'window_seconds' ? 'services.window_minutes' : 'services.ban_minutes'))}`,
        },
      }}
      onChange={(e) => set(name, { [field]: Math.max(1, Number(e.target.value) || 1) * 60 })}
      sx={{ width: 110 }}
    />
  );
  const changed = draft.some((r) => {
    const s = services.find((x) => x.name === r.name);
    return (
      !s ||
      r.is_enabled !== s.is_enabled ||
      r.max_failures !== s.max_failures ||
      r.window_seconds !== s.window_seconds ||
      r.ban_seconds !== s.ban_seconds
    );
  });
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2">
          {translate(L('services.title'))}
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {translate(L('services.hint'))}
        </Typography>
        <RecordsList
          // The rows are the services; each cell reads the draft (the list copies its records a render late).
          records={rows}
          resource="ip-blocking/services"
          primary="name"
          label={translate(L('services.title'))}
        >
          <FunctionField
            source="name"
            label={L('services.service')}
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(r: IpBlockingService) => (
              <>
                <Typography variant="body2">{translate(L(`services.names.${r.name}`))}</Typography>
                <Typography variant="caption" color="text.secondary">
                  {translate(L(`services.descriptions.${r.name}`))}
                </Typography>
              </>
            )}
          />
          <FunctionField
            source="is_enabled"
            label={L('services.enabled')}
            sortable={false}
            render={({ name }: IpBlockingService) => (
              <Switch
                checked={rule(name).is_enabled}
                disabled={!mayEdit}
                onChange={(e) => set(name, { is_enabled: e.target.checked })}
                slotProps={{ input: { 'aria-label': `${translate(L(`services.names.${name}`))}: ${translate(L('services.enabled'))}` } }}
              />
            )}
          />
          <FunctionField
            source="max_failures"
            label={L('services.max_failures')}
            sortable={false}
            render={({ name }: IpBlockingService) => (
              <TextField
                size="small"
                type="number"
                value={rule(name).max_failures}
                disabled={!mayEdit}
                slotProps={{
                  htmlInput: {
                    min: IP_BLOCKING_LIMITS.max_failures.min,
                    max: IP_BLOCKING_LIMITS.max_failures.max,
                    'aria-label': `${translate(L(`services.names.${name}`))}: ${translate(L('services.max_failures'))}`,
                  },
                }}
                onChange={(e) => set(name, { max_failures: Math.max(1, Number(e.target.value) || 1) })}
                sx={{ width: 100 }}
              />
            )}
          />
          <FunctionField
            source="window_seconds"
            label={L('services.window_minutes')}
            sortable={false}
            render={({ name }: IpBlockingService) => minutes(name, 'window_seconds', rule(name).window_seconds)}
          />
          <FunctionField
            source="ban_seconds"
            label={L('services.ban_minutes')}
            sortable={false}
            render={({ name }: IpBlockingService) => minutes(name, 'ban_seconds', rule(name).ban_seconds)}
          />
          <FunctionField
            source="banned_count"
            label={L('services.banned')}
            sortable={false}
            render={(r: IpBlockingService) => formatNumber(r.banned_count, locale)}
          />
          <FunctionField
            source="whitelist_count"
            label={L('services.whitelisted')}
            sortable={false}
            render={(r: IpBlockingService) => formatNumber(r.whitelist_count, locale)}
          />
        </RecordsList>
        {mayEdit ? (
          <Box sx={{ mt: 1 }}>
            <Button variant="contained" disabled={!changed || save.isPending} onClick={() => save.mutate(draft)}>
              {translate(L('services.save'))}
            </Button>
          </Box>
        ) : null}
      </CardContent>
    </Card>
  );
}

function ServiceSelect({ value, onChange, all, label }: { value: string; onChange: (v: string) => void; all?: boolean; label: string }) {
  const translate = useTranslate();
  return (
    <TextField
      select
      size="small"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      // The empty value is "all services": shown, not left blank under the label.
      slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      sx={{ minWidth: 200 }}
    >
      {all ? <MenuItem value="">{translate(L('banned.all_services'))}</MenuItem> : null}
      {IP_BLOCKING_SERVICES.map((s) => (
        <MenuItem key={s} value={s}>
          {translate(L(`services.names.${s}`))}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** Banned list: filter by service and address, unban one or all. */
function Banned({ mayEdit, when }: { mayEdit: boolean; when: (iso: string) => string }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [service, setService] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(20);
  const [confirming, setConfirming] = useState(false);
  const params = new URLSearchParams({ page: String(page + 1), size: String(size) });
  if (service) params.set('service', service);
  if (q.trim()) params.set('q', q.trim());
  const bans = useQuery({
    queryKey: [...KEY, 'banned', params.toString()],
    queryFn: () => dp.request<{ data: IpBan[]; meta: { total: number } }>(`/ip-blocking/banned?${params}`),
    refetchInterval: REFRESH_MS,
  });
  const done = () => {
    alert.done();
    void queryClient.invalidateQueries({ queryKey: KEY });
  };
  const unban = useMutation({
    mutationFn: (b: IpBan) => dp.request(`/ip-blocking/${b.service}/unban`, { method: 'POST', body: { ips: [b.ip] } }),
    onSuccess: done,
    onError: (e) => alert.error(e),
  });
  const unbanAll = useMutation({
    mutationFn: () => dp.request('/ip-blocking/unban-all', { method: 'POST', body: service ? { service } : {} }),
    onSuccess: () => {
      setConfirming(false);
      done();
    },
    onError: (e) => alert.error(e),
  });
  const rows = bans.data?.data ?? [];
  return (
    <Card variant="outlined">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ mb: 1, alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
          <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {translate(L('banned.title'))}
          </Typography>
          <ServiceSelect
            label={translate(L('banned.service'))}
            value={service}
            all
            onChange={(v) => {
              setService(v);
              setPage(0);
            }}
          />
          <TextField
            size="small"
            label={translate(L('banned.search'))}
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              setPage(0);
            }}
          />
          {mayEdit ? (
            <Button color="error" variant="outlined" disabled={!rows.length} onClick={() => setConfirming(true)}>
              {translate(L('banned.unban_all'))}
            </Button>
          ) : null}
        </Stack>
        {bans.isError ? <Alert severity="error">{errorText(bans.error, translate)}</Alert> : null}
        <RecordsList
          records={bans.data?.data.map((b) => ({ ...b, id: `${b.service} ${b.ip}` }))}
          loading={bans.isPending}
          resource="ip-blocking/banned"
          serverPaging={{
            total: bans.data?.meta.total ?? 0,
            page: page + 1,
            perPage: size,
            perPageOptions: [20, 50, 100],
            onChange: (p, n) => {
              setPage(p - 1);
              setSize(n);
            },
          }}
          primary="ip"
          label={translate(L('banned.title'))}
          empty={<EmptyState text={translate(L('banned.empty'))} />}
        >
          <FunctionField source="ip" label={L('banned.ip')} sortable={false} render={(b: IpBan) => <Mono>{b.ip}</Mono>} />
          <FunctionField
            source="service"
            label={L('banned.service')}
            sortable={false}
            render={(b: IpBan) => translate(L(`services.names.${b.service}`))}
          />
          <FunctionField
            source="cause"
            label={L('banned.cause')}
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(b: IpBan) => (
              <>
                <Typography variant="body2">{translate(L(`banned.causes.${b.cause}`))}</Typography>
                <Typography variant="caption" color="text.secondary">
                  {translate(L('banned.failures'), { failures: b.info.failures, minutes: Math.round(b.info.window_seconds / 60) })}
                </Typography>
              </>
            )}
          />
          <EllipsisField
            source="last_attempt"
            label={L('banned.last_attempt')}
            sortable={false}
            render={(b) => (b as unknown as IpBan).info.last_attempt}
          />
          <FunctionField source="banned_at" label={L('banned.banned_at')} sortable={false} render={(b: IpBan) => when(b.banned_at)} />
          <FunctionField source="expires_at" label={L('banned.expires_at')} sortable={false} render={(b: IpBan) => when(b.expires_at)} />
          {mayEdit ? (
            <FunctionField
              label="form.actions"
              render={(b: IpBan) => (
                <Button size="small" disabled={unban.isPending} onClick={() => unban.mutate(b)}>
                  {translate(L('banned.unban'))}
                </Button>
              )}
            />
          ) : null}
        </RecordsList>
        <Confirm
          isOpen={confirming}
          loading={unbanAll.isPending}
          title={translate(L('banned.unban_all_title'))}
          content={translate(L('banned.unban_all_content'))}
          onConfirm={() => unbanAll.mutate()}
          onClose={() => setConfirming(false)}
        />
      </CardContent>
    </Card>
  );
}

/** An address as typed, in a fixed-width font. */
const Mono = ({ children }: { children: string }) => (
  <Box component="span" sx={{ fontFamily: 'monospace' }}>
    {children}
  </Box>
);

/** Whitelist: add addresses and ranges to a service, remove them. */
function Whitelist({ mayEdit, when }: { mayEdit: boolean; when: (iso: string) => string }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState('');
  const [service, setService] = useState<IpBlockingServiceName>('console');
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState<string[]>([]);
  const list = useQuery({
    queryKey: [...KEY, 'whitelist', filter],
    queryFn: () => dp.request<{ data: IpWhitelistEntry[] }>(`/ip-blocking/whitelist${filter ? `?service=${filter}` : ''}`),
  });
  const done = () => {
    alert.done();
    void queryClient.invalidateQueries({ queryKey: KEY });
  };
  const add = useMutation({
    mutationFn: (ips: string[]) => dp.request(`/ip-blocking/${service}/whitelist`, { method: 'POST', body: { ips } }),
    onSuccess: () => {
      setText('');
      done();
    },
    onError: (e) => alert.error(e),
  });
  const remove = useMutation({
    mutationFn: (e: IpWhitelistEntry) =>
      dp.request(`/ip-blocking/${e.service}/whitelist/delete`, { method: 'POST', body: { ips: [e.ip] } }),
    onSuccess: done,
    onError: (e) => alert.error(e),
  });
  const submit = () => {
    const parsed = parseAddresses(text);
    setInvalid(parsed.invalid);
    if (!parsed.invalid.length && parsed.ips.length) add.mutate(parsed.ips);
  };
  return (
    <Card variant="outlined">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ mb: 1, alignItems: 'center' }}>
          <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {translate(L('whitelist.title'))}
          </Typography>
          <ServiceSelect label={translate(L('whitelist.service'))} value={filter} all onChange={setFilter} />
        </Stack>
        {mayEdit ? (
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { md: 'flex-start' } }}>
            <ServiceSelect
              label={translate(L('whitelist.service'))}
              value={service}
              onChange={(v) => setService(v as IpBlockingServiceName)}
            />
            <TextField
              size="small"
              multiline
              minRows={1}
              maxRows={4}
              label={translate(L('whitelist.addresses'))}
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setInvalid([]);
              }}
              error={invalid.length > 0}
              helperText={
                invalid.length ? translate(L('whitelist.invalid'), { value: invalid.join(', ') }) : translate(L('whitelist.hint'))
              }
              sx={{ flexGrow: 1 }}
            />
            <Button variant="contained" disabled={!text.trim() || add.isPending} onClick={submit}>
              {translate(L('whitelist.add'))}
            </Button>
          </Stack>
        ) : null}
        <RecordsList
          records={list.data?.data.map((e) => ({ ...e, id: `${e.service} ${e.ip}` }))}
          loading={list.isPending}
          resource="ip-blocking/whitelist"
          primary="ip"
          label={translate(L('whitelist.title'))}
          empty={<EmptyState text={translate(L('whitelist.empty'))} />}
        >
          <FunctionField source="ip" label={L('whitelist.ip')} render={(e: IpWhitelistEntry) => <Mono>{e.ip}</Mono>} />
          <FunctionField
            source="service"
            label={L('whitelist.service')}
            render={(e: IpWhitelistEntry) => translate(L(`services.names.${e.service}`))}
          />
          <FunctionField source="created_at" label={L('whitelist.created_at')} render={(e: IpWhitelistEntry) => when(e.created_at)} />
          {mayEdit ? (
            <FunctionField
              label="form.actions"
              render={(e: IpWhitelistEntry) => (
                <Button size="small" color="error" disabled={remove.isPending} onClick={() => remove.mutate(e)}>
                  {translate(L('whitelist.remove'))}
                </Button>
              )}
            />
          ) : null}
        </RecordsList>
      </CardContent>
    </Card>
  );
}

/** IP blocking (spec comms §2, §3, §7): status, banned list, whitelist. */
export function IpBlockingPage() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const { can } = useSessionData();
  const mayEdit = can(IP_BLOCKING_EDIT_PERMISSION);
  const status = useQuery({
    queryKey: [...KEY, 'status'],
    queryFn: async () => (await dp.request<{ data: IpBlockingService[] }>('/ip-blocking/status')).data,
    refetchInterval: REFRESH_MS,
  });
  const when = (iso: string) => formatDateTime(iso, locale);
  const title = <Title title={translate(L('title'))} />;
  if (status.isPending) return <CircularProgress aria-label={translate('app.loading')} />;
  if (status.isError)
    return (
      <Box sx={{ p: 2 }}>
        {title}
        <Alert severity="error">{errorText(status.error, translate)}</Alert>
      </Box>
    );
  return (
    <Box sx={{ p: 2, display: 'grid', gap: 2 }}>
      {title}
      <Typography variant="body2" color="text.secondary">
        {translate(L('intro'))}
      </Typography>
      <Services services={status.data} mayEdit={mayEdit} />
      <Banned mayEdit={mayEdit} when={when} />
      <Whitelist mayEdit={mayEdit} when={when} />
    </Box>
  );
}
