import type { Identifier } from '@atrium/contract';
import QrCodeIcon from '@mui/icons-material/QrCode2';
import { Alert, Avatar, Button, Tooltip } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { TopToolbar, useDataProvider, useNotify, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { ImageFileButton } from '../../app/kit/ImageCropDialog';
import { EditPage } from '../../app/kit/RecordPage';
import { GuestForm } from './GuestForm';
import { GuestUrlDialog } from './GuestUrlDialog';
import { useDateTimeText, useGuestSave, useIdentifierName } from './shared';
import { type GuestFormValues, guestFormValues, updateGuestBody } from './transform';

// The pass is read as an identifier; saving goes through PATCH /guest-access/{id} (the resource's own path).
const READ = { meta: { path: 'identifiers' } };

function GuestTitle() {
  const translate = useTranslate();
  const identifierName = useIdentifierName();
  const record = useRecordContext<Identifier>();
  return <span>{record ? translate('guest_access.edit_title', { name: identifierName(record) }) : translate('guest_access.title')}</span>;
}

/**
 * The guest's photo, sent by the grantor (POST /guest-access/{id}/photo): where face ID for guests is
 * licensed, a door that recognises faces opens for the guest only on seeing it.
 */
function GuestPhoto({ record }: { record: Identifier }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const upload = async (file: File) => {
    const form = new FormData();
    form.append('image', file, file.name);
    try {
      await dp.request(`/guest-access/${record.id}/photo`, { method: 'POST', body: form });
      notify('guest_access.photo_saved', { type: 'success' });
      refresh();
    } catch (e) {
      notify(e instanceof Error ? e.message : 'ra.notification.http_error', { type: 'error' });
    }
  };
  return (
    <Tooltip title={translate('guest_access.photo_hint')}>
      <span style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
        {record.photo_url ? <Avatar src={record.photo_url} alt={translate('guest_access.photo')} sx={{ width: 32, height: 32 }} /> : null}
        <ImageFileButton
          size="small"
          variant="text"
          label={translate(record.photo_url ? 'guest_access.photo_change' : 'guest_access.photo')}
          onFile={(f) => void upload(f)}
        />
      </span>
    </Tooltip>
  );
}

function GuestActions() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  const [open, setOpen] = useState(false);
  if (!record) return null;
  return (
    <TopToolbar>
      <GuestPhoto record={record} />
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
