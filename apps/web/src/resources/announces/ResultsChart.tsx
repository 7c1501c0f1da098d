import type { AnnounceResults } from '@atrium/contract';
import { Box, Card, CardContent, Stack, Typography } from '@mui/material';
import { useTheme } from '@mui/material/styles';
import { useTranslate } from 'react-admin';
import { percent, questionBars } from './poll';

/** A ring showing the share of recipients who answered. */
export function ParticipationRing({ answered, recipients }: { answered: number; recipients: number }) {
  const theme = useTheme();
  const translate = useTranslate();
  const share = percent(answered, recipients);
  const r = 30;
  const c = 2 * Math.PI * r;
  const summary = translate('announces.results_summary', { answered, recipients, percent: share });
  return (
    <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
      <svg width="76" height="76" viewBox="0 0 76 76" role="img" aria-label={summary}>
        <circle cx="38" cy="38" r={r} fill="none" stroke={theme.palette.action.hover} strokeWidth="10" />
        <circle
          cx="38"
          cy="38"
          r={r}
          fill="none"
          stroke={theme.palette.success.main}
          strokeWidth="10"
          strokeLinecap="round"
          strokeDasharray={`${(c * share) / 100} ${c}`}
          transform="rotate(-90 38 38)"
        />
        <text x="38" y="43" textAnchor="middle" fontSize="14" fontWeight="700" fill={theme.palette.text.primary}>
          {share}%
        </text>
      </svg>
      <Typography variant="body1">{summary}</Typography>
    </Stack>
  );
}

/** One question's results: a bar per answer, the most chosen in the strong colour, counts and shares beside. */
export function QuestionChart({ question, index }: { question: AnnounceResults['questions'][number]; index: number }) {
  const theme = useTheme();
  const translate = useTranslate();
  const bars = questionBars(question, translate('announces.own_answers'));
  const label = translate('announces.chart_label', { n: index + 1, text: question.text });
  return (
    <Card variant="outlined" component="section" aria-label={label}>
      <CardContent>
        <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'baseline', mb: 1.5, gap: 2 }}>
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            {index + 1}. {question.text}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
            {translate('announces.respondents', { smart_count: question.respondents })}
          </Typography>
        </Stack>
        <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', rowGap: 1.25 }}>
          {bars.map((b) => (
            <Box
              component="li"
              key={b.key}
              sx={{
                display: 'grid',
                gridTemplateColumns: { xs: '1fr auto', sm: 'minmax(120px, 28%) 1fr 96px' },
                alignItems: 'center',
                gap: 1.5,
              }}
            >
              <Typography variant="body2" sx={{ fontWeight: b.leader ? 600 : 400, overflowWrap: 'anywhere' }}>
                {b.label}
              </Typography>
              <Box sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' }, gridRow: { xs: 2, sm: 'auto' } }}>
                <svg width="100%" height="22" role="img" aria-label={`${b.label}: ${b.count}`} preserveAspectRatio="none">
                  <rect x="0" y="2" width="100%" height="18" rx="9" fill={theme.palette.action.hover} />
                  {b.scale > 0 ? (
                    <rect
                      x="0"
                      y="2"
                      width={`${Math.max(b.scale * 100, 2)}%`}
                      height="18"
                      rx="9"
                      fill={
                        b.key === 'own' ? theme.palette.secondary.main : b.leader ? theme.palette.primary.main : theme.palette.primary.light
                      }
                    />
                  ) : null}
                </svg>
              </Box>
              <Typography variant="body2" sx={{ textAlign: 'right', fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}>
                {translate('announces.votes', { count: b.count, percent: b.percent })}
              </Typography>
            </Box>
          ))}
        </Box>
      </CardContent>
    </Card>
  );
}

/** Every question of a poll with its bars, under the share of recipients who answered. */
export function ResultsChart({ results }: { results: AnnounceResults }) {
  return (
    <Stack spacing={2}>
      <ParticipationRing answered={results.answered} recipients={results.recipients} />
      {results.questions.map((q, i) => (
        <QuestionChart key={q.id} question={q} index={i} />
      ))}
    </Stack>
  );
}
