import {
  type AxxonCamera,
  type AxxonMacro,
  DOMAIN_SEARCH_MIN_LENGTH,
  INTEGRATION_TRIGGER_EVENTS,
  type Integration,
  type IntegrationAvailability,
  type IntegrationTriggerEvent,
} from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Checkbox,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  FormControlLabel,
  IconButton,
  List,
  ListItem,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm, FunctionField, useDataProvider, useRecordContext, useTranslate } from 'react-admin';
import { Link as RouterLink, useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { ACTIONS_CELL, PROSE_CELL } from '../../app/kit/ListBody';
import { BulkDeleteWithConfirm, EllipsisField, EmptyState } from '../../app/kit/ListPage';
import { RecordsList, RecordsListPage } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const L = (k: string) => `integrations.${k}`;
const KEY = ['integrations'] as const;

interface Option {
  id: number;
  name: string;
}

/** Who may open the page: the server's rule (modules/integrations), read side. */
export const INTEGRATIONS_PERMISSIONS = [
  'can_view_project_settings',
  'can_change_project_settings',
  'can_edit_all_domains',
  'can_edit_descendant_domains',
  'can_manage_self_domain_integrations',
] as const;

let nextRuleKey = 0;

interface RuleDraft {
  /** A key of the row while it is edited (rules have no id of their own). */
  key: number;
  event: IntegrationTriggerEvent;
  macro_id: string;
  macro_name: string | null;
  devices: Option[];
}

interface Draft {
  name: string;
  group: Option | null;
  /** Further groups served. */
  domains: Option[];
  url: string;
  user: string;
  password: string;
  certificate: File | null;
  removeCertificate: boolean;
  rules: RuleDraft[];
}

const emptyDraft = (): Draft => ({
  name: '',
  group: null,
  domains: [],
  url: '',
  user: '',
  password: '',
  certificate: null,
  removeCertificate: false,
  rules: [],
});

/** The multipart body of a create or update: the JSON payload and the certificate file, if one was chosen. */
export function integrationFormData(payload: unknown, certificate: File | null): FormData {
  const fd = new FormData();
  fd.append('payload', JSON.stringify(payload));
  if (certificate) fd.append('certificate', certificate);
  return fd;
}

/** The payload of a draft: on update, an empty password keeps the stored one (sent as null). */
export function integrationPayload(d: Draft, editing: boolean): Record<string, unknown> {
  const rules = d.rules
    .filter((r) => r.macro_id.trim())
    .map((r) => ({ event: r.event, macro_id: r.macro_id.trim(), macro_name: r.macro_name, device_ids: r.devices.map((x) => x.id) }));
  const settings = {
    url: d.url.trim(),
    user: d.user.trim(),
    password: d.password ? d.password : editing ? null : '',
    ...(editing && d.removeCertificate ? { remove_certificate: true } : {}),
  };
  const domains = d.domains.map((g) => g.id);
  return editing
    ? { name: d.name.trim(), domains, axxon_one_settings: settings, macro_rules: rules }
    : { name: d.name.trim(), ...(d.group ? { domain_id: d.group.id } : {}), domains, axxon_one_settings: settings, macro_rules: rules };
}

function useSearch(path: string, key: string, min = 0) {
  const dp = useDataProvider<AtriumDataProvider>();
  const [input, setInput] = useState('');
  const text = input.trim();
  const search = text.length >= Math.max(1, min) ? `&search=${encodeURIComponent(text)}` : '';
  const q = useQuery({
    queryKey: ['integrations-pick', key, search],
    queryFn: () => dp.request<{ data: Option[] }>(`${path}?size=50&sort=name${search}`).then((r) => r.data),
  });
  return { options: q.data ?? [], setInput };
}

function GroupPicker({ value, onChange, disabled }: { value: Option | null; onChange: (g: Option | null) => void; disabled?: boolean }) {
  const translate = useTranslate();
  const { options, setInput } = useSearch('/domains', 'groups', DOMAIN_SEARCH_MIN_LENGTH);
  return (
    <Autocomplete
      size="small"
      options={options}
      value={value}
      disabled={disabled}
      onChange={(_e, g) => onChange(g)}
      onInputChange={(_e, v) => setInput(v)}
      getOptionLabel={(g) => g.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      renderInput={(params) => (
        <TextField {...params} label={translate(L('fields.domain_id'))} placeholder={translate(L('scope_project'))} />
      )}
    />
  );
}

/** The further groups an integration serves (with the groups below them). */
function DomainsPicker({ value, onChange }: { value: Option[]; onChange: (v: Option[]) => void }) {
  const translate = useTranslate();
  const { options, setInput } = useSearch('/domains', 'domains', DOMAIN_SEARCH_MIN_LENGTH);
  return (
    <Autocomplete
      multiple
      size="small"
      options={options}
      value={value}
      onChange={(_e, v) => onChange(v)}
      onInputChange={(_e, v) => setInput(v)}
      getOptionLabel={(g) => g.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      renderInput={(params) => (
        <TextField
          {...params}
          label={translate(L('fields.domains'))}
          helperText={translate(L('domains_hint'))}
          data-testid="integration-domains"
        />
      )}
    />
  );
}

function DevicesPicker({ value, onChange, label }: { value: Option[]; onChange: (v: Option[]) => void; label: string }) {
  const translate = useTranslate();
  const { options, setInput } = useSearch('/devices', 'devices');
  return (
    <Autocomplete
      multiple
      size="small"
      sx={{ minWidth: 240, flex: 1 }}
      options={options}
      value={value}
      onChange={(_e, v) => onChange(v)}
      onInputChange={(_e, v) => setInput(v)}
      getOptionLabel={(d) => d.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      renderInput={(params) => <TextField {...params} label={label} placeholder={value.length ? '' : translate(L('rules.all_devices'))} />}
    />
  );
}

/** Availability of one integration, checked on the server when shown. */
function StatusChip({ id }: { id: number }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const q = useQuery({
    queryKey: [...KEY, id, 'available'],
    queryFn: () => dp.request<{ data: IntegrationAvailability }>(`/integrations/${id}/available`).then((r) => r.data),
    staleTime: 15_000,
  });
  if (!q.data) return <Chip size="small" label={translate(L('status.checking'))} />;
  const a = q.data;
  return (
    <Chip
      size="small"
      data-testid={`integration-status-${id}`}
      color={a.available ? 'success' : 'error'}
      sx={{ height: 'auto', maxWidth: 200, '& .MuiChip-label': { whiteSpace: 'normal', py: 0.25 } }}
      label={`${translate(L(a.available ? 'status.available' : `status.${a.code}`))}${a.grpc_status ? ` (${a.grpc_status})` : ''}`}
    />
  );
}

/** What the server holds: its cameras and macros, read over gRPC; a macro can be launched to try it. */
function ServerPanel({ integration, macros }: { integration: Integration; macros: { data?: AxxonMacro[]; error: unknown } }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const cameras = useQuery({
    queryKey: [...KEY, integration.id, 'cameras'],
    queryFn: () => dp.request<{ data: AxxonCamera[] }>(`/integration/axxonone/${integration.id}/listcameras`).then((r) => r.data),
    retry: false,
  });
  const launch = useMutation({
    mutationFn: (macro_id: string) => dp.request(`/integration/axxonone/${integration.id}/launch`, { method: 'POST', body: { macro_id } }),
    onSuccess: () => alert.success(L('server.launched')),
    onError: (e) => alert.error(e),
  });
  const failure = (e: unknown) => (
    <Alert severity="error" sx={{ py: 0 }}>
      {translate(`errors.http.${String((e as { body?: { message?: string } }).body?.message ?? '')}`, { _: String((e as Error).message) })}
    </Alert>
  );
  return (
    <Box>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="subtitle1" component="h2" sx={{ flexGrow: 1 }}>
          {translate(L('server.title'))}
        </Typography>
        <StatusChip id={integration.id} />
        <Button size="small" onClick={() => void queryClient.invalidateQueries({ queryKey: [...KEY, integration.id] })}>
          {translate(L('server.refresh'))}
        </Button>
      </Stack>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <Box sx={{ flex: 1 }} data-testid="integration-cameras">
          <Typography variant="subtitle2">{translate(L('server.cameras'))}</Typography>
          {cameras.isLoading ? (
            <CircularProgress size={18} />
          ) : cameras.error ? (
            failure(cameras.error)
          ) : (
            <List dense>
              {(cameras.data ?? []).length === 0 ? <ListItem>{translate(L('server.none'))}</ListItem> : null}
              {(cameras.data ?? []).map((c) => (
                <ListItem key={c.access_point} disableGutters>
                  <ListItemText
                    primary={`${c.display_id}. ${c.display_name}${c.is_active ? '' : ` (${translate(L('server.inactive'))})`}`}
                    secondary={c.access_point}
                  />
                </ListItem>
              ))}
            </List>
          )}
        </Box>
        <Box sx={{ flex: 1 }} data-testid="integration-macros">
          <Typography variant="subtitle2">{translate(L('server.macros'))}</Typography>
          {macros.error ? (
            failure(macros.error)
          ) : !macros.data ? (
            <CircularProgress size={18} />
          ) : (
            <List dense>
              {macros.data.length === 0 ? <ListItem>{translate(L('server.none'))}</ListItem> : null}
              {macros.data.map((m) => (
                <ListItem
                  key={m.guid}
                  disableGutters
                  secondaryAction={
                    <Button size="small" disabled={launch.isPending} onClick={() => launch.mutate(m.guid)}>
                      {translate(L('server.launch'))}
                    </Button>
                  }
                >
                  <ListItemText primary={`${m.name}${m.enabled ? '' : ` (${translate(L('server.disabled'))})`}`} secondary={m.guid} />
                </ListItem>
              ))}
            </List>
          )}
        </Box>
      </Stack>
    </Box>
  );
}

function RulesEditor({
  rules,
  onChange,
  macros,
}: {
  rules: RuleDraft[];
  onChange: (r: RuleDraft[]) => void;
  macros: AxxonMacro[] | undefined;
}) {
  const translate = useTranslate();
  const set = (i: number, patch: Partial<RuleDraft>) => onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Box>
      <Typography variant="subtitle1" component="h2">
        {translate(L('rules.title'))}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {translate(L('rules.hint'))}
      </Typography>
      <Stack spacing={1.5}>
        {rules.map((r, i) => (
          <Stack
            key={r.key}
            direction={{ xs: 'column', md: 'row' }}
            spacing={1}
            sx={{ alignItems: { md: 'center' } }}
            data-testid={`rule-${i}`}
          >
            <TextField
              select
              size="small"
              sx={{ minWidth: 180 }}
              label={translate(L('rules.event'))}
              value={r.event}
              onChange={(e) => set(i, { event: e.target.value as IntegrationTriggerEvent })}
            >
              {INTEGRATION_TRIGGER_EVENTS.map((ev) => (
                <MenuItem key={ev} value={ev}>
                  {translate(L(`events.${ev}`))}
                </MenuItem>
              ))}
            </TextField>
            {macros ? (
              <TextField
                select
                size="small"
                sx={{ minWidth: 220 }}
                label={translate(L('rules.macro'))}
                value={r.macro_id}
                onChange={(e) =>
                  set(i, { macro_id: e.target.value, macro_name: macros.find((m) => m.guid === e.target.value)?.name ?? null })
                }
              >
                {r.macro_id && !macros.some((m) => m.guid === r.macro_id) ? (
                  <MenuItem value={r.macro_id}>{r.macro_name ?? r.macro_id}</MenuItem>
                ) : null}
                {macros.map((m) => (
                  <MenuItem key={m.guid} value={m.guid}>
                    {m.name}
                  </MenuItem>
                ))}
              </TextField>
            ) : (
              <TextField
                size="small"
                sx={{ minWidth: 220 }}
                label={translate(L('rules.macro'))}
                value={r.macro_id}
                onChange={(e) => set(i, { macro_id: e.target.value, macro_name: null })}
              />
            )}
            <DevicesPicker label={translate(L('rules.devices'))} value={r.devices} onChange={(devices) => set(i, { devices })} />
            <IconButton aria-label={translate(L('rules.remove'))} onClick={() => onChange(rules.filter((_r, j) => j !== i))}>
              <DeleteIcon />
            </IconButton>
          </Stack>
        ))}
      </Stack>
      <Button
        size="small"
        startIcon={<AddIcon />}
        sx={{ mt: 1 }}
        onClick={() =>
          onChange([
            ...rules,
            {
              key: nextRuleKey++,
              event: 'access_denied',
              macro_id: macros?.[0]?.guid ?? '',
              macro_name: macros?.[0]?.name ?? null,
              devices: [],
            },
          ])
        }
      >
        {translate(L('rules.add'))}
      </Button>
    </Box>
  );
}

/** Create and edit: settings, certificate upload, what the server holds, and the event → macro rules. */
const groupName = (dp: AtriumDataProvider, x: number): Promise<Option> =>
  dp.request<{ data: Option }>(`/domains/${x}`).then(
    (r) => ({ id: x, name: r.data.name }),
    () => ({ id: x, name: `#${x}` }),
  );

function IntegrationDialog({
  editing,
  open,
  onClose,
  onSaved,
  presetDomainId,
}: {
  editing: Integration | null;
  open: boolean;
  onClose: () => void;
  onSaved: (i: Integration, created: boolean) => void;
  /** A new integration's group, from the address (/integration/add?domain_id=…). */
  presetDomainId?: number;
}) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const [draft, setDraft] = useState<Draft>(emptyDraft());
  const [openedFor, setOpenedFor] = useState<number | null | undefined>(undefined);
  const id = open ? (editing?.id ?? null) : undefined;
  const deviceNames = useQuery({
    queryKey: ['integrations-devices', editing?.id],
    queryFn: async () => {
      const ids = [...new Set(editing?.macro_rules.flatMap((r) => r.device_ids) ?? [])];
      if (!ids.length) return [] as Option[];
      return Promise.all(
        ids.map((x) =>
          dp.request<{ data: Option }>(`/devices/${x}`).then(
            (r) => ({ id: x, name: r.data.name }),
            () => ({ id: x, name: `#${x}` }),
          ),
        ),
      );
    },
    enabled: open && editing !== null,
  });
  const group = useQuery({
    queryKey: ['integrations-group', editing?.domain_id],
    queryFn: () => dp.request<{ data: Option }>(`/domains/${editing?.domain_id}`).then((r) => r.data),
    enabled: open && Boolean(editing?.domain_id),
  });
  const domainNames = useQuery({
    queryKey: ['integrations-domains', editing?.id, editing?.domains.join(','), presetDomainId],
    queryFn: () =>
      Promise.all([...(editing?.domains ?? []), ...(editing ? [] : presetDomainId ? [presetDomainId] : [])].map((x) => groupName(dp, x))),
    enabled: open,
  });
  // Each opening starts from the integration being edited, or from an empty form.
  if (id !== openedFor && !domainNames.isLoading && (editing === null || !deviceNames.isLoading)) {
    setOpenedFor(id);
    const named = (x: number) => deviceNames.data?.find((d) => d.id === x) ?? { id: x, name: `#${x}` };
    setDraft(
      editing
        ? {
            ...emptyDraft(),
            name: editing.name,
            domains: editing.domains.map((x) => domainNames.data?.find((g) => g.id === x) ?? { id: x, name: `#${x}` }),
            url: editing.axxon_one_settings.url,
            user: editing.axxon_one_settings.user,
            rules: editing.macro_rules.map((r) => ({
              key: nextRuleKey++,
              event: r.event,
              macro_id: r.macro_id,
              macro_name: r.macro_name,
              devices: r.device_ids.map(named),
            })),
          }
        : { ...emptyDraft(), group: presetDomainId ? (domainNames.data?.[0] ?? { id: presetDomainId, name: `#${presetDomainId}` }) : null },
    );
  }
  const macros = useQuery({
    queryKey: [...KEY, editing?.id, 'macros'],
    queryFn: () => dp.request<{ data: AxxonMacro[] }>(`/integration/axxonone/${editing?.id}/listmacros`).then((r) => r.data),
    enabled: open && editing !== null,
    retry: false,
  });
  const save = useMutation({
    mutationFn: async (d: Draft) => {
      const body = integrationFormData(integrationPayload(d, editing !== null), d.certificate);
      const path = editing ? `/integrations/${editing.id}` : '/integrations';
      return (await dp.request<{ data: Integration }>(path, { method: 'POST', body })).data;
    },
    onSuccess: (i) => onSaved(i, editing === null),
    onError: (e) => alert.error(e),
  });
  const valid = draft.name.trim() && draft.url.trim() && draft.user.trim() && (editing || draft.password);
  const cert = editing?.axxon_one_settings;
  return (
    <Dialog open={open} onClose={onClose} maxWidth="lg" fullWidth>
      <DialogTitle>{editing ? translate(L('form.edit_title'), { name: editing.name }) : translate(L('form.create_title'))}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
            <TextField
              sx={{ flex: 1 }}
              size="small"
              label={translate(L('fields.name'))}
              name="name"
              required
              value={draft.name}
              slotProps={{ htmlInput: { maxLength: 31 } }}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            />
            <Box sx={{ flex: 1 }}>
              {editing ? (
                <TextField
                  fullWidth
                  size="small"
                  disabled
                  label={translate(L('fields.domain_id'))}
                  value={editing.domain_id === null ? translate(L('scope_project')) : (group.data?.name ?? `#${editing.domain_id}`)}
                />
              ) : (
                <GroupPicker value={draft.group} onChange={(g) => setDraft({ ...draft, group: g })} />
              )}
            </Box>
          </Stack>
          <DomainsPicker value={draft.domains} onChange={(domains) => setDraft({ ...draft, domains })} />
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
            <TextField
              sx={{ flex: 2 }}
              size="small"
              label={translate(L('fields.url'))}
              name="url"
              required
              value={draft.url}
              helperText={translate(L('url_hint'))}
              onChange={(e) => setDraft({ ...draft, url: e.target.value })}
            />
            <TextField
              sx={{ flex: 1 }}
              size="small"
              label={translate(L('fields.user'))}
              name="user"
              required
              value={draft.user}
              onChange={(e) => setDraft({ ...draft, user: e.target.value })}
            />
            <TextField
              sx={{ flex: 1 }}
              size="small"
              type="password"
              autoComplete="new-password"
              label={translate(L('fields.password'))}
              name="password"
              required={!editing}
              value={draft.password}
              helperText={editing?.axxon_one_settings.has_password ? translate(L('password_kept')) : ' '}
              onChange={(e) => setDraft({ ...draft, password: e.target.value })}
            />
          </Stack>
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' } }}>
            <Typography variant="body2" sx={{ minWidth: 120 }}>
              {translate(L('fields.certificate'))}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ flex: 1, overflowWrap: 'anywhere' }} data-testid="certificate-state">
              {draft.certificate
                ? translate(L('certificate_new'), { name: draft.certificate.name })
                : cert?.has_certificate && !draft.removeCertificate
                  ? `${translate(L('tls'))}: ${cert.certificate_subject ?? ''} · SHA-256 ${cert.certificate_fingerprint ?? ''}`
                  : translate(L('certificate_none'))}
            </Typography>
            <Button component="label" size="small" variant="outlined" startIcon={<UploadFileIcon />}>
              {translate(L('certificate_choose'))}
              <input
                hidden
                type="file"
                accept=".pem,.crt,.cer,application/x-pem-file"
                data-testid="certificate-input"
                onChange={(e) => setDraft({ ...draft, certificate: e.target.files?.[0] ?? null, removeCertificate: false })}
              />
            </Button>
            {cert?.has_certificate ? (
              <FormControlLabel
                control={
                  <Checkbox
                    size="small"
                    checked={draft.removeCertificate}
                    onChange={(e) => setDraft({ ...draft, removeCertificate: e.target.checked, certificate: null })}
                  />
                }
                label={translate(L('certificate_remove'))}
              />
            ) : null}
          </Stack>
          <Divider />
          {editing ? (
            <>
              <ServerPanel integration={editing} macros={macros} />
              <Divider />
              <RulesEditor rules={draft.rules} onChange={(rules) => setDraft({ ...draft, rules })} macros={macros.data} />
            </>
          ) : (
            <Alert severity="info">{translate(L('rules.save_first'))}</Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate(L('actions.close'))}</Button>
        <Button variant="contained" disabled={save.isPending || !valid} onClick={() => save.mutate(draft)}>
          {translate(L('actions.save'))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The spec's console routes /integration/add and /integration/:id/edit: the list with that form open. */
export function IntegrationRoute() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const domainId = Number(params.get('domain_id'));
  return (
    <IntegrationsPage
      open={id === undefined ? 'new' : Number(id)}
      {...(Number.isInteger(domainId) && domainId > 0 ? { presetDomainId: domainId } : {})}
    />
  );
}

/** An integration's state on a kit list (the section's and the page's); label and source read by the list's header. */
function StatusField(_: { source: string; label: string; sortable?: boolean }) {
  const i = useRecordContext<Integration>();
  return i ? <StatusChip id={i.id} /> : null;
}

/** How many macro rules an integration has, on a kit list. */
function MacroRulesField(_: { source: string; label: string; sortable?: boolean }) {
  const translate = useTranslate();
  const i = useRecordContext<Integration>();
  return i ? translate(L('rules.count'), { smart_count: i.macro_rules.length }) : null;
}

/** Where the form came from (a group's page, the project settings), to go back there when it closes. */
interface BackState {
  back?: string;
}

/**
 * The integrations of one group (its edit page) or of the project (general settings, `'project'`),
 * with links to the spec's /integration/add?domain_id=… and /integration/:id/edit.
 */
/** A group's integrations: those it owns, and those another group's integration also serves it with. */
export function sectionIntegrations<T extends Pick<Integration, 'domain_id' | 'domains'>>(
  list: readonly T[],
  scope: number | 'project',
): T[] {
  return list.filter((i) => (scope === 'project' ? i.domain_id === null : i.domain_id === scope || i.domains.includes(scope)));
}

export function IntegrationsSection({ scope }: { scope: number | 'project' }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const location = useLocation();
  const back: BackState = { back: `${location.pathname}${location.search}` };
  const list = useQuery({
    queryKey: [...KEY, 'scope', scope],
    queryFn: () => dp.request<{ data: Integration[] }>('/integrations?size=1000&sort=name').then((r) => sectionIntegrations(r.data, scope)),
  });
  const add = scope === 'project' ? '/integration/add' : `/integration/add?domain_id=${scope}`;
  return (
    <Box data-testid="integrations-section" sx={{ width: '100%' }}>
      <Stack direction="row" spacing={2} sx={{ mb: 1, alignItems: 'center' }}>
        <Typography variant="subtitle1" component="h2" sx={{ flexGrow: 1 }}>
          {translate(L(scope === 'project' ? 'section.project' : 'section.group'))}
        </Typography>
        <Button component={RouterLink} to={add} state={back} size="small" variant="outlined" startIcon={<AddIcon />}>
          {translate(L('new'))}
        </Button>
      </Stack>
      {list.error ? (
        <Alert severity="warning">{translate('errors.http.action prohibited')}</Alert>
      ) : (
        <RecordsList
          records={list.data}
          loading={list.isLoading}
          resource="integrations"
          label={translate(L(scope === 'project' ? 'section.project' : 'section.group'))}
          empty={<EmptyState text={translate(L('empty'))} />}
        >
          <FunctionField
            source="name"
            label={L('fields.name')}
            render={(i: Integration) => (
              <span data-testid={`section-integration-${i.id}`}>
                {i.name}
                {scope !== 'project' && i.domain_id !== scope ? (
                  <Chip size="small" variant="outlined" sx={{ ml: 1 }} label={translate(L('section.shared'))} />
                ) : null}
              </span>
            )}
          />
          <FunctionField
            source="url"
            label={L('fields.url')}
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(i: Integration) => i.axxon_one_settings.url}
          />
          <StatusField source="status" label={L('fields.status')} sortable={false} />
          <MacroRulesField source="macro_rules" label={L('fields.macro_rules')} sortable={false} />
          <FunctionField
            label="form.actions"
            sortable={false}
            cellClassName={ACTIONS_CELL}
            render={(i: Integration) => (
              <Button component={RouterLink} to={`/integration/${i.id}/edit`} state={back} size="small">
                {translate(L('actions.edit'))}
              </Button>
            )}
          />
        </RecordsList>
      )}
    </Box>
  );
}

/**
 * Integrations (issue 14): Axxon One servers, their state, cameras and macros, and the access events
 * that launch macros. `open` is the form the address names (a new one, or an integration's id).
 */
export function IntegrationsPage({ open, presetDomainId }: { open?: 'new' | number; presetDomainId?: number }) {
  const translate = useTranslate();
  const { can } = useSessionData();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const back = (location.state as BackState | null)?.back;
  const [confirm, setConfirm] = useState<{ id: number; name: string } | null>(null);
  const mayOpen = INTEGRATIONS_PERMISSIONS.some((p) => can(p));
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => dp.request<{ data: Integration[] }>('/integrations?size=1000&sort=name').then((r) => r.data),
    enabled: mayOpen,
  });
  const groups = useQuery({
    queryKey: ['integrations-groups', (list.data ?? []).map((i) => i.domain_id).join(',')],
    queryFn: async () => {
      const ids = [...new Set((list.data ?? []).flatMap((i) => (i.domain_id ? [i.domain_id] : [])))];
      const found = await Promise.all(
        ids.map((x) =>
          dp.request<{ data: Option }>(`/domains/${x}`).then(
            (r) => r.data,
            () => ({ id: x, name: `#${x}` }),
          ),
        ),
      );
      return new Map(found.map((g) => [g.id, g.name]));
    },
    enabled: Boolean(list.data?.length),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: KEY });
  const opened = open === undefined ? undefined : open === 'new' ? null : list.data?.find((i) => i.id === open);
  const edit = (i: Integration | null) => navigate(i ? `/integration/${i.id}/edit` : '/integration/add', { state: { back } });
  const closeForm = () => navigate(back ?? '/integrations');
  const remove = useMutation({
    mutationFn: (id: number) => dp.request(`/integrations/${id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setConfirm(null);
      alert.done();
      refresh();
    },
    onError: (e) => alert.error(e),
  });
  if (!mayOpen) return <Alert severity="warning">{translate('errors.http.action prohibited')}</Alert>;
  return (
    <>
      <RecordsListPage
        title={translate(L('title'))}
        hint={translate(L('hint'))}
        actions={
          <Button size="small" startIcon={<AddIcon />} onClick={() => edit(null)}>
            {translate(L('new'))}
          </Button>
        }
      >
        <RecordsList
          records={list.data}
          loading={list.isLoading}
          resource="integrations"
          sort={{ field: 'name', order: 'ASC' }}
          rowClick={(id) => `/integration/${id}/edit`}
          bulkActions={<BulkDeleteWithConfirm path="integrations" />}
          empty={<EmptyState text={translate(L('empty'))} />}
        >
          <FunctionField
            source="name"
            label={L('fields.name')}
            render={(i: Integration) => (
              <>
                {i.name}
                <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                  {translate(L(`types.${i.type}`))}
                </Typography>
              </>
            )}
          />
          <EllipsisField
            source="domain_id"
            label={L('fields.domain_id')}
            render={(r) => {
              const i = r as unknown as Integration;
              return i.domain_id === null ? translate(L('scope_project')) : (groups.data?.get(i.domain_id) ?? `#${i.domain_id}`);
            }}
          />
          <EllipsisField
            source="url"
            label={L('fields.url')}
            sortable={false}
            render={(r) => (r as unknown as Integration).axxon_one_settings.url}
          />
          <FunctionField
            source="certificate"
            label={L('fields.certificate')}
            sortable={false}
            render={(i: Integration) => translate(L(i.axxon_one_settings.has_certificate ? 'tls' : 'plain'))}
          />
          <StatusField source="status" label={L('fields.status')} sortable={false} />
          <MacroRulesField source="macro_rules" label={L('fields.macro_rules')} sortable={false} />
          <FunctionField
            label="form.actions"
            sortable={false}
            cellClassName={ACTIONS_CELL}
            render={(i: Integration) => (
              <Button
                size="small"
                color="error"
                onClick={(e) => {
                  e.stopPropagation();
                  setConfirm({ id: i.id, name: i.name });
                }}
              >
                {translate(L('actions.delete'))}
              </Button>
            )}
          />
        </RecordsList>
      </RecordsListPage>
      <IntegrationDialog
        {...(presetDomainId ? { presetDomainId } : {})}
        open={opened !== undefined}
        editing={opened ?? null}
        onClose={closeForm}
        onSaved={(i, created) => {
          alert.done();
          refresh();
          void queryClient.invalidateQueries({ queryKey: [...KEY, 'scope'] });
          // A new integration stays open: its macros can now be read and mapped to events.
          if (created) {
            queryClient.setQueryData<Integration[]>(KEY, (old) => [...(old ?? []), i]);
            edit(i);
          } else closeForm();
        }}
      />
      <Confirm
        isOpen={confirm !== null}
        loading={remove.isPending}
        title={translate(L('actions.delete_title'))}
        content={translate(L('actions.delete_confirm'), { name: confirm?.name ?? '' })}
        onConfirm={() => confirm && remove.mutate(confirm.id)}
        onClose={() => setConfirm(null)}
      />
    </>
  );
}
