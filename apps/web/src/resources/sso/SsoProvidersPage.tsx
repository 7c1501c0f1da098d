import { DUMMY_PASSWORD, SSO_MATCH_FIELDS, type SsoProvider, type UpdateSsoProviderBody } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import {
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  BooleanInput,
  Confirm,
  Form,
  FunctionField,
  PasswordInput,
  required,
  SaveButton,
  SelectInput,
  TextInput,
  Title,
  useDataProvider,
  useTranslate,
} from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { GroupInput } from '../../app/kit/GroupPicker';
import { EllipsisField, EmptyState } from '../../app/kit/ListPage';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const L = (k: string) => `sso.${k}`;
const KEY = ['sso-providers'] as const;
/** Who manages providers (the server's rule, modules/sso): changing project settings; viewing them reads. */
export const SSO_CHANGE_PERMISSION = 'can_change_project_settings';

type FormValues = Partial<Omit<SsoProvider, 'client_secret'>> & { client_secret?: string | null };

/** The body of a create or update from the form: the placeholder (or nothing) keeps the stored secret. */
export function providerBody(v: FormValues): UpdateSsoProviderBody {
  const secret = v.client_secret;
  return {
    name: (v.name ?? '').trim(),
    issuer: (v.issuer ?? '').trim(),
    client_id: (v.client_id ?? '').trim(),
    ...(secret && secret !== DUMMY_PASSWORD ? { client_secret: secret } : {}),
    scopes: (v.scopes ?? '').trim() || 'openid email profile',
    claim: (v.claim ?? '').trim() || 'email',
    match_field: v.match_field ?? 'email',
    is_enabled: v.is_enabled ?? true,
    auto_create: v.auto_create ?? false,
    default_role_id: v.default_role_id ?? null,
    default_group_id: v.default_group_id ?? null,
  };
}

