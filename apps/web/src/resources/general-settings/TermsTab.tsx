import { LOCALES, type Locale, TERMS_MAX_LENGTH, type TermsSettings } from '@atrium/contract';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import SaveIcon from '@mui/icons-material/Save';
import { Alert, Box, Button, Chip, CircularProgress, Link, TextField, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useDataProvider, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { FormSection } from '../../app/kit/FormSection';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';

const PATH = '/settings/terms';
const T = (k: string) => `general_settings.terms.${k}`;

/** What the Save button sends: only the languages whose text was changed here. */
export function termsBody(saved: TermsSettings, draft: Record<Locale, string>): Partial<Record<Locale, string>> {
  const body: Partial<Record<Locale, string>> = {};
  for (const l of LOCALES) if (draft[l] !== saved[l].html) body[l] = draft[l];
  return body;
}

/** The form of the tab: a text area per language, its state (built-in or own) and a reset per language. */
export function TermsForm({
  terms,
  readOnly,
  busy,
  onSave,
  onReset,
}: {
  terms: TermsSettings;
  readOnly: boolean;
  busy: boolean;
  onSave: (body: Partial<Record<Locale, string>>) => void;
  onReset: (locale: Locale) => void;
}) {
  const translate = useTranslate();
  const [draft, setDraft] = useState<Record<Locale, string>>({ en: terms.en.html, ru: terms.ru.html });
  const changed = Object.keys(termsBody(terms, draft)).length > 0;
  return (
    <Box>
      {readOnly ? (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {translate('general_settings.read_only')}
        </Alert>
      ) : null}
      <FormSection title={T('title')} hint={T('hint')} />
      {LOCALES.map((l) => (
        <Box key={l} sx={{ mb: 3 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
            <Typography variant="subtitle2">{translate(T(l))}</Typography>
            <Chip
              size="small"
              label={translate(T(terms[l].is_default ? 'built_in' : 'own'))}
              color={terms[l].is_default ? 'default' : 'primary'}
            />
            <Link href={`/api/v0/terms/${l}.html`} target="_blank" rel="noopener" variant="body2">
              {translate(T('open'))}
            </Link>
            {readOnly || terms[l].is_default ? null : (
              <Button size="small" startIcon={<RestartAltIcon />} disabled={busy} onClick={() => onReset(l)}>
                {translate(T('reset'))}
              </Button>
            )}
          </Box>
          <TextField
            value={draft[l]}
            onChange={(e) => setDraft((d) => ({ ...d, [l]: e.target.value }))}
            multiline
            minRows={6}
            maxRows={20}
            fullWidth
            slotProps={{ htmlInput: { maxLength: TERMS_MAX_LENGTH, 'aria-label': translate(T(l)), readOnly } }}
            sx={{ fontFamily: 'monospace' }}
          />
        </Box>
      ))}
      {readOnly ? null : (
        <Button variant="contained" startIcon={<SaveIcon />} disabled={busy || !changed} onClick={() => onSave(termsBody(terms, draft))}>
          {translate('ra.action.save')}
        </Button>
      )}
    </Box>
  );
}

/** The terms and conditions tab of the project settings: the operator's text per language, or the built-in one. */
export function TermsTab() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const key = ['settings', PATH];
  const query = useQuery({ queryKey: key, queryFn: async () => (await dp.request<{ data: TermsSettings }>(PATH)).data });
  const save = useMutation({
    mutationFn: async (body: Partial<Record<Locale, string | null>>) =>
      (await dp.request<{ data: TermsSettings }>(PATH, { method: 'PATCH', body })).data,
    onSuccess: (data) => {
      queryClient.setQueryData(key, data);
      alert.done();
    },
    onError: (e) => alert.error(e),
  });
  if (query.isError) return <Alert severity="error">{translate('errors.default')}</Alert>;
  if (!query.data) return <CircularProgress aria-label={translate('app.loading')} />;
  return (
    <TermsForm
      // The answer is what is stored (sanitized): the text areas start again from it.
      key={JSON.stringify(query.data)}
      terms={query.data}
      readOnly={!can('can_change_project_settings')}
      busy={save.isPending}
      onSave={(body) => save.mutate(body)}
      onReset={(l) => save.mutate({ [l]: null })}
    />
  );
}
