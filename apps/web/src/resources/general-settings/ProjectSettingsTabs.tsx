import {
  type BrokerSendResult,
  type BrokerSettings,
  type BrokerStatus,
  email,
  type GeneralSettings,
  isIp,
  maxLength,
  type PushSettings,
  required,
  SELF_REGISTER_CLIENT_TYPES,
  SELF_REGISTER_LICENSE_FEATURES,
  SIP_CODECS,
  SIP_DEVICE_PROTOCOLS,
  SIP_USE_ADDRESSES,
  type SipSettings,
  SMTP_ENCRYPTIONS,
  type TestPushResult,
  urlOrIp,
  type WhiteLabelSettings,
} from '@atrium/contract';
import DeleteIcon from '@mui/icons-material/Delete';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import SaveIcon from '@mui/icons-material/Save';
import SendIcon from '@mui/icons-material/Send';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Alert, Box, Button, Chip, CircularProgress, FormControlLabel, Switch, TextField, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import {
  ArrayInput,
  BooleanInput,
  CheckboxGroupInput,
  Form,
  NumberInput,
  PasswordInput,
  ReferenceInput,
  SelectInput,
  SimpleFormIterator,
  TextArrayInput,
  TextInput,
  useDataProvider,
  useNotify,
  useTranslate,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDate, formatDateTime, useFormat } from '../../app/format';
import { FormSection } from '../../app/kit/FormSection';
import { IMAGE_TYPES, ImageFileButton } from '../../app/kit/ImageCropDialog';
import { TimeZoneInput } from '../../app/kit/TimeZoneInput';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { subnetworks } from '../groups/GroupForm';
import {
  brokerForm,
  type GeneralFormValues,
  generalBody,
  generalFormValues,
  type PushFormValues,
  pushBody,
  pushFormValues,
  sipBody,
  smtpBody,
  validateBasicQty,
  validateClientFeatures,
  validateClientType,
  validateLicensePeriod,
  whiteLabelBody,
} from './projectSettings';

const grid = { display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' } as const;
const grid3 = { ...grid, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr 1fr' } } as const;
const G = (k: string) => `general_settings.general.${k}`;
const S = (k: string) => `general_settings.sip.${k}`;
const P = (k: string) => `general_settings.push.${k}`;
const B = (k: string) => `general_settings.broker.${k}`;
const W = (k: string) => `general_settings.white_label.${k}`;
const choices = (list: readonly string[], prefix: string) => list.map((id) => ({ id, name: `${prefix}.${id}` }));
const ip = (v: unknown) =>
  v === null || v === undefined || String(v).trim() === '' || isIp(String(v).trim()) ? undefined : 'validation.invalid_value';
/** An http(s) address, or nothing. */
const httpUrl = (v: unknown) => {
  const text = v === null || v === undefined ? '' : String(v).trim();
  if (text === '') return undefined;
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol) ? undefined : 'validation.url_or_ip';
  } catch {
    return 'validation.url_or_ip';
  }
};
const positive = (v: unknown) =>
  v === null || v === undefined || v === '' || Number(v) >= 0 ? undefined : { message: 'validation.min_value', args: { min: 0 } };

/** One tab's settings: read with GET, saved with PATCH, the answer replacing what was read. */
function useSettings<T>(path: string) {
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const key = ['settings', path];
  const query = useQuery({ queryKey: key, queryFn: async () => (await dp.request<{ data: T }>(path)).data });
  const save = useMutation({
    mutationFn: async (body: unknown) => (await dp.request<{ data: T }>(path, { method: 'PATCH', body })).data,
    onSuccess: (data) => {
      queryClient.setQueryData(key, data);
      alert.done();
    },
    onError: (e) => alert.error(e),
  });
  return { query, save, dp, alert, set: (data: T) => queryClient.setQueryData(key, data) };
}

