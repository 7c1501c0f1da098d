import type { User } from '@atrium/contract';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import DeleteIcon from '@mui/icons-material/Delete';
import UploadIcon from '@mui/icons-material/Upload';
import {
  Avatar,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Slider,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { PasswordInput, useDataProvider, useInput, useRefresh, useTranslate } from 'react-admin';
import Cropper, { type Area } from 'react-easy-crop';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { FormDialog } from '../../app/kit/FormDialog';
import { useAlert } from '../../app/useAlert';
import { generatePassword, minLength, PASSWORD_MIN_LENGTH, required } from '../../app/validators';

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

/** The read-only mobile client info dialog (spec entities §2). */
export function MobileClientsDialog({ user, open, onClose }: { user: User; open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const fields = ['mobile_client_id', 'platform', 'info', 'auth_at', 'vendor_id', 'sip_number', 'ukey2'] as const;
  const clients = user.mobile_clients as Record<string, unknown>[];
  return (
    <Dialog open={open} onClose={onClose} fullWidth slotProps={{ paper: { sx: { maxWidth: 600 } } }} aria-labelledby="mobile-clients-title">
      <DialogTitle id="mobile-clients-title">{translate('users.mobile.title')}</DialogTitle>
      <DialogContent dividers>
        {clients.length === 0 ? <Typography color="text.secondary">{translate('users.mobile.none')}</Typography> : null}
        {clients.map((c, i) => (
          <Table key={String(c.mobile_client_id ?? i)} size="small" sx={{ mb: 2 }}>
            <TableBody>
              {fields.map((f) => (
                <TableRow key={f}>
                  <TableCell component="th" sx={{ width: 180, fontWeight: 500 }}>
                    {translate(`users.mobile.${f}`)}
                  </TableCell>
                  <TableCell>{c[f] === null || c[f] === undefined || c[f] === '' ? '—' : String(c[f])}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ))}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('app.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

const OUTPUT_SIZE = 256;

/** Cuts the square `area` out of `src`, scaled to 256 px, as a PNG. */
async function cropToBlob(src: string, area: Area): Promise<Blob> {
  const image = new Image();
  image.src = src;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = OUTPUT_SIZE;
  canvas.height = OUTPUT_SIZE;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('canvas unavailable');
  ctx.drawImage(image, area.x, area.y, area.width, area.height, 0, 0, OUTPUT_SIZE, OUTPUT_SIZE);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('crop failed'))), 'image/png'));
}

/**
 * A user's avatar: upload with a square cropper, or removal (`POST /users/{id}/avatar`). The server
 * keeps the picture it gets as is, so the console sends the cropped square and x, y, size describe all of it.
 * `readOnly`: the picture only, for a user the signed-in one may not edit.
 */
export function UserAvatar({ user, readOnly = false }: { user: User; readOnly?: boolean }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const [source, setSource] = useState<string | null>(null);
  const [crop, setCrop] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(1);
  const [area, setArea] = useState<Area | null>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    if (source) URL.revokeObjectURL(source);
    setSource(null);
  };

  const upload = async () => {
    if (!area || !source) return;
    setBusy(true);
    try {
      const form = new FormData();
      form.append('x', '0');
      form.append('y', '0');
      form.append('size', String(OUTPUT_SIZE));
      form.append('image', await cropToBlob(source, area), 'avatar.png');
      await dp.request(`/users/${user.id}/avatar`, { method: 'POST', body: form });
      alert.done();
      close();
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
          <Button component="label" variant="outlined" size="small" startIcon={<UploadIcon />}>
            {translate('users.avatar.upload')}
            <input
              hidden
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              aria-label={translate('users.avatar.upload')}
              onChange={(e) => {
                const f = e.target.files?.[0];
                e.target.value = '';
                if (!f) return;
                setCrop({ x: 0, y: 0 });
                setZoom(1);
                setSource(URL.createObjectURL(f));
              }}
            />
          </Button>
          {user.avatar_url ? (
            <Button color="error" size="small" startIcon={<DeleteIcon />} onClick={remove}>
              {translate('users.avatar.remove')}
            </Button>
          ) : null}
        </Stack>
      )}
      <Dialog
        open={!!source}
        onClose={busy ? undefined : close}
        fullWidth
        slotProps={{ paper: { sx: { maxWidth: 600 } } }}
        aria-labelledby="user-crop-title"
      >
        <DialogTitle id="user-crop-title">{translate('users.avatar.crop')}</DialogTitle>
        <DialogContent>
          <Box sx={{ position: 'relative', height: 360, bgcolor: 'grey.900', borderRadius: 1, overflow: 'hidden' }}>
            {source ? (
              <Cropper
                image={source}
                crop={crop}
                zoom={zoom}
                aspect={1}
                cropShape="round"
                onCropChange={setCrop}
                onZoomChange={setZoom}
                onCropComplete={(_, pixels) => setArea(pixels)}
              />
            ) : null}
          </Box>
          <Typography id="user-zoom-label" variant="caption">
            {translate('users.avatar.zoom')}
          </Typography>
          <Slider value={zoom} min={1} max={4} step={0.05} onChange={(_, v) => setZoom(v as number)} aria-labelledby="user-zoom-label" />
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={busy}>
            {translate('form.cancel')}
          </Button>
          <Button variant="contained" onClick={upload} disabled={busy || !area}>
            {translate('form.approve')}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
