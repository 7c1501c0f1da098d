import type { Group, GroupDeleteImpact } from '@atrium/contract';
import DeleteIcon from '@mui/icons-material/Delete';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useState } from 'react';
import { useDataProvider, useDelete, useRecordContext, useRedirect, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { useAlert } from '../../app/useAlert';

/**
 * Deleting a group: the confirmation says what goes with it (its subgroups) and what must be moved
 * first (users, devices), read from the server when the button is pressed; the button and the
 * confirmation look destructive.
 */
export function GroupDeleteButton() {
  const translate = useTranslate();
  const alert = useAlert();
  const redirect = useRedirect();
  const dp = useDataProvider<AtriumDataProvider>();
  const record = useRecordContext<Group>();
  const [impact, setImpact] = useState<GroupDeleteImpact | null>(null);
  const [open, setOpen] = useState(false);
  const [remove, { isPending }] = useDelete();
  if (!record) return null;
  const blocked = impact !== null && (impact.users > 0 || impact.devices > 0);
  const ask = async () => {
    try {
      const { data } = await dp.request<{ data: GroupDeleteImpact }>(`/domains/${record.id}/delete-impact`);
      setImpact(data);
      setOpen(true);
    } catch (error) {
      alert.error(error);
    }
  };
  const confirm = () =>
    remove(
      'groups',
      { id: record.id, previousData: record },
      {
        mutationMode: 'pessimistic',
        onSuccess: () => {
          setOpen(false);
          alert.done();
          redirect('list', 'groups');
        },
        onError: (error) => alert.error(error),
      },
    );
  return (
    <>
      <Button color="error" variant="outlined" startIcon={<DeleteIcon />} onClick={ask}>
        {translate('groups.actions.delete')}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="group-delete-title" maxWidth="xs" fullWidth>
        <DialogTitle id="group-delete-title">{translate('groups.actions.delete')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{translate('groups.delete_confirm', { name: record.name })}</DialogContentText>
          {impact && impact.subgroups > 0 ? (
            <Alert severity="warning" variant="outlined" sx={{ mt: 2 }}>
              {translate('groups.delete_subgroups', { smart_count: impact.subgroups })}
            </Alert>
          ) : null}
          {blocked ? (
            <Alert severity="error" variant="outlined" sx={{ mt: 2 }}>
              {translate('groups.delete_blocked', { users: impact?.users ?? 0, devices: impact?.devices ?? 0 })}
            </Alert>
          ) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</Button>
          <Button color="error" variant="contained" onClick={confirm} disabled={blocked || isPending}>
            {translate('ra.action.delete')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
