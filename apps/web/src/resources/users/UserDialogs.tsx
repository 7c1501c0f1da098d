import type { MobileClientInfo, User } from '@atrium/contract';
import { generatePassword, minLength, PASSWORD_MIN_LENGTH, required } from '@atrium/contract';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  Avatar,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Confirm, PasswordInput, useDataProvider, useInput, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime, useFormat } from '../../app/format';
import { FormDialog } from '../../app/kit/FormDialog';
import { croppedImageForm, ImageCropDialog, ImageFileButton } from '../../app/kit/ImageCropDialog';
import { useAlert } from '../../app/useAlert';

function GeneratedPasswordInput({ source, label }: { source: string; label: string }) {
  const translate = useTranslate();
  const { field } = useInput({ source });
  return (
    <Stack direction="row" sx={{ alignItems: 'flex-start', gap: 1 }}>
      <PasswordInput
        source={source}
        label={label}
        validate={[required, minLength(PASSWORD_MIN_LENGTH)]}
        fullWidth
        autoComplete="new-password"
      />
      <Tooltip title={translate('users.password.generate')}>
        <IconButton aria-label={translate('users.password.generate')} onClick={() => field.onChange(generatePassword(12))} sx={{ mt: 1 }}>
          <AutorenewIcon />
        </IconButton>
      </Tooltip>
    </Stack>
  );
}

/** Change password of a user (`POST /users/{id}/password {new_password}`). */
export function ChangePasswordDialog({ user, open, onClose }: { user: User; open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  return (
    <FormDialog
      open={open}
      title={translate('users.password.title', { name: user.name })}
      record={{ new_password: '' }}
      onClose={onClose}
      onApprove={async (v: Record<string, unknown>) => {
        try {
          await dp.request(`/users/${user.id}/password`, { method: 'POST', body: { new_password: String(v.new_password) } });
          alert.done();
          onClose();
        } catch (error) {
          alert.error(error);
          throw error;
        }
      }}
    >
      <GeneratedPasswordInput source="new_password" label="users.password.new_password" />
    </FormDialog>
  );
}

/** How a mobile client's field reads: the platform by name, the sign-in time in local time, a dash for nothing. */
function clientField(
  c: MobileClientInfo,
  f: (typeof MOBILE_CLIENT_FIELDS)[number],
  translate: (k: string) => string,
  locale: string,
): string {
  const v = c[f];
  if (v === null || v === undefined || v === '') return '—';
  if (f === 'platform') return translate(`users.mobile.platforms.${v}`);
  if (f === 'auth_at') return formatDateTime(String(v), locale);
  return String(v);
}

const MOBILE_CLIENT_FIELDS = ['mobile_client_id', 'platform', 'info', 'auth_at', 'vendor_id', 'sip_number', 'ukey2'] as const;

/**
 * A user's mobile clients, read-only (spec entities §2), each with a remove button for whoever may
 * act on the user (`onRemove`; the server checks the same rules).
 */
export function MobileClientList({ clients, onRemove }: { clients: MobileClientInfo[]; onRemove?: (c: MobileClientInfo) => void }) {
  const translate = useTranslate();
  const { locale } = useFormat();
  if (clients.length === 0) return <Typography color="text.secondary">{translate('users.mobile.none')}</Typography>;
  return (
    <>
      {clients.map((c) => (
        <Stack key={c.id} direction="row" sx={{ alignItems: 'flex-start', gap: 1, mb: 2 }}>
          <Table size="small" aria-label={c.mobile_client_id}>
            <TableBody>
              {MOBILE_CLIENT_FIELDS.map((f) => (
                <TableRow key={f}>
                  <TableCell component="th" sx={{ width: 180, fontWeight: 500 }}>
                    {translate(`users.mobile.${f}`)}
                  </TableCell>
                  <TableCell>{clientField(c, f, translate, locale)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          {onRemove ? (
            <Tooltip title={translate('users.mobile.remove')}>
              <IconButton aria-label={translate('users.mobile.remove')} onClick={() => onRemove(c)}>
                <DeleteIcon />
              </IconButton>
            </Tooltip>
          ) : null}
        </Stack>
      ))}
    </>
  );
}

/** The user's mobile clients in a dialog; `canRemove`: the signed-in user may act on this user. */
export function MobileClientsDialog({
  user,
  open,
  onClose,
  canRemove,
}: {
  user: User;
  open: boolean;
  onClose: () => void;
  canRemove: boolean;
}) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const [removing, setRemoving] = useState<MobileClientInfo | null>(null);
  const remove = async () => {
    if (!removing) return;
    try {
      await dp.request(`/users/${user.id}/mobile-clients/${removing.id}`, { method: 'DELETE' });
      alert.done();
      refresh();
    } catch (error) {
      alert.error(error);
    } finally {
      setRemoving(null);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} fullWidth slotProps={{ paper: { sx: { maxWidth: 640 } } }} aria-labelledby="mobile-clients-title">
      <DialogTitle id="mobile-clients-title">{translate('users.mobile.title')}</DialogTitle>
      <DialogContent dividers>
        <MobileClientList clients={user.mobile_clients ?? []} onRemove={canRemove ? setRemoving : undefined} />
        <Confirm
          isOpen={removing !== null}
          title="users.mobile.remove"
          content="users.mobile.remove_confirm"
          translateOptions={{ id: removing?.mobile_client_id ?? '' }}
          onConfirm={remove}
          onClose={() => setRemoving(null)}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('app.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * A user's avatar: upload with a square cropper, or removal (`POST /users/{id}/avatar`). The server
 * keeps the picture it gets as is, so the console sends the cropped square (`croppedImageForm`).
 * `readOnly`: the picture only, for a user the signed-in one may not edit.
 */
export function UserAvatar({ user, readOnly = false }: { user: User; readOnly?: boolean }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);

  const upload = async (blob: Blob) => {
    setBusy(true);
    try {
      await dp.request(`/users/${user.id}/avatar`, { method: 'POST', body: croppedImageForm(blob) });
      alert.done();
      setFile(null);
      refresh();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    try {
      await dp.request(`/users/${user.id}/avatar`, { method: 'DELETE' });
      alert.done();
      refresh();
    } catch (error) {
      alert.error(error);
    }
  };

  return (
    <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 2 }}>
      <Avatar
        src={user.avatar_url ?? undefined}
        alt={translate('resources.users.fields.avatar_url')}
        sx={{ width: 72, height: 72, fontSize: 30 }}
      >
        {(user.name || user.login).slice(0, 1).toUpperCase()}
      </Avatar>
      {readOnly ? null : (
        <Stack spacing={1}>
          <ImageFileButton label={translate('users.avatar.upload')} size="small" onFile={setFile} />
          {user.avatar_url ? (
            <Button color="error" size="small" startIcon={<DeleteIcon />} onClick={remove}>
              {translate('users.avatar.remove')}
            </Button>
          ) : null}
        </Stack>
      )}
      <ImageCropDialog
        file={file}
        title="users.avatar.crop"
        zoomLabel="users.avatar.zoom"
        idPrefix="user-"
        busy={busy}
        onClose={() => setFile(null)}
        onCropped={upload}
        onError={alert.error}
      />
    </Stack>
  );
}
