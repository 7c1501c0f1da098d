import type { StructureImportResult } from '@atrium/contract';
import { required } from '@atrium/contract';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Form, SelectInput, useDataProvider, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../dataProvider';
import { errorText } from '../errors';
import { domainTypeName, roleName } from '../seeded';
import { useAlert } from '../useAlert';
import { downloadFile, LONG_TIMEOUT_MS, tzOffsetMinutes } from './download';
import { FormDialog } from './FormDialog';
import { GROUPS_API, GroupInput } from './GroupPicker';

const AVAILABLE_ROLES = ['roles', 'available'];

/** The roles the caller may assign (`GET /roles/available`), for pickers. */
export function useAvailableRoles() {
  const dp = useDataProvider<AtriumDataProvider>();
  const translate = useTranslate();
  return useQuery({
    queryKey: AVAILABLE_ROLES,
    queryFn: async () => (await dp.request<{ data: { id: number; name: string }[] }>('/roles/available')).data,
    staleTime: 60_000,
    select: (roles) => roles.map((r) => ({ ...r, name: roleName(r, translate) })),
  });
}

/**
 * Mutation options of a role's create and edit pages: react-admin refreshes only its own queries of
 * `roles`, so the assignable roles are dropped here, or the user form would miss a role just made.
 */
export function useAvailableRolesRefresh() {
  const queryClient = useQueryClient();
  return useMemo(() => ({ onSettled: () => queryClient.invalidateQueries({ queryKey: AVAILABLE_ROLES }) }), [queryClient]);
}

/** The domain types, for pickers. */
export function useDomainTypes() {
  const dp = useDataProvider<AtriumDataProvider>();
  const translate = useTranslate();
  return useQuery({
    queryKey: ['domain-types', 'all'],
    queryFn: async () =>
      (await dp.request<{ data: { id: number; type: number; name: string }[] }>('/domain-types', { query: { size: 1000 } })).data,
    staleTime: 60_000,
    select: (types) => types.map((t) => ({ ...t, name: domainTypeName(t, translate) })),
  });
}

/**
 * Users-by-group export (spec entities §7 structure export): the group (fixed when opened from a
 * group), optionally one domain type, as a spreadsheet in the caller's time zone.
 */
export function StructureExportDialog({ open, onClose, groupId }: { open: boolean; onClose: () => void; groupId?: number }) {
  const translate = useTranslate();
  const alert = useAlert();
  const types = useDomainTypes();
  return (
    <FormDialog
      open={open}
      title={translate('structure.export_title')}
      record={{ group: groupId ?? null, domain_type: '' }}
      approveLabel={translate('kit.download')}
      onClose={onClose}
      onApprove={async (v: Record<string, unknown>) => {
        try {
          const id = Number(v.group);
          await downloadFile(
            `/${GROUPS_API}/${id}/export/structure`,
            { domain_type: v.domain_type ? Number(v.domain_type) : undefined, tz_offset: tzOffsetMinutes() },
            `structure-${id}.xlsx`,
          );
          alert.done();
          onClose();
        } catch (error) {
          alert.error(error);
          throw error;
        }
      }}
    >
      {groupId ? null : <GroupInput source="group" label="structure.group" validate={required} fullWidth />}
      <SelectInput
        source="domain_type"
        label="structure.domain_type"
        choices={types.data ?? []}
        emptyText="structure.all_types"
        fullWidth
      />
      <Typography variant="body2" color="text.secondary">
        {translate('structure.export_hint')}
      </Typography>
    </FormDialog>
  );
}

/**
 * Users-by-group import (spec entities §7 structure import): a spreadsheet, the role new users get,
 * the caller's time zone; answers how many users were attached and created and each row's error.
 */
export function StructureImportDialog({ open, onClose, groupId }: { open: boolean; onClose: () => void; groupId?: number }) {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const roles = useAvailableRoles();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<StructureImportResult | null>(null);

  const close = () => {
    setFile(null);
    setResult(null);
    onClose();
  };

  const run = async (v: Record<string, unknown>) => {
    if (!file) return;
    const form = new FormData();
    if (v.role_id) form.append('role_id', String(v.role_id));
    form.append('file', file, file.name);
    setBusy(true);
    try {
      const id = groupId ?? Number(v.group);
      const body = await dp.request<{ data: StructureImportResult }>(`/${GROUPS_API}/${id}/import/structure`, {
        method: 'POST',
        body: form,
        query: { tz_offset: tzOffsetMinutes() },
        timeout: LONG_TIMEOUT_MS,
      });
      setResult(body.data);
      alert.done();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : close}
      fullWidth
      slotProps={{ paper: { sx: { maxWidth: 900 } } }}
      aria-labelledby="structure-import-title"
    >
      <Form record={{ group: groupId ?? null, role_id: '' }} onSubmit={run}>
        <DialogTitle id="structure-import-title">{translate('structure.import_title')}</DialogTitle>
        <DialogContent dividers>
          {groupId ? null : <GroupInput source="group" label="structure.group" validate={required} fullWidth />}
          <SelectInput source="role_id" label="structure.role" choices={roles.data ?? []} emptyText="structure.no_role" fullWidth />
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
            <Button component="label" variant="outlined" startIcon={<UploadFileIcon />}>
              {translate('kit.upload')}
              <input
                hidden
                type="file"
                accept=".xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
                aria-label={translate('kit.upload')}
                onChange={(e) => {
                  setFile(e.target.files?.[0] ?? null);
                  setResult(null);
                  e.target.value = '';
                }}
              />
            </Button>
            <Typography color={file ? 'text.primary' : 'text.secondary'}>{file?.name ?? translate('kit.no_file')}</Typography>
          </Box>
          <Typography variant="body2" color="text.secondary">
            {translate('structure.import_hint')}
          </Typography>
          {busy ? <LinearProgress sx={{ mt: 2 }} aria-label={translate('kit.busy')} /> : null}
          {result ? (
            <Box sx={{ mt: 2 }} role="status">
              <Alert severity={result.errors_total ? 'warning' : 'success'}>
                {translate('structure.result', {
                  attached: result.users_attached,
                  created: result.users_created,
                  errors: result.errors_total,
                })}
                {result.errors_total > result.errors.length
                  ? ` ${translate('structure.first_errors', { shown: result.errors.length, total: result.errors_total })}`
                  : null}
              </Alert>
              {result.errors.length ? (
                <Table size="small" sx={{ mt: 1 }}>
                  <TableHead>
                    <TableRow>
                      <TableCell>{translate('structure.row')}</TableCell>
                      <TableCell>{translate('structure.field')}</TableCell>
                      <TableCell>{translate('structure.error')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {result.errors.map((e) => (
                      <TableRow key={`${e.row}-${e.code}-${e.field ?? ''}`}>
                        <TableCell>{e.row}</TableCell>
                        <TableCell>{e.field ?? '—'}</TableCell>
                        <TableCell>{errorText({ message: e.message }, translate)}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              ) : null}
            </Box>
          ) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={busy}>
            {translate(result ? 'app.close' : 'form.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={busy || !file}>
            {translate('structure.import')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
