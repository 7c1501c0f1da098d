import type { OutboxMail } from '@atrium/contract';
import DeleteIcon from '@mui/icons-material/Delete';
import ReplayIcon from '@mui/icons-material/Replay';
import { Button, Stack } from '@mui/material';
import { useState } from 'react';
import { FunctionField, TextField, useDataProvider, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField, LocaleNumberField } from '../../app/kit/LocaleFields';
import { useAlert } from '../../app/useAlert';

/** Retry and delete of one mail, in its row. */
function MailActions({ mail }: { mail: OutboxMail }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const act = async (run: () => Promise<void>) => {
    setBusy(true);
    try {
      await run();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
      refresh();
    }
  };
  const retry = () =>
    act(async () => {
      const { data } = await dp.request<{ data: OutboxMail }>(`/outbox/${mail.id}/retry`, { method: 'POST' });
      alert.info(`outbox.after_retry.${data.status}`, { to: mail.to });
    });
  const remove = () =>
    act(async () => {
      await dp.request(`/outbox/${mail.id}`, { method: 'DELETE' });
      alert.done();
    });
  return (
    <Stack direction="row" spacing={1} onClick={(e) => e.stopPropagation()}>
      <Button
        size="small"
        startIcon={<ReplayIcon />}
        onClick={retry}
        disabled={busy}
        aria-label={translate('outbox.retry_to', { to: mail.to })}
      >
        {translate('outbox.retry')}
      </Button>
      <Button
        size="small"
        color="error"
        startIcon={<DeleteIcon />}
        onClick={remove}
        disabled={busy}
        aria-label={translate('outbox.delete_to', { to: mail.to })}
      >
        {translate('outbox.delete')}
      </Button>
    </Stack>
  );
}

/**
 * The outbox: mail the server kept (no SMTP configured) or could not send yet, newest first. Only
 * a user who may change the project settings sees it (the server refuses everyone else).
 */
export function OutboxList() {
  const translate = useTranslate();
  return (
    <ListPage
      title={translate('outbox.title')}
      sort={{ field: 'id', order: 'DESC' }}
      filters={[textFilter('to', 'has', 'resources.outbox.fields.to', { alwaysOn: true })]}
      rowClick={false}
    >
      <TextField source="to" />
      <TextField source="subject" />
      <DateTimeField source="created_at" />
      <FunctionField source="status" render={(m: OutboxMail) => translate(`outbox.status.${m.status}`)} />
      <TextField source="error" sortable={false} emptyText="—" />
      <LocaleNumberField source="attempts" />
      <FunctionField label="outbox.actions" render={(m: OutboxMail) => <MailActions mail={m} />} />
    </ListPage>
  );
}
