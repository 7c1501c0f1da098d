import CloseIcon from '@mui/icons-material/Close';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Stack } from '@mui/material';
import { type ReactNode, useId, useState } from 'react';
import { Form, type RaRecord, useTranslate } from 'react-admin';
import { ActionsMenu, type KitAction } from './ActionsMenu';

/** Dialog widths of spec core §9: 600 by default, 900 for wide forms, 300 for confirmations. */
export type DialogWidth = 300 | 600 | 900;

export type DialogAction = KitAction;

export interface FormDialogProps<T extends Partial<RaRecord> = Record<string, unknown>> {
  open: boolean;
  title: ReactNode;
  /** The form's initial values. */
  record?: T;
  /** Runs with the form's values once every input's `validate` passed. Throwing keeps the dialog open. */
  onApprove: (values: T) => Promise<void> | void;
  onClose: () => void;
  /** Entries of the title's Actions menu (delete, export…). */
  actions?: DialogAction[];
  approveLabel?: string;
  width?: DialogWidth;
  /** react-admin inputs (`TextInput`, `PasswordInput`…) with `validate` from the shared validators. */
  children: ReactNode;
}

/**
 * The form dialog of spec core §5: title with an Actions menu, Cancel and Approve. Approve first
 * validates the form; when it is invalid the alert 'check fields data' shows (react-admin's invalid
 * form notification, worded so in i18n) and nothing is sent.
 */
export function FormDialog<T extends Partial<RaRecord> = Record<string, unknown>>({
  open,
  title,
  record,
  onApprove,
  onClose,
  actions,
  approveLabel,
  width = 600,
  children,
}: FormDialogProps<T>) {
  const translate = useTranslate();
  const titleId = useId();
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (values: Record<string, unknown>) => {
    setBusy(true);
    try {
      await onApprove(values as T);
    } catch {
      // The dialog stays open; whoever threw has told the user why (an alert, field errors).
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      aria-labelledby={titleId}
      fullWidth
      slotProps={{ paper: { sx: { maxWidth: width } } }}
    >
      <Form record={record as RaRecord | undefined} onSubmit={submit} mode="onTouched" reValidateMode="onChange">
        <DialogTitle sx={{ pr: 1 }}>
          <Stack direction="row" sx={{ alignItems: 'center', gap: 1 }}>
            {/* The dialog is named by its title alone, not by the buttons beside it. */}
            <span id={titleId} style={{ flex: 1 }}>
              {title}
            </span>
            {actions && actions.length > 0 ? (
              <>
                <Button size="small" endIcon={<MoreVertIcon />} onClick={(e) => setMenu(e.currentTarget)} aria-haspopup="menu">
                  {translate('form.actions')}
                </Button>
                <ActionsMenu anchor={menu} onClose={() => setMenu(null)} actions={actions} />
              </>
            ) : null}
            <IconButton aria-label={translate('app.close')} onClick={onClose} disabled={busy} size="small">
              <CloseIcon fontSize="small" />
            </IconButton>
          </Stack>
        </DialogTitle>
        <DialogContent dividers>{children}</DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={busy}>
            {translate('form.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={busy}>
            {approveLabel ?? translate('form.approve')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
