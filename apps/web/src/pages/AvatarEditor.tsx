import DeleteIcon from '@mui/icons-material/Delete';
import UploadIcon from '@mui/icons-material/Upload';
import { Avatar, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Slider, Stack, Typography } from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import Cropper, { type Area } from 'react-easy-crop';
import { PROFILE_KEY } from '../app/authProvider';
import { http } from '../app/http';
import { useAlert } from '../app/useAlert';

const OUTPUT_SIZE = 256;

/** Crops `src` to the square `area` and scales it to 256 px, as a PNG. */
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

/** The profile picture: upload with a square cropper (POST /profile/avatar), or delete it. */
export function AvatarEditor({ url, name }: { url: string | null; name: string }) {
  const translate = useTranslate();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [source, setSource] = useState<string | null>(null);
  const [crop, setCrop] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(1);
  const [area, setArea] = useState<Area | null>(null);

  const upload = useMutation({
    mutationFn: async () => {
      if (!source || !area) return;
      const blob = await cropToBlob(source, area);
      const form = new FormData();
      // The picture is cropped here; x, y and size describe the part of it the server keeps (all of it).
      form.append('image', blob, 'avatar.png');
      form.append('x', '0');
      form.append('y', '0');
      form.append('size', String(OUTPUT_SIZE));
      await http.request('/profile/avatar', { method: 'POST', body: form });
    },
    onSuccess: () => {
      setSource(null);
      alert.done();
      return queryClient.invalidateQueries({ queryKey: PROFILE_KEY });
    },
    onError: alert.error,
  });
  const remove = useMutation({
    mutationFn: () => http.request('/profile/avatar', { method: 'DELETE' }),
    onSuccess: () => {
      alert.done();
      return queryClient.invalidateQueries({ queryKey: PROFILE_KEY });
    },
    onError: alert.error,
  });

  return (
    <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Avatar src={url ?? undefined} alt={translate('profile.avatar')} sx={{ width: 88, height: 88, fontSize: 36 }}>
        {name.slice(0, 1)}
      </Avatar>
      <Stack spacing={1}>
        <Button component="label" variant="outlined" startIcon={<UploadIcon />} sx={{ whiteSpace: 'nowrap' }}>
          {translate('profile.upload_avatar')}
          <input
            hidden
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            aria-label={translate('profile.upload_avatar')}
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (!file) return;
              const reader = new FileReader();
              reader.onload = () => {
                setCrop({ x: 0, y: 0 });
                setZoom(1);
                setSource(String(reader.result));
              };
              reader.readAsDataURL(file);
            }}
          />
        </Button>
        {url ? (
          <Button color="error" startIcon={<DeleteIcon />} onClick={() => remove.mutate()} disabled={remove.isPending}>
            {translate('profile.delete_avatar')}
          </Button>
        ) : null}
      </Stack>
      <Dialog
        open={!!source}
        onClose={() => setSource(null)}
        fullWidth
        slotProps={{ paper: { sx: { maxWidth: 600 } } }}
        aria-labelledby="crop-title"
      >
        <DialogTitle id="crop-title">{translate('profile.crop_title')}</DialogTitle>
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
          <Typography id="zoom-label" variant="caption">
            {translate('profile.zoom')}
          </Typography>
          <Slider value={zoom} min={1} max={4} step={0.05} onChange={(_, v) => setZoom(v as number)} aria-labelledby="zoom-label" />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setSource(null)}>{translate('form.cancel')}</Button>
          <Button variant="contained" onClick={() => upload.mutate()} disabled={upload.isPending || !area}>
            {translate('form.approve')}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
