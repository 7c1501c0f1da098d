import {
  LICENSE_FEATURES,
  type License,
  type LicenseFeature,
  type LicenseFeaturesState,
  type LicenseList,
  type LicenseStatus,
  type LicenseUsage,
} from '@atrium/contract';
import CloudDownloadIcon from '@mui/icons-material/CloudDownload';
import DeleteIcon from '@mui/icons-material/Delete';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  LinearProgress,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, useRef, useState } from 'react';
import { FunctionField, Title, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { formatDate } from '../../app/format';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { countText, enabledFeatures, periodDay, usedPercent } from './format';
import { GroupShares } from './GroupShares';

const L = (k: string) => `licenses.${k}`;
const STATUS_COLOR: Record<LicenseStatus, 'success' | 'warning' | 'default' | 'info' | 'error'> = {
  active: 'success',
  ending: 'warning',
  disabled: 'default',
  pending: 'info',
  expired: 'error',
};

/** A server without an issuer key: everything is on and anyone may sign a licence it takes. */
export function DevelopmentServerWarning({ state }: { state: Pick<LicenseFeaturesState, 'development_server'> }) {
  const translate = useTranslate();
  if (!state.development_server) return null;
  return (
    <Alert severity="warning" sx={{ mb: 2 }} data-testid="license-development-server">
      {translate(L('development_server'))}
    </Alert>
  );
}

function InEffect({ state }: { state: LicenseFeaturesState }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const rows: [string, string][] = [
    [L('source'), translate(L(`sources.${state.source}`))],
    [L('expires_at'), state.expires_at ? formatDate(state.expires_at, locale) : translate(L('unlimited'))],
    [L('instance_id'), state.instance_id],
    [L('project_uid'), state.project_uid],
  ];
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate(L('in_effect'))}
        </Typography>
        {rows.map(([label, value]) => (
          <Stack key={label} direction="row" spacing={2} sx={{ py: 0.5, justifyContent: 'space-between' }}>
            <Typography variant="body2" color="text.secondary">
              {translate(label)}
            </Typography>
            <Typography variant="body2" sx={{ textAlign: 'right', wordBreak: 'break-all' }} data-testid={`license-${label.split('.')[1]}`}>
              {value}
            </Typography>
          </Stack>
        ))}
        <Typography variant="caption" color="text.secondary">
          {translate(L('instance_hint'))}
        </Typography>
      </CardContent>
    </Card>
  );
}

function Usage({ usage }: { usage: LicenseUsage }) {
  const translate = useTranslate();
  const over = new Set(usage.restrictors.map((r) => r.type.replace(/_qty$/, '')));
  const rows = [
    { key: 'sip', used: usage.sip_numbers_used, limit: usage.limits.sip },
    { key: 'mobile_app', used: usage.mobile_app_used, limit: usage.limits.mobile_app },
    { key: 'ukey2', used: usage.ukey2_used, limit: usage.limits.ukey2 },
  ];
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate(L('usage'))}
        </Typography>
        {rows.map((r) => (
          <Box key={r.key} sx={{ py: 0.75 }} data-testid={`usage-${r.key}`}>
            <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between', alignItems: 'center' }}>
              <Typography variant="body2">{translate(L(`counted.${r.key}`))}</Typography>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                {over.has(r.key) && <Chip size="small" color="error" label={translate(L('over_limit'))} />}
                <Typography variant="body2" color="text.secondary">
                  {r.limit === null
                    ? translate(L('used_unlimited'), { used: r.used })
                    : translate(L('used_of'), { used: r.used, limit: r.limit })}
                </Typography>
              </Stack>
            </Stack>
            {/* The text above says the figures; the bar only draws them. */}
            <LinearProgress
              aria-hidden
              variant="determinate"
              value={usedPercent(r.used, r.limit)}
              color={over.has(r.key) ? 'error' : 'primary'}
              sx={{ mt: 0.5, visibility: r.limit === null ? 'hidden' : 'visible' }}
            />
          </Box>
        ))}
      </CardContent>
    </Card>
  );
}

