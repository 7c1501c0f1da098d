import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  InputAdornment,
  Link,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useId, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { QrCode } from './QrCode';

/**
 * The guest access URL dialog (spec entities §2, a text copy dialog): the guest page's link with a
 * Copy button and its QR code. Without a link (an existing pass, whose key the API does not give
 * again) it shows the QR code of the pass itself.
 */
export function GuestUrlDialog({ url, value, onClose }: { url?: string | null; value?: string | null; onClose: () => void }) {
  const translate = useTranslate();
  const titleId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<'copied' | 'failed' | null>(null);
  const doCopy = async () => {
    if (!url) return;
    try {
      await navigator.clipboard.writeText(url);
      setCopy('copied');
    } catch {
      // No clipboard (an insecure origin): select the text so it can be copied by hand.
      input.current?.select();
      setCopy('failed');
    }
  };
  const qr = url ?? value;
  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} fullWidth slotProps={{ paper: { sx: { maxWidth: 600 } } }}>
      <DialogTitle id={titleId}>{translate(url ? 'guest_access.url_title' : 'guest_access.show_qr')}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2} sx={{ alignItems: 'center' }}>
          {url ? (
            <>
              <Typography variant="body2" sx={{ alignSelf: 'stretch' }}>
                {translate('guest_access.url_hint')}
              </Typography>
              <TextField
                label={translate('guest_access.url_label')}
                value={url}
                fullWidth
                inputRef={input}
                onFocus={(e) => e.target.select()}
                slotProps={{
                  input: {
                    readOnly: true,
                    endAdornment: (
                      <InputAdornment position="end">
                        <IconButton
                          aria-label={translate('guest_access.copy')}
                          title={translate('guest_access.copy')}
                          onClick={doCopy}
                          edge="end"
                        >
                          <ContentCopyIcon />
                        </IconButton>
                      </InputAdornment>
                    ),
                  },
                }}
              />
              {copy ? (
                <Alert severity={copy === 'copied' ? 'success' : 'warning'} sx={{ alignSelf: 'stretch' }} role="status">
                  {translate(copy === 'copied' ? 'guest_access.copied' : 'guest_access.copy_failed')}
                </Alert>
              ) : null}
            </>
          ) : null}
          {qr ? (
            <>
              <QrCode value={qr} alt={translate('guest_access.qr_alt')} />
              <Typography variant="caption" color="text.secondary">
                {translate(url ? 'guest_access.qr_of_link' : 'guest_access.qr_of_value')}
              </Typography>
            </>
          ) : null}
        </Stack>
      </DialogContent>
      <DialogActions>
        {url ? (
          <>
            <Button component={Link} href={url} target="_blank" rel="noopener" startIcon={<OpenInNewIcon />}>
              {translate('guest_access.open_page')}
            </Button>
            <Button startIcon={<ContentCopyIcon />} onClick={doCopy}>
              {translate('guest_access.copy')}
            </Button>
          </>
        ) : null}
        <Button variant="contained" onClick={onClose}>
          {translate('app.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
