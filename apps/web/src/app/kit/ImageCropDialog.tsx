import UploadIcon from '@mui/icons-material/Upload';
import { Box, Button, type ButtonProps, Dialog, DialogActions, DialogContent, DialogTitle, Slider, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import Cropper, { type Area } from 'react-easy-crop';

/** Side of the square picture the console sends, in pixels. */
export const CROP_SIZE = 256;

/** The pictures a browser shows and the server takes. */
export const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp';

/** Cuts the square `area` out of `src`, scaled to 256 px, as a PNG. */
export async function cropToBlob(src: string, area: Area): Promise<Blob> {
  const image = new Image();
  image.src = src;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = CROP_SIZE;
  canvas.height = CROP_SIZE;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('canvas unavailable');
  ctx.drawImage(image, area.x, area.y, area.width, area.height, 0, 0, CROP_SIZE, CROP_SIZE);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('crop failed'))), 'image/png'));
}

/**
 * The body of an avatar upload (`POST …/avatar`): the server keeps the picture it gets as is, so the
 * cropped square goes out and x, y, size describe all of it.
 */
export function croppedImageForm(blob: Blob): FormData {
  const form = new FormData();
  form.append('image', blob, 'avatar.png');
  form.append('x', '0');
  form.append('y', '0');
  form.append('size', String(CROP_SIZE));
  return form;
}

/**
 * A button that picks one picture file; its input is named by `label` too. A real button opening
 * the hidden input (a label drawn as a button would carry a role a label may not have).
 */
export function ImageFileButton({
  label,
  accept = IMAGE_TYPES,
  onFile,
  ...button
}: { label: string; accept?: string; onFile: (file: File) => void } & Omit<ButtonProps, 'onChange' | 'onClick' | 'component'>) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button variant="outlined" startIcon={<UploadIcon />} {...button} onClick={() => input.current?.click()}>
        {label}
      </Button>
      <input
        ref={input}
        hidden
        type="file"
        accept={accept}
        aria-label={label}
        onChange={(e) => {
          const file = e.target.files?.[0];
          // Cleared, so that the same file can be picked again.
          e.target.value = '';
          if (file) onFile(file);
        }}
      />
    </>
  );
}

export interface ImageCropDialogProps {
  /** The picked picture; the dialog is open while there is one. */
  file: File | null;
  /** Translation keys of the title and of the zoom slider. */
  title: string;
  zoomLabel: string;
  /** Prefix of the title's and slider label's element ids (`<prefix>crop-title`, `<prefix>zoom-label`). */
  idPrefix?: string;
  /** An upload is under way: the buttons wait. */
  busy?: boolean;
  onClose: () => void;
  /** The cropped 256 px square, as a PNG. */
  onCropped: (blob: Blob) => void | Promise<void>;
  /** The picture could not be cropped. */
  onError: (error: unknown) => void;
}

/** A round square cropper with a zoom slider, for a picked picture. */
export function ImageCropDialog({
  file,
  title,
  zoomLabel,
  idPrefix = '',
  busy = false,
  onClose,
  onCropped,
  onError,
}: ImageCropDialogProps) {
  const translate = useTranslate();
  const [source, setSource] = useState<string | null>(null);
  const [crop, setCrop] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(1);
  const [area, setArea] = useState<Area | null>(null);

  // Each picked file starts centred and unzoomed; its object URL is released once it is done with.
  useEffect(() => {
    setCrop({ x: 0, y: 0 });
    setZoom(1);
    setArea(null);
    if (!file) {
      setSource(null);
      return;
    }
    const url = URL.createObjectURL(file);
    setSource(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const approve = async () => {
    if (!source || !area) return;
    let blob: Blob;
    try {
      blob = await cropToBlob(source, area);
    } catch (error) {
      onError(error);
      return;
    }
    await onCropped(blob);
  };

  return (
    <Dialog
      open={!!file}
      onClose={busy ? undefined : onClose}
      fullWidth
      slotProps={{ paper: { sx: { maxWidth: 600 } } }}
      aria-labelledby={`${idPrefix}crop-title`}
    >
      <DialogTitle id={`${idPrefix}crop-title`}>{translate(title)}</DialogTitle>
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
        <Typography id={`${idPrefix}zoom-label`} variant="caption">
          {translate(zoomLabel)}
        </Typography>
        <Slider
          value={zoom}
          min={1}
          max={4}
          step={0.05}
          onChange={(_, v) => setZoom(v as number)}
          aria-labelledby={`${idPrefix}zoom-label`}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {translate('form.cancel')}
        </Button>
        <Button variant="contained" onClick={approve} disabled={busy || !area}>
          {translate('form.approve')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
