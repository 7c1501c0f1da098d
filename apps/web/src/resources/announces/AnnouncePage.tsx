import type { PublicAnnounce } from '@atrium/contract';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  CircularProgress,
  Divider,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormLabel,
  Radio,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslate } from 'ra-core';
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { errorText } from '../../app/errors';
import { formatDateTime } from '../../app/format';
import { http } from '../../app/http';
import { reloadMessages, useAppLocale } from '../../app/locale';
import { registerAreaMessages } from '../../i18n';
import { PublicPage } from '../../pages/PublicPage';
import * as announcesMessages from './messages';
import { answerBody, type Choices, toggle, writeOwn } from './poll';

// The recipient's page is outside the console: it brings its own texts.
registerAreaMessages([announcesMessages]);
void reloadMessages();

const tokenPath = (token: string) => `/announcements/token/${encodeURIComponent(token)}`;

/** The body as the server keeps it: sanitised HTML (only formatting and links). */
function Body({ html }: { html: string }) {
  return (
    <Box
      sx={{ '& p': { my: 1 }, '& a': { color: 'primary.main' }, '& blockquote': { borderLeft: 3, borderColor: 'divider', pl: 2, ml: 0 } }}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised on the server (sanitize-html, formatting and links only)
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

function Question({
  q,
  index,
  info,
  choices,
  setChoices,
  disabled,
}: {
  q: PublicAnnounce['type_info']['questions'][number];
  index: number;
  info: PublicAnnounce['type_info'];
  choices: Choices;
  setChoices: (c: Choices) => void;
  disabled: boolean;
}) {
  const translate = useTranslate();
  const multi = info.poll_multi_answers_allowed;
  const mine = choices[q.id] ?? { ids: [], own: '' };
  const Control = multi ? Checkbox : Radio;
  return (
    <FormControl component="fieldset" disabled={disabled} sx={{ width: '100%' }}>
      <FormLabel component="legend" sx={{ fontWeight: 600, color: 'text.primary', mb: 0.5 }}>
        {index + 1}. {q.text}
      </FormLabel>
      <Typography variant="caption" color="text.secondary">
        {translate(multi ? 'announces.page_choose_many' : 'announces.page_choose_one')}
      </Typography>
      <FormGroup role={multi ? 'group' : 'radiogroup'} aria-label={q.text}>
        {q.answers.map((a) => (
          <FormControlLabel
            key={a.id}
            label={a.text}
            control={<Control checked={mine.ids.includes(a.id)} onChange={() => setChoices(toggle(choices, q.id, a.id, multi))} />}
          />
        ))}
      </FormGroup>
      {info.poll_user_answer_allowed ? (
        <TextField
          size="small"
          label={translate('announces.page_own_answer')}
          value={mine.own}
          onChange={(e) => setChoices(writeOwn(choices, q.id, e.target.value, multi))}
          slotProps={{ htmlInput: { maxLength: 1000 } }}
          sx={{ mt: 1 }}
          fullWidth
        />
      ) : null}
    </FormControl>
  );
}

/** What the recipient answered, once the answer is in. */
function GivenAnswers({ a }: { a: PublicAnnounce }) {
  const translate = useTranslate();
  return (
    <Box component="dl" sx={{ m: 0 }}>
      <Typography variant="subtitle2" component="p" sx={{ mb: 1 }}>
        {translate('announces.page_your_answers')}
      </Typography>
      {a.type_info.questions.map((q, i) => {
        const given = a.answers?.find((x) => x.question_id === q.id);
        const texts = (given?.answer_ids ?? []).map((id) => q.answers.find((x) => x.id === id)?.text ?? '');
        if (given?.own_answer) texts.push(given.own_answer);
        return (
          <Box key={q.id} sx={{ mb: 1 }}>
            <Typography component="dt" variant="body2" color="text.secondary">
              {i + 1}. {q.text}
            </Typography>
            <Typography component="dd" sx={{ m: 0, fontWeight: 500 }}>
              {texts.join(', ') || '—'}
            </Typography>
          </Box>
        );
      })}
    </Box>
  );
}

/** /announce/:token: the recipient reads the announce from their mail and answers the poll, once. */
export function AnnouncePage() {
  const translate = useTranslate();
  const locale = useAppLocale();
  const { token = '' } = useParams();
  const [announce, setAnnounce] = useState<PublicAnnounce | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [choices, setChoices] = useState<Choices>({});
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const [sendError, setSendError] = useState<string | null>(null);

  const load = useCallback(() => {
    setError(null);
    http
      .request<{ data: PublicAnnounce }>(tokenPath(token), { auth: false })
      .then((b) => setAnnounce(b.data))
      .catch((e: unknown) =>
        setError(
          (e as { status?: number }).status === 404 || (e as { status?: number }).status === 400
            ? translate('announces.page_not_found')
            : errorText(e, translate),
        ),
      );
  }, [token, translate]);
  useEffect(load, [load]);

  const body = announce ? answerBody(announce.type_info, choices) : null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!body) return;
    setBusy(true);
    setSendError(null);
    try {
      const res = await http.request<{ data: PublicAnnounce }>(tokenPath(token), { method: 'PUT', body, auth: false });
      setAnnounce(res.data);
    } catch (err) {
      setSendError(errorText(err, translate));
      if ((err as { status?: number }).status === 409) load();
    } finally {
      setBusy(false);
    }
  };

  if (error || !announce)
    return (
      <PublicPage title={translate('announces.page_title')}>
        {error ? (
          <Alert severity="warning">{error}</Alert>
        ) : (
          <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
            <CircularProgress size={20} />
            <Typography>{translate('announces.page_loading')}</Typography>
          </Stack>
        )}
      </PublicPage>
    );

  const poll = announce.type === 'poll';
  return (
    <PublicPage title={announce.subject} wide>
      <Typography variant="body2" color="text.secondary" gutterBottom>
        {[announce.project, announce.owner ? translate('announces.page_from', { name: announce.owner.name }) : null]
          .filter(Boolean)
          .join(' · ')}
      </Typography>
      <Typography sx={{ mt: 2 }}>{translate('announces.page_hello', { name: announce.recipient })}</Typography>
      <Body html={announce.body} />
      {announce.owner?.email ? (
        <Typography variant="body2" color="text.secondary">
          {announce.owner.name} · <a href={`mailto:${announce.owner.email}`}>{announce.owner.email}</a>
        </Typography>
      ) : null}
      {poll ? (
        <>
          <Divider sx={{ my: 3 }} />
          {announce.answered_at ? (
            <Stack spacing={2}>
              <Alert icon={<CheckCircleIcon />} severity="success">
                {translate('announces.page_answered', { when: formatDateTime(announce.answered_at, locale) })}
              </Alert>
              <GivenAnswers a={announce} />
            </Stack>
          ) : !announce.open ? (
            <Alert severity="info">{translate('announces.page_poll_closed')}</Alert>
          ) : (
            <Box component="form" onSubmit={submit} noValidate>
              <Stack spacing={3}>
                {announce.type_info.questions.map((q, i) => (
                  <Question
                    key={q.id}
                    q={q}
                    index={i}
                    info={announce.type_info}
                    choices={choices}
                    setChoices={setChoices}
                    disabled={busy}
                  />
                ))}
                {tried && !body ? <Alert severity="warning">{translate('announces.page_missing')}</Alert> : null}
                {sendError ? <Alert severity="error">{sendError}</Alert> : null}
                <Button
                  type="submit"
                  variant="contained"
                  size="large"
                  disabled={busy}
                  startIcon={busy ? <CircularProgress size={18} color="inherit" /> : null}
                >
                  {translate('announces.page_submit')}
                </Button>
              </Stack>
            </Box>
          )}
        </>
      ) : null}
    </PublicPage>
  );
}