/** Single sign-on providers of the project (issue 14): OpenID Connect issuers people sign in with. */
export function SsoProvidersPage() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const queryClient = useQueryClient();
  const alert = useAlert();
  const { permissions } = useSessionData();
  const mayChange = permissions.includes(SSO_CHANGE_PERMISSION);
  const [editing, setEditing] = useState<SsoProvider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<SsoProvider | null>(null);
  const list = useQuery({ queryKey: KEY, queryFn: () => dp.request<{ data: SsoProvider[] }>('/sso-providers') });
  const remove = useMutation({
    mutationFn: (id: number) => dp.request(`/sso-providers/${id}`, { method: 'DELETE' }),
    onSuccess: () => {
      alert.done();
      setDeleting(null);
      void queryClient.invalidateQueries({ queryKey: KEY });
    },
    onError: (e) => alert.error(e),
  });
  const rows = list.data?.data ?? [];
  return (
    <Box sx={{ maxWidth: 1100 }}>
      <Title title={translate(L('title'))} />
      <Card>
        <CardContent>
          <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'flex-start', gap: 2, mb: 2 }}>
            <Typography variant="body2" color="text.secondary">
              {translate(L('intro'))}
            </Typography>
            {mayChange ? (
              <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')} sx={{ flexShrink: 0 }}>
                {translate(L('add'))}
              </Button>
            ) : null}
          </Box>
          <RecordsList
            records={rows}
            loading={list.isLoading}
            resource="sso-providers"
            label={translate(L('title'))}
            empty={<EmptyState text={translate(L('empty'))} />}
          >
            <FunctionField source="name" label={L('fields.name')} render={(p: SsoProvider) => p.name} />
            <EllipsisField source="issuer" label={L('fields.issuer')} />
            <EllipsisField source="client_id" label={L('fields.client_id')} />
            <FunctionField
              source="claim"
              label={L('fields.match')}
              sortable={false}
              render={(p: SsoProvider) => `${p.claim} → ${translate(L(`match_fields.${p.match_field}`))}`}
            />
            <FunctionField
              source="is_enabled"
              label={L('fields.status')}
              render={(p: SsoProvider) => (
                <>
                  <Chip
                    size="small"
                    color={p.is_enabled ? 'success' : 'default'}
                    label={translate(L(p.is_enabled ? 'enabled' : 'disabled'))}
                  />
                  {p.auto_create ? <Chip size="small" sx={{ ml: 1 }} label={translate(L('creates_users'))} /> : null}
                </>
              )}
            />
            {mayChange ? (
              <FunctionField
                label="form.actions"
                render={(p: SsoProvider) => (
                  <>
                    <Tooltip title={translate('ra.action.edit')}>
                      <IconButton aria-label={`${translate('ra.action.edit')} ${p.name}`} onClick={() => setEditing(p)}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={translate('ra.action.delete')}>
                      <IconButton aria-label={`${translate('ra.action.delete')} ${p.name}`} onClick={() => setDeleting(p)}>
                        <DeleteIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </>
                )}
              />
            ) : null}
          </RecordsList>
        </CardContent>
      </Card>
      {editing ? <ProviderDialog provider={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      <Confirm
        isOpen={!!deleting}
        title={translate(L('delete_title'))}
        content={translate(L('delete_confirm'), { name: deleting?.name ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
}

function ProviderDialog({ provider, onClose }: { provider: SsoProvider | null; onClose: () => void }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const queryClient = useQueryClient();
  const alert = useAlert();
  const roles = useQuery({
    queryKey: [...KEY, 'roles'],
    queryFn: () => dp.request<{ data: { id: number; name: string }[] }>('/roles/available'),
  });
  const save = useMutation({
    mutationFn: (body: UpdateSsoProviderBody) =>
      provider
        ? dp.request(`/sso-providers/${provider.id}`, { method: 'PATCH', body })
        : dp.request('/sso-providers', { method: 'PUT', body }),
    onSuccess: () => {
      alert.done();
      void queryClient.invalidateQueries({ queryKey: KEY });
      onClose();
    },
    onError: (e) => alert.error(e),
  });
  const record: FormValues = provider
    ? { ...provider, client_secret: provider.has_client_secret ? DUMMY_PASSWORD : '' }
    : { scopes: 'openid email profile', claim: 'email', match_field: 'email', is_enabled: true, auto_create: false };
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <Form record={record} onSubmit={(v: Record<string, unknown>) => save.mutate(providerBody(v as FormValues))}>
        <DialogTitle>{translate(L(provider ? 'edit_title' : 'add'))}</DialogTitle>
        <DialogContent>
          <TextInput source="name" label={L('fields.name')} validate={required()} helperText={L('hints.name')} fullWidth />
          <TextInput source="issuer" label={L('fields.issuer')} validate={required()} helperText={L('hints.issuer')} fullWidth />
          <TextInput source="client_id" label={L('fields.client_id')} validate={required()} fullWidth />
          <PasswordInput source="client_secret" label={L('fields.client_secret')} autoComplete="new-password" fullWidth />
          <TextInput source="scopes" label={L('fields.scopes')} helperText={L('hints.scopes')} fullWidth />
          <TextInput source="claim" label={L('fields.claim')} helperText={L('hints.claim')} fullWidth />
          <SelectInput
            source="match_field"
            label={L('fields.match_field')}
            choices={SSO_MATCH_FIELDS.map((f) => ({ id: f, name: L(`match_fields.${f}`) }))}
            fullWidth
          />
          <BooleanInput source="is_enabled" label={L('fields.is_enabled')} />
          <BooleanInput source="auto_create" label={L('fields.auto_create')} helperText={L('hints.auto_create')} />
          <SelectInput
            source="default_role_id"
            label={L('fields.default_role')}
            choices={roles.data?.data ?? []}
            isLoading={roles.isLoading}
            emptyText="—"
            fullWidth
          />
          <GroupInput source="default_group_id" label={translate(L('fields.default_group'))} fullWidth />
          <Typography variant="caption" color="text.secondary" component="p">
            {translate(L('hints.redirect'), { url: `${window.location.origin}/api/v0/sso/callback` })}
          </Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
          <SaveButton alwaysEnable />
        </DialogActions>
      </Form>
    </Dialog>
  );
}
