import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';

/**
 * A secret shown once (an API key, a webhook's signing secret): the value, a copy button and a
 * warning; the texts come from the area that shows it.
 */
export function OneTimeSecretDialog({
  secret,
  texts,
  onClose,
}: {
  secret: string | null;
  texts: { title: string; warning: string; copy: string; copied: string; close: string };
  onClose: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (!secret) return;
    await navigator.clipboard?.writeText(secret).catch(() => undefined);
    setCopied(true);
  };
  return (
    <Dialog
      open={secret !== null}
      maxWidth="sm"
      fullWidth
      onClose={(_e, reason) => {
        // Only the button closes it: a stray click outside would lose the secret for good.
        if (reason !== 'backdropClick') onClose();
      }}
    >
      <DialogTitle>{texts.title}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {texts.warning}
        </Alert>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
          <Typography
            data-testid="one-time-secret"
            component="code"
            sx={{ flexGrow: 1, p: 1, bgcolor: 'action.hover', borderRadius: 1, fontFamily: 'monospace', overflowWrap: 'anywhere' }}
          >
            {secret}
          </Typography>
          <Button startIcon={<ContentCopyIcon />} onClick={() => void copy()} variant="outlined">
            {copied ? texts.copied : texts.copy}
          </Button>
        </Box>
      </DialogContent>
      <DialogActions>
        <Button
          variant="contained"
          onClick={() => {
            setCopied(false);
            onClose();
          }}
        >
          {texts.close}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
