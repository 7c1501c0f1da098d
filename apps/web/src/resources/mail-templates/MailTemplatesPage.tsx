import {
  DOMAIN_SEARCH_MIN_LENGTH,
  MAIL_TEMPLATE_MESSAGES,
  type MailPreview,
  type MailTemplate,
  missingPlaceholders,
} from '@atrium/contract';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { FunctionField, Title, useDataProvider, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { insertPlaceholder } from './placeholders';

const L = (k: string) => `mail_templates.${k}`;
const KEY = ['mail-templates'];

interface GroupOption {
  id: number;
  name: string;
}

/** Whose templates are shown: the project's (null) or a group's, picked by name. */
function ScopePicker({ value, onChange }: { value: GroupOption | null; onChange: (g: GroupOption | null) => void }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const [input, setInput] = useState('');
  const search = input.trim().length >= DOMAIN_SEARCH_MIN_LENGTH ? `&search=${encodeURIComponent(input.trim())}` : '';
  const groups = useQuery({
    queryKey: ['mail-templates-groups', search],
    queryFn: () => dp.request<{ data: GroupOption[] }>(`/domains?size=50&sort=name${search}`).then((r) => r.data),
  });
  return (
    <Autocomplete
      sx={{ maxWidth: 420, mb: 2 }}
      size="small"
      options={groups.data ?? []}
      value={value}
      onChange={(_e, g) => onChange(g)}
      onInputChange={(_e, v) => setInput(v)}
      getOptionLabel={(g) => g.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      renderInput={(params) => <TextField {...params} label={translate(L('scope'))} placeholder={translate(L('scope_project'))} />}
    />
  );
}

/** Mail templates (issue 14): every kind and language of the project, edited with placeholders and a live preview. */
export function MailTemplatesPage() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const [group, setGroup] = useState<GroupOption | null>(null);
  const list = useQuery({
    queryKey: [...KEY, group?.id ?? null],
    queryFn: () => dp.request<{ data: MailTemplate[] }>(`/mail-templates${group ? `?domain_id=${group.id}` : ''}`).then((r) => r.data),
  });
  const [editing, setEditing] = useState<MailTemplate | null>(null);
  return (
    <Box sx={{ p: 2 }}>
      <Title title={translate(L('title'))} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {translate(L('hint'))}
      </Typography>
      <ScopePicker value={group} onChange={setGroup} />
      {list.isError && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {translate(L('not_allowed'))}
        </Alert>
      )}
      <Card variant="outlined">
        <RecordsList
          records={list.data?.map((t) => ({ ...t, id: `${t.kind}-${t.locale}` }))}
          loading={list.isPending && !list.isError}
          resource="mail-templates"
          primary="kind"
          label={translate(L('title'))}
          perPage={100}
        >
          <FunctionField source="kind" label={L('kind')} sortable={false} render={(t: MailTemplate) => translate(L(`kinds.${t.kind}`))} />
          <FunctionField
            source="locale"
            label={L('locale')}
            sortable={false}
            render={(t: MailTemplate) => translate(L(`locales.${t.locale}`))}
          />
          {/* The mail's own words, in the mail's language whatever the console's: marked so for readers and checks. */}
          <FunctionField
            source="subject"
            label={L('subject')}
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(t: MailTemplate) => <span lang={t.locale}>{t.subject}</span>}
          />
          <FunctionField
            source="is_default"
            label={L('state')}
            sortable={false}
            render={(t: MailTemplate) => (
              <Chip size="small" color={t.is_default ? 'default' : 'primary'} label={translate(L(t.is_default ? 'default' : 'custom'))} />
            )}
          />
          <FunctionField
            label="form.actions"
            render={(t: MailTemplate) => (
              // The row's id is the list's own (kind and language): the template edited is the server's record.
              <Button size="small" onClick={() => setEditing(list.data?.find((x) => x.kind === t.kind && x.locale === t.locale) ?? null)}>
                {translate(L('edit'))}
              </Button>
            )}
          />
        </RecordsList>
      </Card>
      {editing && <TemplateEditor key={`${editing.kind}-${editing.locale}`} template={editing} onClose={() => setEditing(null)} />}
    </Box>
  );
}