function Loading({ error }: { error: boolean }) {
  const translate = useTranslate();
  return error ? <Alert severity="error">{translate('errors.default')}</Alert> : <CircularProgress aria-label={translate('app.loading')} />;
}

function useReadOnly() {
  const { can } = useSessionData();
  return !can('can_change_project_settings');
}

function ReadOnlyNote({ readOnly }: { readOnly: boolean }) {
  const translate = useTranslate();
  return readOnly ? (
    <Alert severity="warning" sx={{ mb: 2 }}>
      {translate('general_settings.read_only')}
    </Alert>
  ) : null;
}

function SaveRow({ readOnly, busy, children }: { readOnly: boolean; busy: boolean; children?: ReactNode }) {
  const translate = useTranslate();
  if (readOnly) return null;
  return (
    <Box sx={{ display: 'flex', gap: 2, mt: 2, alignItems: 'center' }}>
      <Button type="submit" variant="contained" startIcon={<SaveIcon />} disabled={busy}>
        {translate('ra.action.save')}
      </Button>
      {children}
    </Box>
  );
}

// ---- general --------------------------------------------------------------------------------------

/** Sends a test message with the SMTP settings as they are in the form (a masked password: the stored one). */
function TestMail() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const smtp = useWatch({ name: 'mail_settings.settings' }) as GeneralFormValues['mail_settings']['settings'];
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const bad = to !== '' && email(to) !== undefined;
  return (
    <Box sx={{ display: 'flex', gap: 2, alignItems: 'flex-start', mb: 2 }}>
      <TextField
        size="small"
        label={translate(G('test_mail_to'))}
        value={to}
        onChange={(e) => setTo(e.target.value.trim())}
        error={bad}
        helperText={bad ? translate('validation.email') : ' '}
        type="email"
      />
      <Button
        variant="outlined"
        startIcon={<SendIcon />}
        disabled={busy || !to || bad}
        onClick={async () => {
          setBusy(true);
          try {
            await dp.request('/settings/test-mail', {
              method: 'POST',
              body: { email: to, mail_settings: { type: 'smtp', settings: smtpBody(smtp) } },
            });
            alert.success(G('test_mail_sent'), { email: to });
          } catch (e) {
            alert.error(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {translate(G('test_mail'))}
      </Button>
    </Box>
  );
}

function SmtpFields({ readOnly, hasPassword }: { readOnly: boolean; hasPassword: boolean }) {
  const type = useWatch({ name: 'mail_settings.type' }) as string;
  if (type !== 'smtp') return null;
  return (
    <>
      <Box sx={grid3}>
        <TextInput source="mail_settings.settings.host" label={G('smtp_host')} validate={[required, maxLength(255)]} readOnly={readOnly} />
        <NumberInput
          source="mail_settings.settings.port"
          label={G('smtp_port')}
          validate={required}
          min={1}
          max={65535}
          readOnly={readOnly}
        />
        <SelectInput
          source="mail_settings.settings.encryption"
          label={G('smtp_encryption')}
          choices={choices(SMTP_ENCRYPTIONS, G('encryptions'))}
          readOnly={readOnly}
        />
        <TextInput source="mail_settings.settings.username" label={G('smtp_username')} readOnly={readOnly} autoComplete="off" />
        <PasswordInput
          source="mail_settings.settings.password"
          label={G('smtp_password')}
          readOnly={readOnly}
          autoComplete="new-password"
          helperText={hasPassword ? G('secret_kept') : false}
        />
        <span />
        <TextInput
          source="mail_settings.settings.from_address"
          label={G('smtp_from_address')}
          validate={[required, email]}
          readOnly={readOnly}
        />
        <TextInput source="mail_settings.settings.from_name" label={G('smtp_from_name')} readOnly={readOnly} />
      </Box>
      {readOnly ? null : <TestMail />}
    </>
  );
}

function NotifyNeedsEmail() {
  const translate = useTranslate();
  const [offline, failed, to] = useWatch({ name: ['notify_about_offline_device', 'notify_about_device_task_failed', 'admin_email'] });
  return (offline || failed) && !to ? (
    <Alert severity="info" sx={{ mb: 1 }}>
      {translate(G('notify_needs_email'))}
    </Alert>
  ) : null;
}

export function GeneralTab() {
  const translate = useTranslate();
  const readOnly = useReadOnly();
  const { can } = useSessionData();
  const { query, save } = useSettings<GeneralSettings>('/settings/general');
  if (!query.data) return <Loading error={query.isError} />;
  const s = query.data;
  return (
    <Form
      key={JSON.stringify(s)}
      defaultValues={generalFormValues(s)}
      onSubmit={async (v: Record<string, unknown>) => {
        await save.mutateAsync(generalBody(v as GeneralFormValues)).catch(() => undefined);
      }}
    >
      <ReadOnlyNote readOnly={readOnly} />
      <FormSection title={G('project')} />
      <Box sx={grid}>
        <TextInput source="name" label={G('name')} validate={[required, maxLength(255)]} readOnly={readOnly} />
        <TextInput
          source="server_url"
          label={G('server_url')}
          validate={urlOrIp}
          readOnly={readOnly}
          helperText="https://atrium.example.com"
        />
      </Box>
      <TextInput
        source="description"
        label={G('description')}
        multiline
        minRows={2}
        validate={maxLength(1000)}
        readOnly={readOnly}
        fullWidth
      />

      <FormSection title={G('registration')} hint={G('registration_hint')} />
      <Box sx={grid3}>
        <BooleanInput source="can_user_register_by_token" label={G('can_user_register_by_token')} readOnly={readOnly} />
        <BooleanInput source="can_user_recovery_password" label={G('can_user_recovery_password')} readOnly={readOnly} />
        <BooleanInput source="can_user_register_by_self" label={G('can_user_register_by_self')} readOnly={readOnly} />
      </Box>

      <FormSection title={G('region')} />
      <Box sx={grid3}>
        <TimeZoneInput source="time_zone" label={G('time_zone')} validate={required} readOnly={readOnly} />
        <SelectInput
          source="locale"
          label={G('locale')}
          choices={choices(['en', 'ru'], 'general_settings.locales')}
          validate={required}
          readOnly={readOnly}
        />
        <NumberInput
          source="logs_life"
          label={G('logs_life')}
          helperText={G('logs_life_hint')}
          validate={required}
          min={1}
          max={3650}
          readOnly={readOnly}
        />
      </Box>

      <FormSection title={G('mail')} hint={G('mail_hint')} />
      <SelectInput
        source="mail_settings.type"
        label={G('mail_type')}
        choices={choices(['none', 'smtp'], G('mail_types'))}
        readOnly={readOnly}
      />
      <SmtpFields readOnly={readOnly} hasPassword={Boolean(s.mail_settings.settings?.has_password)} />

      <FormSection title={G('notifications')} hint={G('notifications_hint')} />
      <Box sx={grid3}>
        <TextInput source="admin_email" label={G('admin_email')} validate={email} readOnly={readOnly} />
        <BooleanInput source="notify_about_offline_device" label={G('notify_about_offline_device')} readOnly={readOnly} />
        <BooleanInput source="notify_about_device_task_failed" label={G('notify_about_device_task_failed')} readOnly={readOnly} />
      </Box>
      <NotifyNeedsEmail />

      <FormSection title={G('guest_limits')} hint={G('guest_limits_hint')} />
      <Box sx={grid}>
        <NumberInput
          source="guest_identifier_limits.max_passes_count"
          label={G('max_passes_count')}
          validate={positive}
          min={0}
          readOnly={readOnly}
        />
        <NumberInput
          source="guest_identifier_limits.max_period_days"
          label={G('max_period_days')}
          validate={positive}
          min={0}
          readOnly={readOnly}
        />
      </Box>

      <FormSection title={G('mobile_sdk')} />
      <Box sx={grid}>
        <BooleanInput source="mobile_sdk_settings.is_enabled" label={G('mobile_sdk_enabled')} readOnly={readOnly} />
        <PasswordInput
          source="mobile_sdk_settings.api_key"
          label={G('mobile_sdk_key')}
          readOnly={readOnly}
          autoComplete="off"
          helperText={s.mobile_sdk_settings.has_api_key ? G('secret_kept') : false}
        />
      </Box>

      <FormSection title={G('self_register')} hint={G('self_register_hint')} />
      <ArrayInput source="user_self_register_settings.clients" label={false}>
        <SimpleFormIterator inline disableReordering disableAdd={readOnly} disableRemove={readOnly}>
          <SelectInput
            source="type"
            label={G('client_type')}
            choices={choices(SELF_REGISTER_CLIENT_TYPES, G('client_types'))}
            validate={[required, validateClientType]}
            readOnly={readOnly}
          />
          {can('can_view_roles') || can('can_view_all_roles') ? (
            <ReferenceInput source="role_id" reference="roles" perPage={100} sort={{ field: 'name', order: 'ASC' }}>
              <SelectInput label={G('client_role')} optionText="name" readOnly={readOnly} />
            </ReferenceInput>
          ) : (
            <NumberInput source="role_id" label={G('client_role')} readOnly={readOnly} />
          )}
          <NumberInput
            source="license_settings.period"
            label={G('license_period')}
            min={1}
            step={1}
            validate={validateLicensePeriod}
            readOnly={readOnly}
          />
          <CheckboxGroupInput
            source="license_settings.features"
            label={G('license_features')}
            validate={validateClientFeatures}
            choices={choices(SELF_REGISTER_LICENSE_FEATURES, G('features'))}
            readOnly={readOnly}
          />
        </SimpleFormIterator>
      </ArrayInput>

      <FormSection title={G('basic_license')} hint={G('basic_license_hint')} />
      <Box sx={grid}>
        <NumberInput
          source="license_settings.basic_license.period"
          label={G('license_period')}
          min={1}
          step={1}
          validate={validateLicensePeriod}
          readOnly={readOnly}
        />
        <NumberInput
          source="license_settings.basic_license.qty"
          label={G('license_qty')}
          min={1}
          step={1}
          validate={validateBasicQty}
          readOnly={readOnly}
        />
      </Box>
      <Typography variant="caption" color="text.secondary">
        {translate(G('empty_is_unlimited'))}
      </Typography>
      <SaveRow readOnly={readOnly} busy={save.isPending} />
    </Form>
  );
}

// ---- SIP -------------------------------------------------------------------------------------------

/** What the running SIP server listens on and which instances run it: read from the server, not editable. */
function SipRuntimeInfo({ s }: { s: SipSettings }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  return (
    <Box sx={{ mb: 2 }} data-testid="sip-runtime">
      <Typography variant="subtitle2">{translate(S('interfaces'))}</Typography>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', my: 1 }}>
        {s.interfaces.length ? (
          s.interfaces.map((i) => <Chip key={`${i.transport}-${i.port}`} label={`${i.transport.toUpperCase()} ${i.address}:${i.port}`} />)
        ) : (
          <Typography variant="body2" color="text.secondary">
            {translate(S('not_running'))}
          </Typography>
        )}
      </Box>
      <Typography variant="subtitle2">{translate(S('nodes'))}</Typography>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', my: 1 }}>
        {s.nodes.length ? (
          s.nodes.map((n) => (
            <Chip
              key={`${n.type}-${n.address}`}
              color={n.state === 'running' ? 'success' : 'error'}
              label={translate(S(`node_${n.state}`), { address: n.address, time: formatDateTime(n.started_at, locale) })}
            />
          ))
        ) : (
          <Typography variant="body2" color="text.secondary">
            {translate(S('not_running'))}
          </Typography>
        )}
      </Box>
      <Typography variant="body2" color="text.secondary">
        {translate(S('runtime_hint'))}
      </Typography>
    </Box>
  );
}

export function SipTab() {
  const readOnly = useReadOnly();
  const { query, save } = useSettings<SipSettings>('/settings/sip');
  if (!query.data) return <Loading error={query.isError} />;
  const s = query.data;
  const rtpOrder = (_v: unknown, all: Record<string, unknown>) => {
    const rtp = all.rtp as { min?: number; max?: number } | undefined;
    return rtp && Number(rtp.max) <= Number(rtp.min) ? 'validation.greater_than' : undefined;
  };
  return (
    <Form
      key={JSON.stringify(s)}
      defaultValues={s}
      onSubmit={async (v: Record<string, unknown>) => {
        await save.mutateAsync(sipBody(v as SipSettings)).catch(() => undefined);
      }}
    >
      <ReadOnlyNote readOnly={readOnly} />
      <FormSection title={S('listeners')} hint={S('listeners_hint')} />
      <SipRuntimeInfo s={s} />
      <Box sx={grid}>
        <NumberInput source="port" label={S('port')} validate={required} min={1} max={65535} readOnly={readOnly} />
        <NumberInput source="ws_port" label={S('ws_port')} validate={required} min={1} max={65535} readOnly={readOnly} />
        <TextInput source="server.internal_ip" label={S('internal_ip')} validate={ip} readOnly={readOnly} />
        <TextInput source="server.external_ip" label={S('external_ip')} validate={ip} readOnly={readOnly} />
        <NumberInput source="rtp.min" label={S('rtp_min')} validate={required} min={1024} max={65535} readOnly={readOnly} />
        <NumberInput
          source="rtp.max"
          label={S('rtp_max')}
          validate={[required, rtpOrder]}
          min={1024}
          max={65535}
          helperText={S('rtp_hint')}
          readOnly={readOnly}
        />
      </Box>
      <BooleanInput source="is_early_media_enabled" label={S('early_media')} helperText={S('early_media_hint')} readOnly={readOnly} />
      <TextArrayInput
        source="local_networks"
        label={S('local_networks')}
        validate={subnetworks}
        helperText={S('local_networks_hint')}
        readOnly={readOnly}
        fullWidth
      />
      <CheckboxGroupInput
        source="codecs"
        label={S('codecs')}
        choices={SIP_CODECS.map((id) => ({ id, name: id }))}
        readOnly={readOnly}
        translateChoice={false}
      />

      <FormSection title={S('auto_forward')} hint={S('auto_forward_hint')} />
      <Box sx={grid3}>
        <BooleanInput source="auto_forward_rules.is_enabled" label={S('auto_forward_enabled')} readOnly={readOnly} />
        <SelectInput
          source="auto_forward_rules.device_protocol"
          label={S('device_protocol')}
          choices={SIP_DEVICE_PROTOCOLS.map((id) => ({ id, name: id }))}
          translateChoice={false}
          readOnly={readOnly}
        />
        <SelectInput
          source="auto_forward_rules.use_address"
          label={S('use_address')}
          choices={choices(SIP_USE_ADDRESSES, S('addresses'))}
          readOnly={readOnly}
        />
      </Box>

      <FormSection title={S('phonebook')} hint={S('phonebook_hint')} />
      <Box sx={grid}>
        <BooleanInput source="resident_phonebook_settings.is_enabled" label={S('phonebook_enabled')} readOnly={readOnly} />
        <BooleanInput source="resident_phonebook_settings.show_all_groups" label={S('phonebook_all_groups')} readOnly={readOnly} />
      </Box>
      <SaveRow readOnly={readOnly} busy={save.isPending} />
    </Form>
  );
}

// ---- push server -----------------------------------------------------------------------------------

/** Sends a test push with the saved push settings to the signed-in user's own apps (issue 14). */
function TestPush() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const [busy, setBusy] = useState(false);
  return (
    <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', mb: 2 }}>
      <Button
        variant="outlined"
        startIcon={<SendIcon />}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            const { data } = await dp.request<{ data: TestPushResult }>('/settings/push/test', { method: 'POST', body: {} });
            alert.success(P('test_sent'), { status: data.status, smart_count: data.tokens });
          } catch (e) {
            alert.error(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {translate(P('test'))}
      </Button>
      <Typography variant="body2" color="text.secondary">
        {translate(P('test_hint'))}
      </Typography>
    </Box>
  );
}

export function PushTab() {
  const readOnly = useReadOnly();
  const { query, save } = useSettings<PushSettings>('/settings/push');
  if (!query.data) return <Loading error={query.isError} />;
  const s = query.data;
  const urlIfOn = (v: unknown, all: Record<string, unknown>) =>
    all.is_enabled && !String(v ?? '').trim() ? 'validation.required' : undefined;
  return (
    <Form
      key={JSON.stringify(s)}
      defaultValues={pushFormValues(s)}
      onSubmit={async (v: Record<string, unknown>) => {
        await save.mutateAsync(pushBody(v as PushFormValues)).catch(() => undefined);
      }}
    >
      <ReadOnlyNote readOnly={readOnly} />
      <FormSection title={P('title')} hint={P('hint')} />
      <BooleanInput source="is_enabled" label={P('is_enabled')} readOnly={readOnly} />
      <Box sx={grid}>
        <TextInput
          source="url"
          label={P('url')}
          validate={[urlIfOn, urlOrIp]}
          readOnly={readOnly}
          helperText="https://push.example.com:80"
        />
        <PasswordInput
          source="token"
          label={P('token')}
          readOnly={readOnly}
          autoComplete="off"
          helperText={s.has_token ? G('secret_kept') : false}
        />
      </Box>
      <SaveRow readOnly={readOnly} busy={save.isPending} />
      {readOnly ? null : <TestPush />}
    </Form>
  );
}

// ---- MQTT broker -----------------------------------------------------------------------------------

function BrokerStatusCard() {
  const translate = useTranslate();
  const { locale } = useFormat();
  const readOnly = useReadOnly();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['settings', 'broker-status'],
    queryFn: async () => (await dp.request<{ data: BrokerStatus }>('/settings/broker/status')).data,
  });
  const restart = useMutation({
    mutationFn: async () =>
      (await dp.request<{ data: BrokerStatus }>('/settings/broker/restart', { method: 'POST', body: { type: 'broker' } })).data,
    onSuccess: (data) => {
      queryClient.setQueryData(['settings', 'broker-status'], data);
      alert.done();
    },
    onError: (e) => alert.error(e),
  });
  // The devices are told of the broker on every change; this tells them again (those that were away).
  const notify = useNotify();
  const send = useMutation({
    mutationFn: async () => (await dp.request<{ data: BrokerSendResult }>('/settings/broker/send', { method: 'POST', body: {} })).data,
    onSuccess: (data) => notify(B('sent'), { type: 'success', messageArgs: { smart_count: data.devices } }),
    onError: (e) => alert.error(e),
  });
  if (!status.data) return <Loading error={status.isError} />;
  const s = status.data;
  return (
    <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
      <Chip label={translate(B(`modes.${s.mode}`))} />
      <Chip color={s.is_running ? 'success' : 'default'} label={translate(B(s.is_running ? 'running' : 'stopped'))} />
      {s.connected === null ? null : (
        <Chip color={s.connected ? 'success' : 'warning'} label={translate(B(s.connected ? 'connected' : 'disconnected'))} />
      )}
      {s.mode === 'embedded' ? (
        <Chip
          data-testid="broker-tls"
          color={s.tls_port === null ? 'default' : 'success'}
          label={s.tls_port === null ? translate(B('tls_off')) : translate(B('tls_on'), { port: s.tls_port })}
        />
      ) : null}
      {s.started_at ? (
        <Typography variant="body2" color="text.secondary">
          {translate(B('started_at'), { time: formatDateTime(s.started_at, locale) })}
        </Typography>
      ) : null}
      {readOnly ? null : (
        <Button variant="outlined" startIcon={<RestartAltIcon />} disabled={restart.isPending} onClick={() => restart.mutate()}>
          {translate(B('restart'))}
        </Button>
      )}
      {readOnly ? null : (
        <Button variant="outlined" startIcon={<SendIcon />} disabled={send.isPending} onClick={() => send.mutate()}>
          {translate(B('send'))}
        </Button>
      )}
    </Box>
  );
}

function FilePick({ label, file, onFile, disabled }: { label: string; file: File | null; onFile: (f: File) => void; disabled: boolean }) {
  const translate = useTranslate();
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
      <Button component="label" variant="outlined" startIcon={<UploadFileIcon />} disabled={disabled}>
        {translate(label)}
        <input
          hidden
          type="file"
          accept=".pem,.crt,.key,.cer"
          aria-label={translate(label)}
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f) onFile(f);
          }}
        />
      </Button>
      <Typography variant="body2" color="text.secondary">
        {file ? file.name : translate(B('no_file'))}
      </Typography>
    </Box>
  );
}

