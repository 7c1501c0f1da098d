import { BACKUP_ENTITIES, type Backup, type BackupApplyResult, type BackupEntity } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import DownloadIcon from '@mui/icons-material/Download';
import RestoreIcon from '@mui/icons-material/SettingsBackupRestore';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm, FunctionField, useDataProvider, useLocaleState, useNotify, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText, hasTranslation, type Translate } from '../../app/errors';
import { formatBytes, formatDateTime } from '../../app/format';
import { downloadFile, LONG_TIMEOUT_MS } from '../../app/kit/download';
import { ACTIONS_CELL, PROSE_CELL } from '../../app/kit/ListBody';
import { BulkDeleteWithConfirm, EllipsisField, EmptyState } from '../../app/kit/ListPage';
import { RecordsList, RecordsListPage } from '../../app/kit/RecordsList';
import { RowActions } from '../../app/kit/RowActions';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const L = (k: string) => `backups.${k}`;
const KEY = ['backups'] as const;

/** The server's rules (modules/backups): each call has its own permission. */
export const BACKUP_PERMISSIONS = {
  create: 'can_create_backups',
  delete: 'can_delete_backups',
  view: 'can_view_backups',
  apply: 'can_apply_backups',
  applyFile: 'can_apply_backups_from_file',
  download: 'can_download_backups',
} as const;

/**
 * The text of a failed call: the spec's display rule, and for a refused backup the reason the
 * server gives (which file part, which table), translated when the console knows it.
 */
export function backupErrorText(error: unknown, translate: Translate): string {
  const text = errorText(error, translate);
  const body = (error as { body?: { details?: unknown } } | null)?.body;
  const first = Array.isArray(body?.details)
    ? (body.details[0] as { message?: unknown; params?: Record<string, unknown> } | undefined)
    : undefined;
  if (typeof first?.message !== 'string') return text;
  const key = `errors.http.${first.message.toLowerCase()}`;
  const reason = hasTranslation(translate, key) ? translate(key, first.params ?? {}) : first.message;
  return `${text}: ${reason}`;
}

export const entityNames = (entities: readonly string[], translate: Translate): string =>
  entities.map((e) => translate(L(`entities.${e}`))).join(', ');

export type BackupAction = 'download' | 'apply' | 'delete';

/** The project's backups as a list: name, entities, size, when made and last applied; actions by permission. */
export function BackupsTable({
  backups,
  loading,
  onAction,
  can,
}: {
  backups: Backup[] | undefined;
  loading?: boolean;
  onAction: (action: BackupAction, b: Backup) => void;
  can: (code: string) => boolean;
}) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const when = (iso: string | null) => (iso ? formatDateTime(iso, locale) : translate(L('never')));
  const mayDelete = can(BACKUP_PERMISSIONS.delete);
  return (
    <RecordsList
      records={backups}
      loading={loading}
      resource="backups"
      sort={{ field: 'created_at', order: 'DESC' }}
      bulkActions={mayDelete ? <BulkDeleteWithConfirm path="backups" /> : false}
      empty={<EmptyState text={translate(L('empty'))} />}
    >
      <EllipsisField source="name" label={L('fields.name')} />
      <FunctionField
        source="entities"
        label={L('fields.entities')}
        sortable={false}
        cellClassName={PROSE_CELL}
        render={(b: Backup) => entityNames(b.entities, translate)}
      />
      <FunctionField source="size" label={L('fields.size')} render={(b: Backup) => formatBytes(b.size, locale)} />
      <FunctionField source="created_at" label={L('fields.created_at')} render={(b: Backup) => when(b.created_at)} />
      <FunctionField source="applied_at" label={L('fields.applied_at')} render={(b: Backup) => when(b.applied_at)} />
      {can(BACKUP_PERMISSIONS.download) || can(BACKUP_PERMISSIONS.apply) || mayDelete ? (
        <FunctionField
          label="form.actions"
          sortable={false}
          cellClassName={ACTIONS_CELL}
          render={(b: Backup) => (
            <RowActions
              name={b.name}
              actions={[
                ...(can(BACKUP_PERMISSIONS.download)
                  ? [{ label: translate(L('download')), onClick: () => onAction('download', b), icon: <DownloadIcon fontSize="small" /> }]
                  : []),
                ...(can(BACKUP_PERMISSIONS.apply)
                  ? [{ label: translate(L('apply')), onClick: () => onAction('apply', b), icon: <RestoreIcon fontSize="small" /> }]
                  : []),
                ...(mayDelete ? [{ label: translate(L('delete')), onClick: () => onAction('delete', b), danger: true }] : []),
              ]}
            />
          )}
        />
      ) : null}
    </RecordsList>
  );
}

