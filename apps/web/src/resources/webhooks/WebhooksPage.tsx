import {
  WEBHOOK_AUDIT_ENTITIES,
  WEBHOOK_EVENT_TYPES,
  type Webhook,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookWithSecret,
} from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Chip,
  Collapse,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm, FunctionField, NumberField, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { ACTIONS_CELL, PROSE_CELL } from '../../app/kit/ListBody';
import { EllipsisField, EmptyState } from '../../app/kit/ListPage';
import { OneTimeSecretDialog } from '../../app/kit/OneTimeSecret';
import { RecordsList, RecordsListPage } from '../../app/kit/RecordsList';
import { RowActions } from '../../app/kit/RowActions';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const L = (k: string) => `webhooks.${k}`;
const KEY = ['webhooks'] as const;
/** Who manages webhooks (the server's rule, modules/webhooks). */
export const WEBHOOKS_PERMISSION = 'can_change_project_settings';

/** The event types as the form groups them: device events, presence and calls, recorded changes. */
export const EVENT_GROUPS: { key: string; types: string[] }[] = [
  { key: 'device', types: WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('device.') && t !== 'device.online' && t !== 'device.offline') },
  { key: 'presence_calls', types: ['device.online', 'device.offline', 'call.ended'] },
  { key: 'audit', types: WEBHOOK_AUDIT_ENTITIES.map((e) => `audit.${e}`) },
];

const STATUS_COLOR = { pending: 'warning', delivering: 'info', succeeded: 'success', failed: 'error' } as const;

function StatusChip({ status }: { status: WebhookDelivery['status'] | null }) {
  const translate = useTranslate();
  return status ? (
    <Chip size="small" color={STATUS_COLOR[status]} label={translate(L(`status.${status}`))} />
  ) : (
    <Typography variant="body2" color="text.secondary">
      {translate(L('status.none'))}
    </Typography>
  );
}

/** The event checkboxes, grouped; `value` is the chosen types. */
export function EventTypesPicker({ value, onChange, error }: { value: string[]; onChange: (v: string[]) => void; error?: boolean }) {
  const translate = useTranslate();
  const toggle = (t: string) => onChange(value.includes(t) ? value.filter((x) => x !== t) : [...value, t]);
  return (
    <Box>
      {EVENT_GROUPS.map((g) => (
        <Box key={g.key} sx={{ mb: 1 }}>
          <Typography variant="subtitle2">{translate(L(`groups.${g.key}`))}</Typography>
          <FormGroup row>
            {g.types.map((t) => (
              <FormControlLabel
                key={t}
                sx={{ minWidth: 200 }}
                control={<Checkbox size="small" checked={value.includes(t)} onChange={() => toggle(t)} name={t} />}
                label={translate(L(`events.${t}`))}
              />
            ))}
          </FormGroup>
        </Box>
      ))}
      {error ? <FormHelperText error>{translate(L('form.events_required'))}</FormHelperText> : null}
    </Box>
  );
}

interface Draft {
  name: string;
  url: string;
  event_types: string[];
}

