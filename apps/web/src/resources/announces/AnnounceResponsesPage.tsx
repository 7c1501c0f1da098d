import type { Announce, AnnounceResponse } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import { Alert, Autocomplete, Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FunctionField, Title, useDataProvider, useLocaleState, useTranslate } from 'react-admin';
import { Link, useSearchParams } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { downloadFile } from '../../app/kit/download';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { RecordsList } from '../../app/kit/RecordsList';
import { useAlert } from '../../app/useAlert';
import { AnnounceStatusChip } from './AnnounceList';
import { ResultsChart } from './ResultsChart';
import { ANNOUNCEMENTS_API } from './routes';

const POLLS = JSON.stringify({ match: 'match_all', rules: [{ field: 'type', operator: 'equals', value: 'poll' }] });
const PAGE = 20;

/** One respondent's answers as text: the chosen answers and their own, per question. */
export function answersText(poll: Announce, r: AnnounceResponse): string {
  return poll.type_info.questions
    .map((q, i) => {
      const given = r.answers.find((a) => a.question_id === q.id);
      const texts = (given?.answer_ids ?? []).map((id) => q.answers.find((a) => a.id === id)?.text ?? `#${id}`);
      if (given?.own_answer) texts.push(`“${given.own_answer}”`);
      return `${i + 1}. ${texts.join(', ') || '—'}`;
    })
    .join('  ');
}

function Responses({ poll }: { poll: Announce }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const dp = useDataProvider<AtriumDataProvider>();
  const [page, setPage] = useState(0);
  const { data } = useQuery({
    queryKey: ['announce-responses', poll.id, page, poll.stats.answered],
    queryFn: ({ signal }) =>
      dp.request<{ data: AnnounceResponse[]; meta: { total: number } }>(`/${ANNOUNCEMENTS_API}/responses`, {
        query: { announce_id: poll.id, page: page + 1, size: PAGE, sort: '-answered_at' },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  if (!data?.meta.total) return null;
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          {translate('announces.responses')}
        </Typography>
        <RecordsList
          records={data.data}
          resource="announces/responses"
          primary="user"
          label={translate('announces.responses')}
          serverPaging={{ total: data.meta.total, page: page + 1, perPage: PAGE, onChange: (p) => setPage(p - 1) }}
        >
          <FunctionField
            source="user"
            label="announces.user"
            sortable={false}
            render={(r: AnnounceResponse) => r.user?.name ?? translate('announces.hidden_user')}
          />
          <FunctionField
            source="answered_at"
            label="announces.answered_at"
            sortable={false}
            render={(r: AnnounceResponse) => formatDateTime(r.answered_at, locale)}
          />
          <FunctionField
            source="answers"
            label="announces.responses"
            sortable={false}
            cellClassName={PROSE_CELL}
            render={(r: AnnounceResponse) => answersText(poll, r)}
          />
        </RecordsList>
      </CardContent>
    </Card>
  );
}

/** /announces/response: a poll's results as bars per question, its responses, and their download. */
export function AnnounceResponsesPage() {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const [params, setParams] = useSearchParams();
  const chosen = Number(params.get('announce_id')) || null;
  const [search, setSearch] = useState('');
  const polls = useQuery({
    queryKey: ['announce-polls', search],
    queryFn: ({ signal }) =>
      dp.request<{ data: Announce[] }>(`/${ANNOUNCEMENTS_API}`, {
        query: { filters: POLLS, sort: '-id', size: 50, ...(search.trim() ? { search: search.trim() } : {}) },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  const poll = useQuery({
    queryKey: ['announce-results', chosen],
    enabled: chosen !== null,
    queryFn: ({ signal }) => dp.request<{ data: Announce }>(`/${ANNOUNCEMENTS_API}/${chosen}`, { query: { with: 'results' }, signal }),
    // Answers keep coming in while the poll is open.
    refetchInterval: (q) => (['sending', 'sent'].includes(q.state.data?.data.status ?? '') ? 5000 : false),
  });
  const current = poll.data?.data;
  const options = polls.data?.data ?? [];
  const value = current ?? options.find((p) => p.id === chosen) ?? null;
  const download = (format: 'csv' | 'xlsx') =>
    chosen &&
    downloadFile(`/${ANNOUNCEMENTS_API}/responses/download`, { announce_id: chosen, export_format: format }, `responses.${format}`).catch(
      (e) => alert.error(e),
    );
  return (
    <Box sx={{ p: 2, maxWidth: 1100 }}>
      <Title title={translate('announces.responses_title')} />
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' }, mb: 2 }}>
        <Autocomplete
          sx={{ minWidth: 320, flex: 1 }}
          options={options}
          value={value}
          getOptionLabel={(p) => p.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          filterOptions={(x) => x}
          onInputChange={(_e, v, reason) => reason === 'input' && setSearch(v)}
          onChange={(_e, p) => setParams(p ? { announce_id: String(p.id) } : {})}
          renderInput={(props) => <TextField {...props} label={translate('announces.choose_poll')} />}
          noOptionsText={translate('announces.no_polls')}
        />
        {current ? (
          <Stack direction="row" spacing={1}>
            <Button startIcon={<DownloadIcon />} onClick={() => download('xlsx')} disabled={!current.stats.answered}>
              {translate('announces.download_xlsx')}
            </Button>
            <Button startIcon={<DownloadIcon />} onClick={() => download('csv')} disabled={!current.stats.answered}>
              {translate('announces.download_csv')}
            </Button>
          </Stack>
        ) : null}
      </Stack>
      {!chosen ? (
        <Alert severity="info" variant="outlined">
          {translate(polls.data && !options.length && !search ? 'announces.no_polls' : 'announces.choose_poll_hint')}
        </Alert>
      ) : poll.isError ? (
        <Alert severity="warning" variant="outlined">
          {translate('kit.record_unavailable')}
        </Alert>
      ) : current?.results ? (
        <Stack spacing={2}>
          <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
            <Typography variant="h5" component="h1">
              <Link to={`/announces/${current.id}`} style={{ color: 'inherit' }}>
                {current.name}
              </Link>
            </Typography>
            <AnnounceStatusChip status={current.status} />
          </Stack>
          <ResultsChart results={current.results} />
          <Responses poll={current} />
        </Stack>
      ) : null}
    </Box>
  );
}