/** The entities a backup keeps, as checkboxes with all and none. */
export function EntitiesPicker({
  value,
  onChange,
  error,
}: {
  value: readonly BackupEntity[];
  onChange: (v: BackupEntity[]) => void;
  error: boolean;
}) {
  const translate = useTranslate();
  return (
    <Box>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography variant="subtitle2" sx={{ flexGrow: 1 }}>
          {translate(L('make_dialog.entities'))}
        </Typography>
        <Button size="small" onClick={() => onChange([...BACKUP_ENTITIES])}>
          {translate(L('make_dialog.all'))}
        </Button>
        <Button size="small" onClick={() => onChange([])}>
          {translate(L('make_dialog.none'))}
        </Button>
      </Stack>
      <FormGroup sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
        {BACKUP_ENTITIES.map((e) => (
          <FormControlLabel
            key={e}
            control={
              <Checkbox
                size="small"
                name={`entity-${e}`}
                checked={value.includes(e)}
                onChange={() =>
                  onChange(value.includes(e) ? value.filter((x) => x !== e) : BACKUP_ENTITIES.filter((x) => x === e || value.includes(x)))
                }
              />
            }
            label={translate(L(`entities.${e}`))}
          />
        ))}
      </FormGroup>
      {error ? <FormHelperText error>{translate(L('make_dialog.entities_required'))}</FormHelperText> : null}
    </Box>
  );
}

