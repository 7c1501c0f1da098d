import type { Identifier } from '@atrium/contract';
import BlockIcon from '@mui/icons-material/Block';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, IconButton, Tooltip } from '@mui/material';
import { useId, useState } from 'react';
import { type Identifier as RaId, useDataProvider, useListContext, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { useAlert } from '../../app/useAlert';

/** Where one identifier is revoked: `/identifiers/{id}/revoke`, or a guest's `/guest-access/{id}/revoke`. */
export type RevokePath = (id: RaId) => string;
const identifierRevokePath: RevokePath = (id) => `/identifiers/${encodeURIComponent(String(id))}/revoke`;

/** Revokes identifiers one after the other (the API revokes one per call); answers how many were. */
function useRevoke(path: RevokePath = identifierRevokePath) {
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const revoke = async (ids: readonly RaId[]): Promise<boolean> => {
    setBusy(true);
    let done = 0;
    try {
      for (const id of ids) {
        await dp.request(path(id), { method: 'POST' });
        done += 1;
      }
      alert.success('identifiers.revoke.done', { smart_count: done });
      return true;
    } catch (error) {
      alert.error(error);
      return false;
    } finally {
      setBusy(false);
      refresh();
    }
  };
  return { revoke, busy };
}

function ConfirmRevoke({
  open,
  count,
  busy,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  count: number;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const translate = useTranslate();
  const titleId = useId();
  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onCancel}
      aria-labelledby={titleId}
      slotProps={{ paper: { sx: { maxWidth: 400 } } }}
      // React carries clicks out of the portal to the table row, which would open the edit page.
      onClick={(e) => e.stopPropagation()}
    >
      <DialogTitle id={titleId}>
        {count === 1 ? translate('identifiers.revoke.title') : translate('identifiers.revoke.title_many', { smart_count: count })}
      </DialogTitle>
      <DialogContent>
        <DialogContentText>{translate('identifiers.revoke.text')}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy}>
          {translate('form.cancel')}
        </Button>
        <Button color="error" variant="contained" onClick={onConfirm} disabled={busy}>
          {translate('identifiers.revoke.action')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The edit page's Revoke, for an identifier the caller may change and that is not revoked yet. */
export function RevokeButton() {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  const [open, setOpen] = useState(false);
  const { revoke, busy } = useRevoke();
  if (!record || record.is_revoked || !record.can_edit) return null;
  return (
    <>
      <Button size="small" color="error" startIcon={<BlockIcon />} onClick={() => setOpen(true)}>
        {translate('identifiers.revoke.action')}
      </Button>
      <ConfirmRevoke
        open={open}
        count={1}
        busy={busy}
        onCancel={() => setOpen(false)}
        onConfirm={async () => {
          await revoke([record.id]);
          setOpen(false);
        }}
      />
    </>
  );
}

/**
 * A row's Revoke (the row itself opens the edit page: the click stops here). `path` and `allowed`
 * serve lists whose rows are revoked elsewhere (a resident's guests).
 */
export function RevokeRowButton({
  path,
  allowed = (r) => r.can_edit,
}: {
  label?: string;
  sortable?: boolean;
  path?: RevokePath;
  allowed?: (record: Identifier) => boolean;
}) {
  const translate = useTranslate();
  const record = useRecordContext<Identifier>();
  const [open, setOpen] = useState(false);
  const { revoke, busy } = useRevoke(path);
  if (!record || record.is_revoked || !allowed(record)) return null;
  const label = translate('identifiers.revoke.row', { name: record.name });
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          size="small"
          color="error"
          aria-label={label}
          onClick={(e) => {
            e.stopPropagation();
            setOpen(true);
          }}
        >
          <BlockIcon fontSize="small" />
        </IconButton>
      </Tooltip>
      <ConfirmRevoke
        open={open}
        count={1}
        busy={busy}
        onCancel={() => setOpen(false)}
        onConfirm={async () => {
          await revoke([record.id]);
          setOpen(false);
        }}
      />
    </>
  );
}

/** Revokes the selected rows (those already revoked are left as they are). */
export function BulkRevokeButton() {
  const translate = useTranslate();
  const { selectedIds, data, onUnselectItems } = useListContext<Identifier>();
  const [open, setOpen] = useState(false);
  const { revoke, busy } = useRevoke();
  const ids = selectedIds.filter((id) => {
    const row = data?.find((r) => r.id === id);
    return !row || (!row.is_revoked && row.can_edit);
  });
  return (
    <>
      <Button size="small" color="error" startIcon={<BlockIcon />} disabled={ids.length === 0} onClick={() => setOpen(true)}>
        {translate('identifiers.revoke.action_selected')}
      </Button>
      <ConfirmRevoke
        open={open}
        count={ids.length}
        busy={busy}
        onCancel={() => setOpen(false)}
        onConfirm={async () => {
          if (await revoke(ids)) onUnselectItems();
          setOpen(false);
        }}
      />
    </>
  );
}