/** The create and edit form: name, URL, events. */
function WebhookDialog({
  editing,
  open,
  onClose,
  onSaved,
}: {
  editing: Webhook | null;
  open: boolean;
  onClose: () => void;
  onSaved: (w: Webhook | WebhookWithSecret) => void;
}) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const [draft, setDraft] = useState<Draft>({ name: '', url: '', event_types: [] });
  const [tried, setTried] = useState(false);
  const [openedFor, setOpenedFor] = useState<number | null | undefined>(undefined);
  // Each opening starts from the webhook being edited, or from an empty form.
  const id = open ? (editing?.id ?? null) : undefined;
  if (id !== openedFor) {
    setOpenedFor(id);
    setTried(false);
    setDraft(editing ? { name: editing.name, url: editing.url, event_types: editing.event_types } : { name: '', url: '', event_types: [] });
  }
  const save = useMutation({
    mutationFn: async (d: Draft) =>
      editing
        ? (await dp.request<{ data: Webhook }>(`/webhooks/${editing.id}`, { method: 'PATCH', body: d })).data
        : (await dp.request<{ data: WebhookWithSecret }>('/webhooks', { method: 'PUT', body: d })).data,
    onSuccess: onSaved,
    onError: (e) => alert.error(e),
  });
  const valid = draft.name.trim() && /^https?:\/\/\S+$/i.test(draft.url.trim()) && draft.event_types.length > 0;
  return (
    <Dialog open={open} onClose={onClose} maxWidth="md" fullWidth>
      <DialogTitle>{editing ? translate(L('form.edit_title'), { name: editing.name }) : translate(L('form.create_title'))}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <TextField
            label={translate(L('fields.name'))}
            name="name"
            value={draft.name}
            required
            error={tried && !draft.name.trim()}
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          />
          <TextField
            label={translate(L('fields.url'))}
            name="url"
            value={draft.url}
            required
            error={tried && !/^https?:\/\/\S+$/i.test(draft.url.trim())}
            helperText={translate(L('form.url_hint'))}
            onChange={(e) => setDraft({ ...draft, url: e.target.value })}
          />
          <EventTypesPicker
            value={draft.event_types}
            error={tried && draft.event_types.length === 0}
            onChange={(event_types) => setDraft({ ...draft, event_types })}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button
          variant="contained"
          disabled={save.isPending}
          onClick={() => {
            setTried(true);
            if (valid) save.mutate({ ...draft, name: draft.name.trim(), url: draft.url.trim() });
          }}
        >
          {translate(L('form.save'))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The delivery log of one endpoint: each delivery, its attempts on demand, redeliver. */
export function DeliveryLog({ webhook, onClose }: { webhook: Webhook | null; onClose: () => void }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState<number | null>(null);
  const key = [...KEY, 'deliveries', webhook?.id] as const;
  const list = useQuery({
    queryKey: key,
    queryFn: () => dp.request<{ data: WebhookDelivery[] }>(`/webhooks/${webhook?.id}/deliveries?size=100`),
    enabled: webhook !== null,
    refetchInterval: 3000,
  });
  const detail = useQuery({
    queryKey: [...key, opened],
    queryFn: () => dp.request<{ data: WebhookDeliveryDetail }>(`/webhooks/${webhook?.id}/deliveries/${opened}`),
    enabled: webhook !== null && opened !== null,
  });
  const redeliver = useMutation({
    mutationFn: (d: WebhookDelivery) => dp.request(`/webhooks/${webhook?.id}/deliveries/${d.id}/redeliver`, { method: 'POST', body: {} }),
    onSuccess: () => {
      alert.success(L('actions.redelivered'));
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (e) => alert.error(e),
  });
  const when = (iso: string | null) => (iso ? formatDateTime(iso, locale) : '—');
  const shown = list.data?.data.find((d) => d.id === opened) ?? null;
  return (
    <Dialog open={webhook !== null} onClose={onClose} maxWidth="lg" fullWidth>
      <DialogTitle>{translate(L('log.title'), { name: webhook?.name ?? '' })}</DialogTitle>
      <DialogContent>
        <RecordsList
          records={list.data?.data}
          loading={list.isLoading}
          resource="webhook-deliveries"
          label={translate(L('log.title'), { name: webhook?.name ?? '' })}
          empty={<EmptyState text={translate(L('log.empty'))} />}
          // A click shows (or hides) the delivery's attempts and payload under the list.
          rowClick={(id) => {
            setOpened(opened === Number(id) ? null : Number(id));
            return false;
          }}
        >
          <FunctionField source="created_at" label={L('log.time')} sortable={false} render={(d: WebhookDelivery) => when(d.created_at)} />
          <FunctionField
            source="event_type"
            label={L('log.event')}
            sortable={false}
            render={(d: WebhookDelivery) => translate(L(`events.${d.event_type}`), { _: d.event_type })}
          />
          <FunctionField
            source="status"
            label={L('log.status')}
            sortable={false}
            render={(d: WebhookDelivery) => (
              <>
                <StatusChip status={d.status} />
                {d.status === 'pending' && d.attempts > 0 ? (
                  <Typography variant="caption" sx={{ display: 'block' }}>
                    {translate(L('log.next'), { time: when(d.next_attempt_at) })}
                  </Typography>
                ) : null}
              </>
            )}
          />
          <NumberField source="attempts" label={L('log.attempts')} sortable={false} />
          <FunctionField
            source="response_status"
            label={L('log.response')}
            sortable={false}
            render={(d: WebhookDelivery) => d.response_status ?? d.error ?? '—'}
          />
          <FunctionField
            label="form.actions"
            sortable={false}
            cellClassName={ACTIONS_CELL}
            render={(d: WebhookDelivery) => (
              <Button
                size="small"
                disabled={d.status === 'delivering' || redeliver.isPending}
                onClick={(e) => {
                  e.stopPropagation();
                  redeliver.mutate(d);
                }}
              >
                {translate(L('actions.redeliver'))}
              </Button>
            )}
          />
        </RecordsList>
        <Collapse in={shown !== null} unmountOnExit>
          {shown ? (
            <Box sx={{ py: 1 }} role="region" aria-label={when(shown.created_at)}>
              {(detail.data?.data.attempt_log ?? []).map((a) => (
                <Typography key={a.attempt} variant="body2" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
                  {translate(L('log.attempt'), { n: a.attempt })} · {when(a.at)} · {a.response_status ?? a.error} · {a.duration_ms} ms
                  {a.response_body ? ` · ${a.response_body.slice(0, 200)}` : ''}
                </Typography>
              ))}
              <Typography variant="subtitle2" sx={{ mt: 1 }}>
                {translate(L('log.payload'))}
              </Typography>
              <Box
                component="pre"
                sx={{ m: 0, p: 1, bgcolor: 'action.hover', borderRadius: 1, fontSize: 12, overflow: 'auto', maxHeight: 240 }}
              >
                {detail.data ? JSON.stringify(detail.data.data.payload, null, 2) : ''}
              </Box>
            </Box>
          ) : null}
        </Collapse>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => void list.refetch()}>{translate(L('actions.refresh'))}</Button>
        <Button onClick={onClose}>{translate(L('actions.close'))}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** The endpoints as a list: name, URL, events, on/off, last delivery, and what can be done with each. */
export function WebhooksTable({
  hooks,
  loading,
  onAction,
}: {
  hooks: Webhook[] | undefined;
  loading?: boolean;
  onAction: (kind: 'edit' | 'log' | 'ping' | 'rotate' | 'toggle' | 'delete', w: Webhook) => void;
}) {
  const translate = useTranslate();
  return (
    <RecordsList records={hooks} loading={loading} resource="webhooks" empty={<EmptyState text={translate(L('empty'))} />}>
      <EllipsisField source="name" label={L('fields.name')} />
      <EllipsisField source="url" label={L('fields.url')} />
      <FunctionField
        source="event_types"
        label={L('fields.event_types')}
        sortable={false}
        cellClassName={PROSE_CELL}
        render={(w: Webhook) => w.event_types.map((t) => translate(L(`events.${t}`), { _: t })).join(', ')}
      />
      <FunctionField
        source="enabled"
        label={L('fields.enabled')}
        render={(w: Webhook) => (
          <Switch
            size="small"
            checked={w.enabled}
            onChange={() => onAction('toggle', w)}
            slotProps={{ input: { 'aria-label': translate(L(w.enabled ? 'actions.disable' : 'actions.enable')) } }}
          />
        )}
      />
      <FunctionField
        source="last_delivery_status"
        label={L('fields.last_delivery_status')}
        render={(w: Webhook) => <StatusChip status={w.last_delivery_status} />}
      />
      <FunctionField
        label="form.actions"
        sortable={false}
        cellClassName={ACTIONS_CELL}
        render={(w: Webhook) => (
          <RowActions
            name={w.name}
            actions={[
              { label: translate(L('actions.deliveries')), onClick: () => onAction('log', w) },
              { label: translate(L('actions.ping')), onClick: () => onAction('ping', w) },
              { label: translate(L('actions.edit')), onClick: () => onAction('edit', w) },
              { label: translate(L('actions.rotate')), onClick: () => onAction('rotate', w) },
              { label: translate(L('actions.delete')), onClick: () => onAction('delete', w), danger: true },
            ]}
          />
        )}
      />
    </RecordsList>
  );
}

/** Webhooks (issue 14): endpoints, their secret shown once, test ping, delivery log and redelivery. */
export function WebhooksPage() {
  const translate = useTranslate();
  const { can } = useSessionData();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<{ editing: Webhook | null } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [log, setLog] = useState<Webhook | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'rotate' | 'delete'; hook: Webhook } | null>(null);
  const mayManage = can(WEBHOOKS_PERMISSION);
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => dp.request<{ data: Webhook[] }>('/webhooks?size=1000'),
    enabled: mayManage,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: KEY });
  const act = useMutation({
    mutationFn: async ({ kind, hook }: { kind: 'ping' | 'rotate' | 'toggle' | 'delete'; hook: Webhook }) => {
      if (kind === 'ping') return dp.request(`/webhooks/${hook.id}/ping`, { method: 'POST', body: {} });
      if (kind === 'toggle') return dp.request(`/webhooks/${hook.id}`, { method: 'PATCH', body: { enabled: !hook.enabled } });
      if (kind === 'delete') return dp.request(`/webhooks/${hook.id}`, { method: 'DELETE' });
      return dp.request<{ data: WebhookWithSecret }>(`/webhooks/${hook.id}/rotate-secret`, { method: 'POST', body: {} });
    },
    onSuccess: (res, { kind }) => {
      setConfirm(null);
      if (kind === 'ping') alert.success(L('actions.ping_sent'));
      else if (kind === 'rotate') setSecret((res as { data: WebhookWithSecret }).data.secret);
      else alert.done();
      refresh();
    },
    onError: (e) => alert.error(e),
  });
  if (!mayManage) return <Alert severity="warning">{translate(L('denied'))}</Alert>;
  return (
    <>
      <RecordsListPage
        title={translate(L('title'))}
        hint={translate(L('hint'))}
        actions={
          <Button size="small" startIcon={<AddIcon />} onClick={() => setForm({ editing: null })}>
            {translate(L('new'))}
          </Button>
        }
      >
        <WebhooksTable
          hooks={list.data?.data}
          loading={list.isLoading}
          onAction={(kind, hook) => {
            if (kind === 'edit') setForm({ editing: hook });
            else if (kind === 'log') setLog(hook);
            else if (kind === 'rotate' || kind === 'delete') setConfirm({ kind, hook });
            else act.mutate({ kind, hook });
          }}
        />
      </RecordsListPage>
      <WebhookDialog
        open={form !== null}
        editing={form?.editing ?? null}
        onClose={() => setForm(null)}
        onSaved={(w) => {
          setForm(null);
          if ('secret' in w) setSecret(w.secret);
          else alert.done();
          refresh();
        }}
      />
      <DeliveryLog webhook={log} onClose={() => setLog(null)} />
      <OneTimeSecretDialog
        secret={secret}
        onClose={() => setSecret(null)}
        texts={{
          title: translate(L('secret.title')),
          warning: translate(L('secret.warning')),
          copy: translate(L('secret.copy')),
          copied: translate(L('secret.copied')),
          close: translate(L('secret.close')),
        }}
      />
      <Confirm
        isOpen={confirm !== null}
        loading={act.isPending}
        title={translate(L(`actions.${confirm?.kind ?? 'delete'}_title`))}
        content={translate(L(`actions.${confirm?.kind ?? 'delete'}_confirm`), { name: confirm?.hook.name ?? '' })}
        onConfirm={() => confirm && act.mutate(confirm)}
        onClose={() => setConfirm(null)}
      />
    </>
  );
}
