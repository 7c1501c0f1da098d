import { CONVERSATION_MESSAGE_MAX, CONVERSATION_SUBJECT_MAX, type Conversation, type ConversationRecipient } from '@atrium/contract';
import { Alert, Autocomplete, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, TextField } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { errorText } from '../../app/errors';
import { http } from '../../app/http';
import { canSend, charactersLeft } from './thread';

/** Starts a conversation: a recipient from those the caller may write to, a subject and the first message. */
export function StartConversationDialog({ onClose }: { onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const [recipient, setRecipient] = useState<ConversationRecipient | null>(null);
  const [input, setInput] = useState('');
  const [search, setSearch] = useState('');
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // The search waits for a pause in typing.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(input.trim()), 300);
    return () => clearTimeout(timer);
  }, [input]);

  const recipients = useQuery({
    queryKey: ['conversations', 'recipients', search],
    queryFn: () => http.data<ConversationRecipient[]>('/conversations/recipients', { query: { size: 20, ...(search ? { search } : {}) } }),
  });

  const left = charactersLeft(message);
  const ready = recipient !== null && subject.trim().length > 0 && canSend(message) && !busy;

  const submit = async () => {
    if (!ready) return;
    setBusy(true);
    setError(null);
    try {
      const created = await http.data<Conversation>('/conversations', {
        method: 'PUT',
        body: { subject: subject.trim(), interlocutor: { id: recipient.id }, message: message.trim() },
      });
      notify('alerts.done', { type: 'success' });
      onClose();
      navigate(`/conversation/${created.id}`);
    } catch (e) {
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={busy ? undefined : onClose} fullWidth maxWidth="sm" aria-labelledby="start-conversation-title">
      <DialogTitle id="start-conversation-title">{translate('conversations.start_title')}</DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: '8px !important' }}>
        {error ? <Alert severity="error">{error}</Alert> : null}
        <Autocomplete
          options={recipients.data ?? []}
          value={recipient}
          onChange={(_e, v) => setRecipient(v)}
          inputValue={input}
          onInputChange={(_e, v) => setInput(v)}
          // The server searches; the options are already its answer.
          filterOptions={(x) => x}
          getOptionLabel={(o) => o.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          loading={recipients.isFetching}
          noOptionsText={translate('conversations.no_recipients')}
          loadingText={translate('conversations.loading')}
          renderInput={(params) => (
            <TextField
              {...params}
              required
              autoFocus
              label={translate('conversations.recipient')}
              helperText={translate('conversations.recipient_hint')}
              slotProps={{
                ...params.slotProps,
                input: {
                  ...params.slotProps.input,
                  endAdornment: (
                    <>
                      {recipients.isFetching ? <CircularProgress color="inherit" size={18} /> : null}
                      {params.slotProps.input.endAdornment}
                    </>
                  ),
                },
              }}
            />
          )}
        />
        <TextField
          required
          name="subject"
          label={translate('conversations.subject')}
          value={subject}
          onChange={(e) => setSubject(e.target.value)}
          slotProps={{ htmlInput: { maxLength: CONVERSATION_SUBJECT_MAX } }}
        />
        <TextField
          required
          name="message"
          label={translate('conversations.message')}
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          multiline
          minRows={4}
          maxRows={12}
          error={left < 0}
          helperText={
            left < 0
              ? translate('conversations.too_long', { smart_count: -left })
              : translate('conversations.characters_left', { smart_count: left })
          }
          slotProps={{ htmlInput: { maxLength: CONVERSATION_MESSAGE_MAX + 500 } }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {translate('form.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={!ready}>
          {busy ? translate('conversations.sending') : translate('conversations.send')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
