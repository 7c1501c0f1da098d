import {
  CONVERSATION_EVENTS,
  CONVERSATION_MESSAGE_MAX,
  CONVERSATION_MESSAGES_PAGE,
  type Conversation,
  type ConversationMessage,
  type ConversationMessageEvent,
  topics,
} from '@atrium/contract';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteIcon from '@mui/icons-material/Delete';
import SendIcon from '@mui/icons-material/Send';
import {
  Alert,
  Box,
  Button,
  Card,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  IconButton,
  Paper,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Title, useLocaleState, useNotify, useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate, useParams } from 'react-router-dom';
import { errorText } from '../../app/errors';
import { formatDate, formatDateTime, formatTime } from '../../app/format';
import { ApiError, http } from '../../app/http';
import { useLiveTopic } from '../../app/live';
import { useSessionData } from '../../app/SessionContext';
import { canSend, charactersLeft, dayStarts, mergeMessages, olderQuery, otherParty } from './thread';

interface Page {
  data: ConversationMessage[];
  meta: { has_more: boolean };
}

// Older messages load when the thread is scrolled this close to its top.
const TOP_MARGIN_PX = 80;
// Below this distance from the bottom the thread follows new messages.
const FOLLOW_MARGIN_PX = 120;

function Bubble({ message, mine, locale }: { message: ConversationMessage; mine: boolean; locale: string }) {
  const translate = useTranslate();
  const time = formatTime(message.created_at, locale);
  return (
    <Box sx={{ display: 'flex', justifyContent: mine ? 'flex-end' : 'flex-start', px: 1 }} data-testid="message" data-mine={mine}>
      <Paper
        elevation={0}
        sx={{
          maxWidth: '75%',
          px: 1.5,
          py: 1,
          borderRadius: 2,
          bgcolor: mine ? 'primary.main' : 'action.hover',
          color: mine ? 'primary.contrastText' : 'text.primary',
        }}
      >
        {mine ? null : (
          <Typography variant="caption" component="div" sx={{ fontWeight: 600 }}>
            {message.author?.name ?? translate('conversations.deleted_user')}
          </Typography>
        )}
        <Typography variant="body2" component="div" sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {message.message}
        </Typography>
        <Typography variant="caption" component="div" sx={{ textAlign: 'right', opacity: 0.75 }}>
          <time dateTime={message.created_at} title={formatDateTime(message.created_at, locale)}>
            {time}
          </time>
        </Typography>
      </Paper>
    </Box>
  );
}

