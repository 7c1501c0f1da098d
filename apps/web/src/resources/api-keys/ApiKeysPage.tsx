import type { ApiKey, CreateApiKeyBody, CreatedApiKey } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import { Alert, Box, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Confirm,
  DateTimeInput,
  Form,
  FunctionField,
  required,
  SaveButton,
  SelectInput,
  TextInput,
  useDataProvider,
  useLocaleState,
  useTranslate,
} from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ACTIONS_CELL } from '../../app/kit/ListBody';
import { EllipsisField, EmptyState } from '../../app/kit/ListPage';
import { OneTimeSecretDialog } from '../../app/kit/OneTimeSecret';
import { RecordsList, RecordsListPage } from '../../app/kit/RecordsList';
import { RowActions } from '../../app/kit/RowActions';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const L = (k: string) => `api_keys.${k}`;
const KEY = ['api-keys'] as const;
/** Who manages keys (the server's rule, modules/api-keys). */
export const API_KEYS_PERMISSION = 'can_change_project_settings';

const STATUS_COLOR = { active: 'success', expired: 'default', revoked: 'error' } as const;

/** The body of a create from the form's values: empty groups and expiry are left out. */
export function createBody(v: { name?: string; role?: number; domains?: number[]; expires_at?: string | Date | null }): CreateApiKeyBody {
  return {
    name: (v.name ?? '').trim(),
    role: Number(v.role),
    domains: v.domains ?? [],
    ...(v.expires_at ? { expires_at: new Date(v.expires_at).toISOString() } : {}),
  };
}

/** The keys of the project as a list: name, start of the key, role, status, last use; revoke and delete. */
export function ApiKeysTable({
  keys,
  loading,
  onRevoke,
  onDelete,
}: {
  keys: ApiKey[] | undefined;
  loading?: boolean;
  onRevoke: (k: ApiKey) => void;
  onDelete: (k: ApiKey) => void;
}) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const when = (iso: string | null, none: string) => (iso ? formatDateTime(iso, locale) : translate(L(none)));
  return (
    <RecordsList
      records={keys}
      loading={loading}
      resource="api-keys"
      // When a key was made matters less than when it was last used and when it expires.
      secondary={['created_at']}
      empty={<EmptyState text={translate(L('empty'))} />}
    >
      <EllipsisField source="name" label={L('fields.name')} />
      <FunctionField
        source="prefix"
        label={L('fields.prefix')}
        render={(k: ApiKey) => <Box component="span" sx={{ fontFamily: 'monospace' }}>{`${k.prefix}…`}</Box>}
      />
      <EllipsisField source="role" label={L('fields.role')} render={(k) => (k as ApiKey).role_info?.name} />
      <FunctionField
        source="status"
        label={L('fields.status')}
        render={(k: ApiKey) => <Chip size="small" color={STATUS_COLOR[k.status]} label={translate(L(`status.${k.status}`))} />}
      />
      <FunctionField source="last_used_at" label={L('fields.last_used_at')} render={(k: ApiKey) => when(k.last_used_at, 'never')} />
      <FunctionField source="expires_at" label={L('fields.expires_at')} render={(k: ApiKey) => when(k.expires_at, 'no_expiry')} />
      <FunctionField source="created_at" label={L('fields.created_at')} render={(k: ApiKey) => when(k.created_at, 'never')} />
      <FunctionField
        label="form.actions"
        sortable={false}
        cellClassName={ACTIONS_CELL}
        render={(k: ApiKey) => (
          <RowActions
            name={k.name}
            actions={[
              ...(k.status === 'active' ? [{ label: translate(L('revoke')), onClick: () => onRevoke(k) }] : []),
              { label: translate(L('delete')), onClick: () => onDelete(k), danger: true },
            ]}
          />
        )}
      />
    </RecordsList>
  );
}

function CreateDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (k: CreatedApiKey) => void }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const roles = useQuery({
    queryKey: [...KEY, 'roles'],
    queryFn: () => dp.request<{ data: { id: number; name: string }[] }>('/roles/available'),
    enabled: open,
  });
  const create = useMutation({
    mutationFn: (body: CreateApiKeyBody) => dp.request<{ data: CreatedApiKey }>('/api-keys', { method: 'PUT', body }),
    onSuccess: (res) => onCreated(res.data),
    onError: (e) => alert.error(e),
  });
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <Form onSubmit={(v: Record<string, unknown>) => create.mutate(createBody(v as Parameters<typeof createBody>[0]))}>
        <DialogTitle>{translate(L('create.title'))}</DialogTitle>
        <DialogContent sx={{ pt: '8px !important' }}>
          <TextInput source="name" label={L('fields.name')} validate={required()} fullWidth />
          <SelectInput
            source="role"
            label={L('fields.role')}
            choices={roles.data?.data ?? []}
            isLoading={roles.isLoading}
            validate={required()}
            helperText={L('create.role_hint')}
            fullWidth
          />
          <GroupsInput source="domains" label={L('fields.domains')} helperText={L('create.domains_hint')} fullWidth />
          <DateTimeInput source="expires_at" label={L('fields.expires_at')} helperText={L('create.expires_hint')} fullWidth />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
          <SaveButton label={L('create.submit')} icon={<AddIcon />} disabled={create.isPending} alwaysEnable />
        </DialogActions>
      </Form>
    </Dialog>
  );
}

/** API keys (issue 14): list, create with the key shown once, revoke, delete. */
export function ApiKeysPage() {
  const translate = useTranslate();
  const { can } = useSessionData();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'revoke' | 'delete'; key: ApiKey } | null>(null);
  const mayManage = can(API_KEYS_PERMISSION);
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => dp.request<{ data: ApiKey[] }>('/api-keys?size=1000'),
    enabled: mayManage,
  });
  const act = useMutation({
    mutationFn: ({ kind, key }: { kind: 'revoke' | 'delete'; key: ApiKey }) =>
      kind === 'revoke'
        ? dp.request(`/api-keys/${key.id}/revoke`, { method: 'POST', body: {} })
        : dp.request(`/api-keys/${key.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setConfirm(null);
      alert.done();
      void queryClient.invalidateQueries({ queryKey: KEY });
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
          <Button size="small" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
            {translate(L('new'))}
          </Button>
        }
      >
        <ApiKeysTable
          keys={list.data?.data}
          loading={list.isLoading}
          onRevoke={(key) => setConfirm({ kind: 'revoke', key })}
          onDelete={(key) => setConfirm({ kind: 'delete', key })}
        />
      </RecordsListPage>
      <CreateDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(k) => {
          setCreating(false);
          setSecret(k.key);
          void queryClient.invalidateQueries({ queryKey: KEY });
        }}
      />
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
        title={translate(L(`${confirm?.kind ?? 'revoke'}_title`))}
        content={translate(L(`${confirm?.kind ?? 'revoke'}_confirm`), { name: confirm?.key.name ?? '' })}
        onConfirm={() => confirm && act.mutate(confirm)}
        onClose={() => setConfirm(null)}
      />
    </>
  );
}
