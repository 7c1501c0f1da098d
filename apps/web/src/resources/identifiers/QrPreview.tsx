import type { Identifier } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import QrCodeIcon from '@mui/icons-material/QrCode2';
import WalletIcon from '@mui/icons-material/Wallet';
import { Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useEffect, useId, useRef, useState } from 'react';
import { useRecordContext, useTranslate } from 'react-admin';
import { fetchFile, saveBlob } from '../../app/kit/download';
import { useAlert } from '../../app/useAlert';

/** The QR preview dialog (spec entities §2): the code as a door reads it, saved as a PNG or as an Apple Wallet pass. */
export function QrPreviewButton() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  const [open, setOpen] = useState(false);
  if (record?.type !== 'qr') return null;
  return (
    <>
      <Button size="small" startIcon={<QrCodeIcon />} onClick={() => setOpen(true)}>
        {translate('identifiers.qr.action')}
      </Button>
      {open ? <QrPreviewDialog identifier={record} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function QrPreviewDialog({ identifier, onClose }: { identifier: Identifier; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  // useAlert answers a new object each render: the loading effect must not restart with it.
  const alertRef = useRef(alert);
  alertRef.current = alert;
  const titleId = useId();
  const [image, setImage] = useState<{ blob: Blob; url: string } | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    let url: string | null = null;
    fetchFile(`/identifiers/${identifier.id}/qr`, undefined, abort.signal)
      .then(({ blob }) => {
        url = URL.createObjectURL(blob);
        setImage({ blob, url });
      })
      .catch((e: unknown) => {
        if (abort.signal.aborted) return;
        setFailed(true);
        alertRef.current.error(e);
      });
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [identifier.id]);

  const wallet = async () => {
    setBusy(true);
    try {
      const { blob, name } = await fetchFile(`/identifiers/${identifier.id}/pkpass`, undefined);
      saveBlob(blob, name ?? `identifier-${identifier.id}.pkpass`);
    } catch (e) {
      alert.error(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} slotProps={{ paper: { sx: { width: 380 } } }}>
      <DialogTitle id={titleId}>{translate('identifiers.qr.title', { name: identifier.name })}</DialogTitle>
      <DialogContent>
        <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 300 }}>
          {image ? (
            <img src={image.url} alt={translate('identifiers.qr.alt', { name: identifier.name })} width={300} height={300} />
          ) : failed ? (
            <Typography color="error">{translate('identifiers.qr.failed')}</Typography>
          ) : (
            <CircularProgress aria-label={translate('identifiers.qr.loading')} />
          )}
        </Box>
        {identifier.is_revoked || !identifier.is_active ? (
          <Typography color="warning.main" variant="body2" sx={{ mt: 1 }}>
            {translate('identifiers.qr.inactive')}
          </Typography>
        ) : null}
      </DialogContent>
      <DialogActions sx={{ flexWrap: 'wrap', gap: 1 }}>
        <Button startIcon={<WalletIcon />} onClick={wallet} disabled={busy}>
          {translate('identifiers.qr.wallet')}
        </Button>
        <Button
          startIcon={<DownloadIcon />}
          disabled={!image}
          onClick={() => image && saveBlob(image.blob, `identifier-${identifier.id}.png`)}
        >
          {translate('identifiers.qr.png')}
        </Button>
        <Button onClick={onClose}>{translate('app.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
