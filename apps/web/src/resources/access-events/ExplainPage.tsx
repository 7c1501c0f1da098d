import type { Explain } from '@atrium/contract';
import { range, required } from '@atrium/contract';
import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import RemoveCircleOutlineIcon from '@mui/icons-material/RemoveCircleOutlineOutlined';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Stack,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  AutocompleteInput,
  DateTimeInput,
  Form,
  FormDataConsumer,
  NumberInput,
  RadioButtonGroupInput,
  ReferenceInput,
  Title,
  useDataProvider,
  useGetMany,
  useLocaleState,
  useTranslate,
} from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { formatDateTime } from '../../app/format';
import { explainQuery, type Line, namedIds, questionOf, searchOf, stepLines, verdictLine, type Wording } from './explain';

const byName = (q: string) => (q ? { 'name@has': q } : {});
const userText = (u: { name?: string; login?: string } | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');
const whoChoices = [
  { id: 'identifier', name: 'explain.who_identifier' },
  { id: 'user', name: 'explain.who_user' },
];

/** A local date-time input's value ("2025-03-01T09:00") for an instant. */
const localInputValue = (d: Date) => {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const STATE_ICON = {
  ok: <CheckCircleIcon color="success" />,
  fail: <CancelIcon color="error" />,
  skipped: <RemoveCircleOutlineIcon color="disabled" />,
} as const;
const STATE_LABEL = { ok: 'explain.ok', fail: 'explain.failed', skipped: 'explain.skipped' } as const;

/** Names of records by id, or null while they load or when the caller may not list them. */
function useNames(resource: string, ids: number[]): Map<number, string> {
  const { data } = useGetMany<{ id: number; name: string }>(resource, { ids }, { enabled: ids.length > 0, retry: false });
  return useMemo(() => new Map((data ?? []).map((r) => [Number(r.id), r.name])), [data]);
}

function Answer({ answer }: { answer: Explain }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const ids = useMemo(() => namedIds(answer), [answer]);
  const rules = useNames('access-rules', ids.rules);
  const schedules = useNames('time-rules', ids.schedules);
  const identifiers = useNames('identifiers', ids.identifiers);
  const wording: Wording = useMemo(() => {
    const quoted = (names: Map<number, string>) => (id: number) => {
      const name = names.get(id);
      return name ? translate('explain.quoted', { name }) : translate('explain.unnamed', { id });
    };
    return {
      rule: quoted(rules),
      schedule: quoted(schedules),
      identifier: quoted(identifiers),
      date: (iso) => formatDateTime(iso, locale),
    };
  }, [translate, locale, rules, schedules, identifiers]);
  const verdict = verdictLine(answer, wording);
  const lines: Line[] = answer.steps.flatMap((s) => stepLines(s, answer, wording));
  return (
    <Stack spacing={2} sx={{ mt: 2 }} data-testid="explain-answer">
      <Alert severity={answer.granted ? 'success' : 'error'} variant="filled" role="status">
        <AlertTitle>{translate(verdict.key, verdict.args)}</AlertTitle>
        {verdict.reason ? translate(verdict.reason) : null}
      </Alert>
      <Card variant="outlined">
        <CardContent>
          <Typography variant="subtitle1" component="h2">
            {translate('explain.checks')}
          </Typography>
          <List dense>
            {lines.map((l, i) => (
              // Lines have no id of their own; their order is the door's order of checks.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <ListItem key={i} disableGutters>
                <ListItemIcon sx={{ minWidth: 36 }} aria-label={translate(STATE_LABEL[l.state])} role="img">
                  {STATE_ICON[l.state]}
                </ListItemIcon>
                <ListItemText primary={translate(l.key, l.args)} />
              </ListItem>
            ))}
          </List>
        </CardContent>
      </Card>
      {answer.others.length > 1 ? (
        <Card variant="outlined">
          <CardContent>
            <Typography variant="subtitle1" component="h2">
              {translate('explain.others')}
            </Typography>
            <List dense>
              {answer.others.map((o) => (
                <ListItem key={o.identifier_id} disableGutters>
                  <ListItemIcon sx={{ minWidth: 36 }} aria-label={translate(o.granted ? 'explain.ok' : 'explain.failed')} role="img">
                    {o.granted ? STATE_ICON.ok : STATE_ICON.fail}
                  </ListItemIcon>
                  <ListItemText
                    primary={
                      o.granted
                        ? translate('explain.other_granted', { name: wording.identifier(o.identifier_id) })
                        : translate('explain.other_refused', {
                            name: wording.identifier(o.identifier_id),
                            reason: translate(`access_events.reasons.${o.reason ?? 'unknown'}`),
                          })
                    }
                  />
                </ListItem>
              ))}
            </List>
          </CardContent>
        </Card>
      ) : null}
    </Stack>
  );
}

/**
 * "Why was I refused?": what a door decides for a person or an identifier at a lock and an instant,
 * step by step. The question lives in the address (`/access-control/explain?identifier_id=…`), so an
 * access event's "Why?" opens it answered, and an answer can be shared.
 */
export function ExplainPage() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const [params, setParams] = useSearchParams();
  const question = useMemo(() => questionOf(params), [params]);
  const query = useMemo(() => explainQuery(question), [question]);
  const answer = useQuery({
    queryKey: ['access-explain', query],
    queryFn: ({ signal }) => dp.request<{ data: Explain }>('/access/explain', { query: query ?? {}, signal }).then((b) => b.data),
    enabled: query !== null,
    staleTime: 0,
  });
  const defaults = useMemo(
    () => ({
      ...question,
      at: localInputValue(question.at ? new Date(question.at) : new Date()),
    }),
    [question],
  );
  return (
    <Box sx={{ p: { xs: 1, md: 2 }, maxWidth: 900 }}>
      <Title title={translate('explain.title')} />
      <Typography variant="h5" component="h1" sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
        <HelpOutlineIcon /> {translate('explain.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {translate('explain.intro')}
      </Typography>
      <Card variant="outlined">
        <CardContent>
          <Form
            // A new question from the address (another "Why?") refills the form.
            key={params.toString()}
            defaultValues={defaults}
            onSubmit={(values: Record<string, unknown>) => setParams(searchOf(values))}
          >
            <RadioButtonGroupInput source="who" label="explain.who" choices={whoChoices} row />
            <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2 }}>
              <FormDataConsumer>
                {({ formData }) =>
                  formData.who === 'user' ? (
                    <ReferenceInput source="user_id" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
                      <AutocompleteInput label="explain.user_id" optionText={userText} filterToQuery={byName} validate={required} />
                    </ReferenceInput>
                  ) : (
                    <ReferenceInput source="identifier_id" reference="identifiers" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
                      <AutocompleteInput label="explain.identifier_id" filterToQuery={byName} validate={required} />
                    </ReferenceInput>
                  )
                }
              </FormDataConsumer>
              <ReferenceInput source="device_id" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
                <AutocompleteInput label="explain.device_id" filterToQuery={byName} validate={required} />
              </ReferenceInput>
              <NumberInput source="lock" label="explain.lock" validate={[required, range(1, 64)]} min={1} max={64} />
              <DateTimeInput source="at" label="explain.at" helperText="explain.at_help" />
            </Box>
            <Button type="submit" variant="contained" startIcon={<HelpOutlineIcon />}>
              {translate('explain.ask')}
            </Button>
          </Form>
        </CardContent>
      </Card>
      {query === null ? (
        <Typography color="text.secondary" sx={{ mt: 2 }}>
          {translate('explain.pick')}
        </Typography>
      ) : answer.isPending ? (
        <Stack direction="row" spacing={1} sx={{ mt: 2, alignItems: 'center' }} role="status">
          <CircularProgress size={20} />
          <Typography>{translate('explain.loading')}</Typography>
        </Stack>
      ) : answer.isError ? (
        <Alert severity="error" variant="outlined" sx={{ mt: 2 }}>
          {errorText(answer.error, translate)}
        </Alert>
      ) : answer.data ? (
        <Answer answer={answer.data} />
      ) : null}
    </Box>
  );
}
