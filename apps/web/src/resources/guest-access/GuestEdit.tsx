import type { Identifier } from '@atrium/contract';
import QrCodeIcon from '@mui/icons-material/QrCode2';
import { Alert, Button } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { TopToolbar, useDataProvider, useNotify, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { EditPage } from '../../app/kit/RecordPage';
import { GuestForm } from './GuestForm';
import { GuestUrlDialog } from './GuestUrlDialog';
import { useDateTimeText, useGuestSave } from './shared';
import { type GuestFormValues, guestFormValues, updateGuestBody } from './transform';

// The pass is read as an identifier; saving goes through PATCH /guest-access/{id} (the resource's own path).
const READ = { meta: { path: 'identifiers' } };

function GuestTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  return <span>{record ? translate('guest_access.edit_title', { name: record.name }) : translate('guest_access.title')}</span>;
}

function GuestActions() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  const [open, setOpen] = useState(false);
  if (!record) return null;
  return (
    <TopToolbar>
      <Button size="small" startIcon={<QrCodeIcon />} onClick={() => setOpen(true)}>
        {translate('guest_access.show_qr')}
      </Button>
      {open ? <GuestUrlDialog value={record.value} onClose={() => setOpen(false)} /> : null}
    </TopToolbar>
  );
}

function GuestEditForm() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const queryClient = useQueryClient();
  const dateText = useDateTimeText();
  const record = useRecordContext<Identifier>();
  const values = useMemo(() => (record ? guestFormValues(record) : null), [record]);
  const { limits, onSubmit } = useGuestSave(async (v: GuestFormValues) => {
    if (!record) return;
    await dp.request(`/guest-access/${record.id}`, { method: 'PATCH', body: updateGuestBody(v) });
    notify('guest_access.saved', { type: 'success' });
    await queryClient.invalidateQueries({ queryKey: ['guest-access'] });
    refresh();
  });
  if (!record || !values) return null;
  return (
    <GuestForm
      mode="edit"
      record={values}
      onSubmit={onSubmit}
      limits={limits}
      passesUsed={record.passes_restrict_active ? record.passes_restrict_passes_count : undefined}
      notice={
        record.is_revoked ? (
          <Alert severity="error" variant="outlined" sx={{ mb: 2, width: '100%' }}>
            {translate('guest_access.revoked_notice', { date: dateText(record.revoked_at) })}
          </Alert>
        ) : null
      }
    />
  );
}

/** `/guest-access/:id/edit`: changes a granted pass's doors, period, passes or message. */
export function GuestEdit() {
  return (
    <EditPage title={<GuestTitle />} actions={<GuestActions />} queryOptions={READ}>
      <GuestEditForm />
    </EditPage>
  );
}