export function BrokerTab() {
  const translate = useTranslate();
  const { locale } = useFormat();
  const readOnly = useReadOnly();
  const { query, dp, alert, set } = useSettings<BrokerSettings>('/settings/broker');
  const queryClient = useQueryClient();
  const [use, setUse] = useState<boolean | null>(null);
  const [cert, setCert] = useState<File | null>(null);
  const [key, setKey] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  if (!query.data) return <Loading error={query.isError} />;
  const s = query.data;
  const useUserCerts = use ?? s.use_user_certs;
  const half = (cert === null) !== (key === null);
  return (
    <Box>
      <ReadOnlyNote readOnly={readOnly} />
      <FormSection title={B('status')} />
      <BrokerStatusCard />
      <FormSection title={B('certificates')} hint={B('certificates_hint')} />
      <FormControlLabel
        control={<Switch checked={useUserCerts} disabled={readOnly} onChange={(e) => setUse(e.target.checked)} />}
        label={translate(B('use_user_certs'))}
      />
      {s.certificate ? (
        <Alert severity="info" sx={{ my: 1 }}>
          {translate(B('current'), {
            subject: s.certificate.subject,
            issuer: s.certificate.issuer,
            valid_to: formatDate(s.certificate.valid_to, locale),
          })}
          {s.has_key ? ` ${translate(B('key_kept'))}` : ''}
        </Alert>
      ) : null}
      {readOnly ? null : (
        <>
          <Box sx={{ display: 'flex', gap: 3, flexWrap: 'wrap', my: 1 }}>
            <FilePick label={B('certfile')} file={cert} onFile={setCert} disabled={busy} />
            <FilePick label={B('keyfile')} file={key} onFile={setKey} disabled={busy} />
          </Box>
          {half ? (
            <Alert severity="warning" sx={{ mb: 1 }}>
              {translate(B('both_files'))}
            </Alert>
          ) : null}
          <Button
            variant="contained"
            startIcon={<SaveIcon />}
            disabled={busy || half}
            onClick={async () => {
              setBusy(true);
              try {
                const res = await dp.request<{ data: BrokerSettings }>('/settings/broker', {
                  method: 'POST',
                  body: brokerForm(useUserCerts, cert, key),
                });
                set(res.data);
                // The embedded broker applied them: its TLS port opened, moved to the new pair or closed.
                void queryClient.invalidateQueries({ queryKey: ['settings', 'broker-status'] });
                setCert(null);
                setKey(null);
                setUse(null);
                alert.done();
              } catch (e) {
                alert.error(e);
              } finally {
                setBusy(false);
              }
            }}
          >
            {translate('ra.action.save')}
          </Button>
        </>
      )}
    </Box>
  );
}