function TemplateEditor({ template, onClose }: { template: MailTemplate; onClose: () => void }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { profile } = useSessionData();
  const [subject, setSubject] = useState(template.subject);
  const [body, setBody] = useState(template.body);
  const [to, setTo] = useState(profile.email ?? '');
  const bodyRef = useRef<HTMLTextAreaElement | null>(null);
  const missing = missingPlaceholders(template.kind, body);
  const valid = subject.trim() !== '' && body.trim() !== '' && !missing.length;
  const scope = template.domain_id === null ? {} : { domain_id: template.domain_id };
  const draft = { kind: template.kind, locale: template.locale, ...scope, subject, body };

  // The live preview follows the text, a moment after typing stops.
  const [debounced, setDebounced] = useState(draft);
  useEffect(() => {
    const h = setTimeout(
      () =>
        setDebounced({
          kind: template.kind,
          locale: template.locale,
          ...(template.domain_id === null ? {} : { domain_id: template.domain_id }),
          subject,
          body,
        }),
      300,
    );
    return () => clearTimeout(h);
  }, [subject, body, template.kind, template.locale, template.domain_id]);
  const preview = useQuery({
    queryKey: [...KEY, 'preview', debounced],
    enabled: debounced.subject.trim() !== '' && !missingPlaceholders(debounced.kind, debounced.body).length,
    queryFn: () => dp.request<{ data: MailPreview }>('/mail-templates/preview', { method: 'POST', body: debounced }).then((r) => r.data),
  });

  const done = () => queryClient.invalidateQueries({ queryKey: KEY });
  const save = useMutation({
    mutationFn: () =>
      template.id === null
        ? dp.request('/mail-templates', { method: 'PUT', body: draft })
        : dp.request(`/mail-templates/${template.id}`, { method: 'PATCH', body: { subject, body } }),
    onSuccess: async () => {
      alert.done();
      await done();
      onClose();
    },
    onError: (e) => alert.error(e),
  });
  const reset = useMutation({
    mutationFn: () => dp.request(`/mail-templates/${template.id}`, { method: 'DELETE' }),
    onSuccess: async () => {
      alert.success(L('reset_done'));
      await done();
      onClose();
    },
    onError: (e) => alert.error(e),
  });
  const send = useMutation({
    mutationFn: () => dp.request('/mail-templates/send-preview', { method: 'POST', body: { ...draft, to: to.trim() } }),
    onSuccess: () => alert.success(L('sent'), { to: to.trim() }),
    onError: (e) => alert.error(e),
  });

  const insert = (name: string) => {
    const el = bodyRef.current;
    const r = insertPlaceholder(body, name, el?.selectionStart ?? body.length, el?.selectionEnd ?? body.length);
    setBody(r.text);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(r.cursor, r.cursor);
    });
  };

  return (
    <Dialog open onClose={onClose} maxWidth="lg" fullWidth>
      <DialogTitle>
        {translate(L(`kinds.${template.kind}`))} · {translate(L(`locales.${template.locale}`))}
      </DialogTitle>
      <DialogContent>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ pt: 1 }}>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <Stack spacing={2}>
              <TextField label={translate(L('subject'))} value={subject} onChange={(e) => setSubject(e.target.value)} fullWidth required />
              <Box>
                <Typography variant="caption" color="text.secondary">
                  {translate(L('placeholders'))}
                </Typography>
                <Stack direction="row" spacing={1} useFlexGap sx={{ mt: 0.5, flexWrap: 'wrap' }}>
                  {template.placeholders.map((p) => (
                    <Tooltip key={p} describeChild title={translate(L(`placeholder_help.${p}`), { _: p })}>
                      <Chip
                        size="small"
                        label={`{${p}}`}
                        color={template.required_placeholders.includes(p) ? 'primary' : 'default'}
                        variant={template.required_placeholders.includes(p) ? 'filled' : 'outlined'}
                        onClick={() => insert(p)}
                      />
                    </Tooltip>
                  ))}
                </Stack>
                <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 0.5 }}>
                  {translate(L('footer_help'))}
                </Typography>
              </Box>
              <TextField
                label={translate(L('body'))}
                value={body}
                onChange={(e) => setBody(e.target.value)}
                inputRef={bodyRef}
                multiline
                minRows={10}
                fullWidth
                required
                error={missing.length > 0}
                helperText={
                  missing.length
                    ? translate(MAIL_TEMPLATE_MESSAGES.must_contain, { placeholders: missing.join(', ') })
                    : translate(L('body_help'))
                }
              />
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <TextField
                  size="small"
                  type="email"
                  label={translate(L('send_to'))}
                  value={to}
                  onChange={(e) => setTo(e.target.value)}
                  sx={{ flex: 1 }}
                />
                <Button variant="outlined" disabled={!valid || !to.trim() || send.isPending} onClick={() => send.mutate()}>
                  {translate(L('send'))}
                </Button>
              </Stack>
            </Stack>
          </Box>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <Card variant="outlined" sx={{ height: '100%' }}>
              <CardContent>
                <Typography variant="subtitle2" gutterBottom>
                  {translate(L('preview'))}
                </Typography>
                {preview.data && (
                  <>
                    <Typography variant="body2" sx={{ mb: 1 }} data-testid="preview-subject">
                      {translate(L('preview_subject'), { subject: preview.data.subject })}
                    </Typography>
                    {/* The server escapes every value; the frame is sandboxed all the same. */}
                    <Box
                      component="iframe"
                      title={translate(L('preview'))}
                      sandbox=""
                      srcDoc={preview.data.html}
                      sx={{ width: '100%', minHeight: 320, border: 0, bgcolor: 'background.paper' }}
                    />
                  </>
                )}
                {preview.isError && <Alert severity="warning">{String((preview.error as Error).message)}</Alert>}
              </CardContent>
            </Card>
          </Box>
        </Stack>
      </DialogContent>
      <DialogActions>
        {template.id !== null && (
          <Button color="warning" onClick={() => reset.mutate()} disabled={reset.isPending} sx={{ mr: 'auto' }}>
            {translate(L('reset'))}
          </Button>
        )}
        <Button onClick={onClose}>{translate(L('cancel'))}</Button>
        <Button variant="contained" disabled={!valid || save.isPending} onClick={() => save.mutate()}>
          {translate(L('save'))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