function Features({ state }: { state: LicenseFeaturesState }) {
  const translate = useTranslate();
  const on = new Set(enabledFeatures(state.features));
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate(L('features'))}
        </Typography>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
          {(Object.keys(LICENSE_FEATURES) as LicenseFeature[]).map((f) => (
            <Chip
              key={f}
              size="small"
              variant={on.has(f) ? 'filled' : 'outlined'}
              color={on.has(f) ? 'success' : 'default'}
              label={`${translate(L(`feature_names.${f}`))}: ${translate(L(on.has(f) ? 'on' : 'off'))}`}
              data-testid={`feature-${f}`}
            />
          ))}
        </Box>
      </CardContent>
    </Card>
  );
}

function CloudDialog({ open, onClose, enabled }: { open: boolean; onClose: () => void; enabled: boolean }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');
  const get = useMutation({
    mutationFn: () => dp.request('/licenses/cloud', { method: 'POST', body: key.trim() ? { key: key.trim() } : {} }),
    onSuccess: () => {
      alert.success(L('added'));
      void queryClient.invalidateQueries();
      onClose();
    },
    onError: (e) => alert.error(e),
  });
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm">
      <DialogTitle>{translate(L('cloud_title'))}</DialogTitle>
      <DialogContent>
        {!enabled && (
          <Alert severity="info" sx={{ mb: 2 }}>
            {translate(L('cloud_disabled'))}
          </Alert>
        )}
        <TextField
          fullWidth
          margin="dense"
          label={translate(L('cloud_key'))}
          value={key}
          onChange={(e) => setKey(e.target.value)}
          slotProps={{ htmlInput: { maxLength: 200 } }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate(L('cancel'))}</Button>
        <Button variant="contained" disabled={get.isPending} onClick={() => get.mutate()}>
          {translate(L('get'))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function LicenseRows({ list, mayManage }: { list: LicenseList; mayManage: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState<License | null>(null);
  const remove = useMutation({
    mutationFn: (id: number) => dp.request(`/licenses/${id}`, { method: 'DELETE' }),
    onSuccess: () => {
      alert.success(L('removed'));
      setRemoving(null);
      void queryClient.invalidateQueries();
    },
    onError: (e) => alert.error(e),
  });
  const unlimited = translate(L('unlimited'));
  if (!list.items.length) return <Typography color="text.secondary">{translate(L('empty'))}</Typography>;
  return (
    <>
      <RecordsList records={list.items} resource="licenses" primary="customer" label={translate(L('list'))}>
        <FunctionField source="customer" label={L('columns.customer')} sortable={false} render={(l: License) => l.customer} />
        <FunctionField
          source="status"
          label={L('columns.status')}
          sortable={false}
          render={(l: License) => (
            <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
              <Chip size="small" color={STATUS_COLOR[l.status]} label={translate(L(`statuses.${l.status}`))} />
              {list.active_ids.includes(l.id) && <Chip size="small" variant="outlined" label={translate(L('in_use'))} />}
              {l.days !== null && (
                <Typography variant="caption" color="text.secondary">
                  {translate(L('days_left'), { smart_count: l.days })}
                </Typography>
              )}
            </Stack>
          )}
        />
        <FunctionField
          source="period"
          label={L('columns.period')}
          sortable={false}
          render={(l: License) => {
            const from = periodDay(l.period.from, locale);
            const to = periodDay(l.period.to, locale);
            return from || to ? `${from ?? '…'} – ${to ?? '…'}` : unlimited;
          }}
        />
        <FunctionField
          source="counts"
          label={L('columns.counts')}
          sortable={false}
          render={(l: License) =>
            [l.features.sip.license_count, l.features.mobile_app.license_count, l.features.ukey2.license_count].map(countText).join(' / ')
          }
        />
        <FunctionField
          source="source"
          label={L('columns.source')}
          sortable={false}
          render={(l: License) => translate(L(`file_sources.${l.source}`))}
        />
        <FunctionField
          source="issued_at"
          label={L('columns.issued_at')}
          sortable={false}
          render={(l: License) => (l.issued_at ? formatDate(l.issued_at, locale) : '')}
        />
        {mayManage ? (
          <FunctionField
            label={L('columns.actions')}
            render={(l: License) => (
              <Tooltip title={translate(L('remove'))}>
                <IconButton size="small" aria-label={translate(L('remove'))} onClick={() => setRemoving(l)}>
                  <DeleteIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            )}
          />
        ) : null}
      </RecordsList>
      <Dialog open={removing !== null} onClose={() => setRemoving(null)}>
        <DialogTitle>{translate(L('remove_title'), { customer: removing?.customer ?? '' })}</DialogTitle>
        <DialogContent>
          <DialogContentText>{translate(L('remove_text'))}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRemoving(null)}>{translate(L('cancel'))}</Button>
          <Button color="error" variant="contained" disabled={remove.isPending} onClick={() => removing && remove.mutate(removing.id)}>
            {translate(L('remove'))}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** Licences (spec comms §2 /licenses): the licence in effect, usage, features, installed licences; add and remove. */
export function LicensesPage() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const mayManage = can('can_manage_licenses');
  // Group shares (issue 14): seen with a view of groups' licences, changed with an edit of their counts (the server decides per group).
  const shareEdit = [
    'can_edit_self_domain_license_counts',
    'can_edit_descendant_domain_license_counts',
    'can_edit_all_domain_license_counts',
  ].some((p) => can(p));
  const shareView =
    shareEdit ||
    ['can_view_self_domain_licenses', 'can_view_descendant_domain_licenses', 'can_view_all_domain_licenses'].some((p) => can(p));
  const fileInput = useRef<HTMLInputElement>(null);
  const [cloudOpen, setCloudOpen] = useState(false);
  const state = useQuery({
    queryKey: ['licenses', 'features'],
    queryFn: async () => (await dp.request<{ data: LicenseFeaturesState }>('/licenses/features')).data,
  });
  const usage = useQuery({
    queryKey: ['licenses', 'usage'],
    queryFn: async () => (await dp.request<{ data: LicenseUsage }>('/licenses/usage')).data,
  });
  const list = useQuery({
    queryKey: ['licenses', 'list'],
    queryFn: async () => (await dp.request<{ data: LicenseList }>('/licenses')).data,
  });
  const upload = useMutation({
    mutationFn: (file: File) => {
      const body = new FormData();
      body.append('file', file);
      return dp.request('/licenses/file', { method: 'POST', body });
    },
    onSuccess: () => {
      alert.success(L('added'));
      // The features in effect changed: the lists here, the menu, the profile and the licence warning follow.
      void queryClient.invalidateQueries();
    },
    onError: (e) => alert.error(e),
  });
  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (file) upload.mutate(file);
  };
  const title = <Title title={translate(L('title'))} />;
  const failed = state.error ?? usage.error ?? list.error;
  if (failed)
    return (
      <Box sx={{ p: 2 }}>
        {title}
        <Alert severity="error">{errorText(failed, translate)}</Alert>
      </Box>
    );
  if (!state.data || !usage.data || !list.data) return <CircularProgress aria-label={translate('app.loading')} />;
  return (
    <Box sx={{ p: 2 }}>
      {title}
      {mayManage && (
        <Stack direction="row" spacing={1} sx={{ mb: 2 }}>
          <input
            ref={fileInput}
            type="file"
            accept=".json,.lic,application/json"
            hidden
            onChange={onFile}
            data-testid="license-file-input"
          />
          <Button variant="contained" startIcon={<UploadFileIcon />} disabled={upload.isPending} onClick={() => fileInput.current?.click()}>
            {translate(L('add_file'))}
          </Button>
          <Button variant="outlined" startIcon={<CloudDownloadIcon />} onClick={() => setCloudOpen(true)}>
            {translate(L('add_cloud'))}
          </Button>
        </Stack>
      )}
      <DevelopmentServerWarning state={state.data} />
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr', lg: '1fr 1fr 1fr' }, mb: 2 }}>
        <InEffect state={state.data} />
        <Usage usage={usage.data} />
        <Features state={state.data} />
      </Box>
      <Card variant="outlined">
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            {translate(L('list'))}
          </Typography>
          <LicenseRows list={list.data} mayManage={mayManage} />
        </CardContent>
      </Card>
      {shareView ? <GroupShares features={state.data.features} editable={shareEdit} /> : null}
      <CloudDialog open={cloudOpen} onClose={() => setCloudOpen(false)} enabled={state.data.cloud_enabled} />
    </Box>
  );
}