/** One conversation (/conversation/:id) as a chat: newest messages, older ones on scrolling up, live replies, a reply box. */
export function ConversationPage() {
  const { id: param } = useParams();
  const id = Number(param);
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const notify = useNotify();
  const navigate = useNavigate();
  const { profile } = useSessionData();
  const queryClient = useQueryClient();
  // Reading and writing here change the list's unread counts and order: its cached pages are stale.
  const listStale = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: ['conversations'], refetchType: 'none' }),
    [queryClient],
  );
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [messages, setMessages] = useState<ConversationMessage[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const thread = useRef<HTMLDivElement>(null);
  // What the next layout does to the scroll position: keep the view still after older messages, or go to the bottom.
  const anchor = useRef<{ kind: 'bottom' } | { kind: 'keep'; height: number; top: number } | null>(null);

  const load = useCallback(async () => {
    try {
      const [c, page] = await Promise.all([
        http.data<Conversation>(`/conversations/${id}`),
        http.request<Page>(`/conversations/${id}/messages`, { query: { size: CONVERSATION_MESSAGES_PAGE } }),
      ]);
      setConversation(c);
      anchor.current = { kind: 'bottom' };
      setMessages((current) => mergeMessages(current, page.data));
      setHasMore(page.meta.has_more);
      setFailure(null);
      listStale();
    } catch (e) {
      setFailure(e instanceof ApiError && e.status === 404 ? translate('conversations.not_found') : errorText(e, translate));
    }
  }, [id, translate, listStale]);

  useEffect(() => {
    setMessages([]);
    setConversation(null);
    void load();
  }, [load]);

  const loadOlder = useCallback(async () => {
    if (loadingOlder || !hasMore || !messages.length) return;
    setLoadingOlder(true);
    try {
      const page = await http.request<Page>(`/conversations/${id}/messages`, { query: olderQuery(messages, CONVERSATION_MESSAGES_PAGE) });
      const el = thread.current;
      anchor.current = el ? { kind: 'keep', height: el.scrollHeight, top: el.scrollTop } : null;
      setMessages((current) => mergeMessages(current, page.data));
      setHasMore(page.meta.has_more);
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setLoadingOlder(false);
    }
  }, [hasMore, id, loadingOlder, messages, notify, translate]);

  useLayoutEffect(() => {
    const el = thread.current;
    const a = anchor.current;
    if (!el || !a) return;
    anchor.current = null;
    el.scrollTop = a.kind === 'bottom' ? el.scrollHeight : el.scrollHeight - a.height + a.top;
  });

  // A short thread that does not fill the box cannot be scrolled: it loads older messages until it does.
  useEffect(() => {
    const el = thread.current;
    if (el && hasMore && !loadingOlder && el.scrollHeight <= el.clientHeight + TOP_MARGIN_PX) void loadOlder();
  }, [hasMore, loadingOlder, loadOlder]);

  const onScroll = () => {
    if ((thread.current?.scrollTop ?? Number.POSITIVE_INFINITY) < TOP_MARGIN_PX) void loadOlder();
  };

  // A message that arrives while the conversation is open is read at once (the list and the other tabs hear of it).
  const markRead = useCallback(() => {
    void http
      .request(`/conversations/${id}/read`, { method: 'POST' })
      .then(listStale)
      .catch(() => undefined);
  }, [id, listStale]);

  useLiveTopic(topics.user(profile.id), (m) => {
    const data = m.data as Partial<ConversationMessageEvent> | null;
    if (data?.conversation_id !== id) return;
    if (m.event === CONVERSATION_EVENTS.deleted) {
      notify('conversations.not_found', { type: 'warning' });
      navigate('/conversations');
      return;
    }
    if (m.event !== CONVERSATION_EVENTS.message || !data.message) return;
    const el = thread.current;
    const mine = data.message.author?.id === profile.id;
    if (mine || !el || el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_MARGIN_PX) anchor.current = { kind: 'bottom' };
    setMessages((current) => mergeMessages(current, [data.message as ConversationMessage]));
    if (!mine) markRead();
  });

  const send = async () => {
    if (!canSend(text) || sending) return;
    setSending(true);
    try {
      const message = await http.data<ConversationMessage>(`/conversations/${id}/messages`, {
        method: 'PUT',
        body: { message: text.trim() },
      });
      anchor.current = { kind: 'bottom' };
      setMessages((current) => mergeMessages(current, [message]));
      setText('');
      listStale();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  const remove = async () => {
    try {
      await http.request(`/conversations/${id}`, { method: 'DELETE' });
      notify('alerts.done', { type: 'success' });
      navigate('/conversations');
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
      setConfirming(false);
    }
  };

  const back = (
    <Button component={RouterLink} to="/conversations" startIcon={<ArrowBackIcon />} size="small">
      {translate('conversations.back')}
    </Button>
  );

  if (failure)
    return (
      <Box sx={{ mt: 2 }}>
        <Title title={translate('conversations.title')} />
        {back}
        <Alert severity="warning" sx={{ mt: 2 }}>
          {failure}
        </Alert>
      </Box>
    );
  if (!conversation)
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', mt: 6 }}>
        <CircularProgress aria-label={translate('conversations.loading')} />
      </Box>
    );

  const other = otherParty(conversation, profile.id);
  const name = (u: Conversation['author']) => u?.name ?? translate('conversations.deleted_user');
  const withWhom =
    other === undefined
      ? translate('conversations.between', { author: name(conversation.author), interlocutor: name(conversation.interlocutor) })
      : translate('conversations.with', { name: name(other) });
  const starts = dayStarts(messages);
  const left = charactersLeft(text);

  return (
    <Box sx={{ mt: 1, display: 'flex', flexDirection: 'column', height: 'calc(100vh - 96px)', minHeight: 420 }}>
      <Title title={conversation.subject} />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, flexWrap: 'wrap' }}>
        {back}
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="h6" component="h2" noWrap title={conversation.subject}>
            {conversation.subject}
          </Typography>
          <Typography variant="body2" color="text.secondary" noWrap>
            {withWhom}
          </Typography>
        </Box>
        {conversation.can_delete ? (
          <Button color="error" size="small" startIcon={<DeleteIcon />} onClick={() => setConfirming(true)}>
            {translate('conversations.delete')}
          </Button>
        ) : null}
      </Box>
      <Card sx={{ flex: 1, display: 'flex', flexDirection: 'column', minHeight: 0 }}>
        <Box
          ref={thread}
          onScroll={onScroll}
          role="log"
          aria-live="polite"
          aria-label={conversation.subject}
          data-testid="thread"
          sx={{ flex: 1, overflowY: 'auto', py: 1, display: 'flex', flexDirection: 'column', gap: 0.75 }}
        >
          <Box sx={{ textAlign: 'center', py: 1 }}>
            {hasMore ? (
              <Button size="small" onClick={() => void loadOlder()} disabled={loadingOlder}>
                {loadingOlder ? translate('conversations.loading') : translate('conversations.load_older')}
              </Button>
            ) : (
              <Typography variant="caption" color="text.secondary">
                {messages.length ? translate('conversations.beginning') : translate('conversations.empty_thread')}
              </Typography>
            )}
          </Box>
          {messages.map((m, i) => (
            <Box key={m.id}>
              {starts.has(i) ? (
                <Divider sx={{ my: 1, typography: 'caption', color: 'text.secondary' }}>
                  {formatDate(m.created_at, locale, { long: true })}
                </Divider>
              ) : null}
              <Bubble message={m} mine={m.author?.id === profile.id} locale={locale} />
            </Box>
          ))}
        </Box>
        <Divider />
        {conversation.can_write ? (
          <Box sx={{ display: 'flex', alignItems: 'flex-end', gap: 1, p: 1 }}>
            <TextField
              fullWidth
              multiline
              maxRows={6}
              size="small"
              name="reply"
              placeholder={translate('conversations.reply_placeholder')}
              value={text}
              onChange={(e) => setText(e.target.value)}
              onKeyDown={onKeyDown}
              error={left < 0}
              helperText={
                left < 0
                  ? translate('conversations.too_long', { smart_count: -left })
                  : left < 200
                    ? translate('conversations.characters_left', { smart_count: left })
                    : ' '
              }
              slotProps={{ htmlInput: { 'aria-label': translate('conversations.new_message'), maxLength: CONVERSATION_MESSAGE_MAX + 500 } }}
            />
            <Tooltip title={translate('conversations.send')}>
              <span>
                <IconButton
                  color="primary"
                  onClick={() => void send()}
                  disabled={!canSend(text) || sending}
                  aria-label={translate('conversations.send')}
                  sx={{ mb: 3 }}
                >
                  {sending ? <CircularProgress size={22} /> : <SendIcon />}
                </IconButton>
              </span>
            </Tooltip>
          </Box>
        ) : (
          <Typography variant="body2" color="text.secondary" sx={{ p: 2 }}>
            {conversation.is_participant ? translate('conversations.cannot_write') : translate('conversations.overseeing')}
          </Typography>
        )}
      </Card>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        aria-labelledby="delete-conversation-title"
        slotProps={{ paper: { sx: { maxWidth: 400 } } }}
      >
        <DialogTitle id="delete-conversation-title">{translate('conversations.delete_title')}</DialogTitle>
        <DialogContent>{translate('conversations.delete_confirm', { subject: conversation.subject })}</DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>{translate('form.cancel')}</Button>
          <Button color="error" variant="contained" onClick={() => void remove()}>
            {translate('form.approve')}
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