// ---- management company white-label ------------------------------------------------------------------

function Logo({ url, readOnly }: { url: string | null; readOnly: boolean }) {
  const translate = useTranslate();
  const { dp, alert, set } = useSettings<WhiteLabelSettings>('/settings/white-label');
  const [busy, setBusy] = useState(false);
  const run = async (call: () => Promise<{ data: WhiteLabelSettings }>) => {
    setBusy(true);
    try {
      set((await call()).data);
      alert.done();
    } catch (e) {
      alert.error(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
      <Box
        sx={{
          width: 160,
          height: 80,
          border: 1,
          borderColor: 'divider',
          borderRadius: 1,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          overflow: 'hidden',
          bgcolor: 'background.default',
        }}
      >
        {url ? (
          <img src={url} alt={translate(W('logo'))} style={{ maxWidth: '100%', maxHeight: '100%' }} />
        ) : (
          <Typography variant="caption" color="text.secondary">
            {translate(W('no_logo'))}
          </Typography>
        )}
      </Box>
      {readOnly ? null : (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
          <ImageFileButton
            label={translate(W('upload_logo'))}
            accept={IMAGE_TYPES}
            size="small"
            disabled={busy}
            onFile={(file) => {
              const form = new FormData();
              form.append('logo', file, file.name);
              void run(() => dp.request('/settings/white-label/logo', { method: 'POST', body: form }));
            }}
          />
          {url ? (
            <Button
              color="error"
              size="small"
              startIcon={<DeleteIcon />}
              disabled={busy}
              onClick={() => run(() => dp.request('/settings/white-label/logo', { method: 'DELETE' }))}
            >
              {translate(W('remove_logo'))}
            </Button>
          ) : null}
          <Typography variant="caption" color="text.secondary">
            {translate(W('logo_hint'))}
          </Typography>
        </Box>
      )}
    </Box>
  );
}

export function WhiteLabelTab() {
  const readOnly = useReadOnly();
  const { query, save } = useSettings<WhiteLabelSettings>('/settings/white-label');
  if (!query.data) return <Loading error={query.isError} />;
  const s = query.data;
  return (
    <Box>
      <ReadOnlyNote readOnly={readOnly} />
      <FormSection title={W('title')} hint={W('hint')} />
      <Logo url={s.logo_url} readOnly={readOnly} />
      <Form
        key={JSON.stringify({ ...s, logo_url: null })}
        defaultValues={s}
        onSubmit={async (v: Record<string, unknown>) => {
          await save.mutateAsync(whiteLabelBody(v as WhiteLabelSettings)).catch(() => undefined);
        }}
      >
        <Box sx={grid}>
          <TextInput source="name" label={W('name')} validate={maxLength(255)} readOnly={readOnly} />
          <TextInput source="address" label={W('address')} validate={maxLength(500)} readOnly={readOnly} />
          <TextInput source="email" label={W('email')} validate={email} readOnly={readOnly} />
          <TextInput source="phone" label={W('phone')} validate={maxLength(32)} readOnly={readOnly} helperText="+1 555 0100" />
          <TextInput
            source="app_store_url"
            label={W('app_store_url')}
            validate={httpUrl}
            readOnly={readOnly}
            helperText={W('app_links_hint')}
          />
          <TextInput
            source="google_play_url"
            label={W('google_play_url')}
            validate={httpUrl}
            readOnly={readOnly}
            helperText={W('app_links_hint')}
          />
        </Box>
        <SaveRow readOnly={readOnly} busy={save.isPending} />
      </Form>
    </Box>
  );
}