function MakeDialog({ open, onClose, onMade }: { open: boolean; onClose: () => void; onMade: () => void }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const alert = useAlert();
  const [name, setName] = useState('');
  const [entities, setEntities] = useState<BackupEntity[]>([...BACKUP_ENTITIES]);
  const [tried, setTried] = useState(false);
  const make = useMutation({
    mutationFn: () =>
      dp.request<{ data: Backup }>('/backups/make', {
        method: 'POST',
        body: { name: name.trim() || translate(L('make_dialog.name_default'), { date: formatDateTime(new Date(), locale) }), entities },
        timeout: LONG_TIMEOUT_MS,
      }),
    onSuccess: () => {
      alert.done();
      setName('');
      setEntities([...BACKUP_ENTITIES]);
      setTried(false);
      onMade();
    },
    onError: (e) => notify(backupErrorText(e, translate), { type: 'error' }),
  });
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{translate(L('make_dialog.title'))}</DialogTitle>
      <DialogContent sx={{ pt: '8px !important' }}>
        <TextField
          name="name"
          label={translate(L('fields.name'))}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={translate(L('make_dialog.name_default'), { date: formatDateTime(new Date(), locale) })}
          slotProps={{ htmlInput: { maxLength: 100 } }}
          fullWidth
          sx={{ mb: 2 }}
        />
        <EntitiesPicker value={entities} onChange={setEntities} error={tried && entities.length === 0} />
        <Alert severity="info" sx={{ mt: 2 }}>
          {translate(L('make_dialog.secrets'))}
        </Alert>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button
          variant="contained"
          startIcon={make.isPending ? <CircularProgress size={16} /> : <AddIcon />}
          disabled={make.isPending}
          onClick={() => {
            setTried(true);
            if (entities.length) make.mutate();
          }}
        >
          {translate(L('make_dialog.submit'))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function ApplyFileDialog({ open, onClose, onApplied }: { open: boolean; onClose: () => void; onApplied: (r: BackupApplyResult) => void }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const [file, setFile] = useState<File | null>(null);
  // A file this server did not sign (made elsewhere, or changed) is applied only when asked for on purpose.
  const [acceptUnsigned, setAcceptUnsigned] = useState(false);
  const apply = useMutation({
    mutationFn: (f: File) => {
      const form = new FormData();
      if (acceptUnsigned) form.append('accept_unsigned', 'true');
      form.append('file', f, f.name);
      return dp.request<{ data: BackupApplyResult }>('/backups/apply', { method: 'POST', body: form, timeout: LONG_TIMEOUT_MS });
    },
    onSuccess: (res) => {
      setFile(null);
      onApplied(res.data);
    },
    onError: (e) => notify(backupErrorText(e, translate), { type: 'error' }),
  });
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{translate(L('file_dialog.title'))}</DialogTitle>
      <DialogContent>
        <Typography variant="body2" sx={{ mb: 2 }}>
          {translate(L('file_dialog.hint'))}
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 2 }}>
          <Button component="label" variant="outlined" startIcon={<UploadFileIcon />}>
            {translate(L('file_dialog.choose'))}
            <input
              hidden
              type="file"
              name="file"
              accept=".zip,application/zip"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              data-testid="backup-file-input"
            />
          </Button>
          <Typography variant="body2" color="text.secondary">
            {file?.name ?? translate(L('file_dialog.none'))}
          </Typography>
        </Stack>
        <Alert severity="warning">{translate(L('file_dialog.warning'))}</Alert>
        <FormControlLabel
          sx={{ mt: 1 }}
          control={<Checkbox checked={acceptUnsigned} onChange={(e) => setAcceptUnsigned(e.target.checked)} />}
          label={translate(L('file_dialog.accept_unsigned'))}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button
          variant="contained"
          color="warning"
          startIcon={apply.isPending ? <CircularProgress size={16} /> : <RestoreIcon />}
          disabled={!file || apply.isPending}
          onClick={() => file && apply.mutate(file)}
        >
          {translate(L('file_dialog.submit'))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** What waits for the caller's confirmation. */
type Pending = { kind: 'apply'; backup: Backup } | { kind: 'delete'; backup: Backup };

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

/** Backups (spec entities §3, §4, §7): list, make, download, apply stored or from a file, delete one or many. */
export function BackupsPage() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const { can } = useSessionData();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [making, setMaking] = useState(false);
  const [fromFile, setFromFile] = useState(false);
  const [confirm, setConfirm] = useState<Pending | null>(null);
  const mayView = can(BACKUP_PERMISSIONS.view);
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => dp.request<{ data: Backup[] }>('/backups', { query: { size: 1000, sort: '-created_at' } }),
    enabled: mayView,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: KEY });
  const applied = (r: BackupApplyResult) => {
    notify(L(r.signature === 'unverified' ? 'applied_unverified' : 'applied'), {
      type: r.signature === 'unverified' ? 'warning' : 'success',
      messageArgs: { name: r.name, restored: sum(r.restored), removed: sum(r.removed) },
    });
    // Every list of the console may show what changed.
    void queryClient.invalidateQueries();
  };
  const act = useMutation({
    mutationFn: async (c: Pending) => {
      if (c.kind === 'apply')
        return dp.request<{ data: BackupApplyResult }>(`/backups/${c.backup.id}/apply`, {
          method: 'POST',
          body: {},
          timeout: LONG_TIMEOUT_MS,
        });
      return dp.request(`/backups/${c.backup.id}`, { method: 'DELETE' });
    },
    onSuccess: (res, c) => {
      setConfirm(null);
      if (c.kind === 'apply') applied((res as { data: BackupApplyResult }).data);
      else {
        alert.done();
        refresh();
      }
    },
    onError: (e) => {
      setConfirm(null);
      notify(backupErrorText(e, translate), { type: 'error' });
    },
  });
  const onAction = (action: BackupAction, backup: Backup) => {
    if (action === 'download') {
      downloadFile(`/backups/${backup.id}/download`, undefined, `backup-${backup.id}.zip`).catch((e: unknown) => alert.error(e));
    } else setConfirm(action === 'apply' ? { kind: 'apply', backup } : { kind: 'delete', backup });
  };
  const confirmTitle = !confirm
    ? ''
    : confirm.kind === 'apply'
      ? translate(L('apply_title'), { name: confirm.backup.name })
      : translate(L('delete_title'));
  const confirmText = !confirm
    ? ''
    : confirm.kind === 'apply'
      ? translate(L('apply_confirm'), {
          entities: entityNames(confirm.backup.entities, translate),
          date: formatDateTime(confirm.backup.created_at, locale),
        })
      : translate(L('delete_confirm'), { name: confirm.backup.name });

  return (
    <>
      <RecordsListPage
        title={translate(L('title'))}
        hint={translate(L('hint'))}
        actions={
          <>
            {can(BACKUP_PERMISSIONS.applyFile) ? (
              <Button size="small" startIcon={<UploadFileIcon />} onClick={() => setFromFile(true)}>
                {translate(L('apply_file'))}
              </Button>
            ) : null}
            {can(BACKUP_PERMISSIONS.create) ? (
              <Button size="small" startIcon={<AddIcon />} onClick={() => setMaking(true)}>
                {translate(L('make'))}
              </Button>
            ) : null}
          </>
        }
      >
        {!mayView ? (
          <Alert severity="warning">{translate(L('denied'))}</Alert>
        ) : list.isError ? (
          <Alert severity="error">{backupErrorText(list.error, translate)}</Alert>
        ) : (
          <BackupsTable backups={list.data?.data} loading={list.isLoading} onAction={onAction} can={can} />
        )}
      </RecordsListPage>
      <MakeDialog
        open={making}
        onClose={() => setMaking(false)}
        onMade={() => {
          setMaking(false);
          refresh();
        }}
      />
      <ApplyFileDialog
        open={fromFile}
        onClose={() => setFromFile(false)}
        onApplied={(r) => {
          setFromFile(false);
          applied(r);
        }}
      />
      <Confirm
        isOpen={confirm !== null}
        loading={act.isPending}
        title={confirmTitle}
        content={confirmText}
        onConfirm={() => confirm && act.mutate(confirm)}
        onClose={() => setConfirm(null)}
      />
    </>
  );
}
