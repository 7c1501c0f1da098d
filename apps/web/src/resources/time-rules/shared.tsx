import { scheduleOpen, type TimeRule, type Weekday } from '@atrium/contract';
import { Chip, FormControl, FormHelperText, FormLabel, Stack, Tooltip } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { InputHelperText, TextInput, type TextInputProps, useInput, useRecordContext, useTranslate } from 'react-admin';
import type { ApiRoute } from '../../app/kit/apiRoutes';
import { hhmm, type SummaryTexts, secondsOf, spansMidnight, WEEK, WORKING_DAYS, wholeDay } from './schedule';
import { validateDays, validateTime } from './transform';

/** The console calls time rules "schedules" (its routes /schedules…); the API path is /time-rules. */
export const SCHEDULES_API = 'time-rules';
/** The schedules resource on the API; its list searches by name with `search`. */
export const SCHEDULE_ROUTES: Record<string, ApiRoute> = { schedules: { path: SCHEDULES_API, queryParams: ['search'] } };

/**
 * What deleting these schedules does to access rules: a rule keeps its other schedules, and one
 * left with none applies at any time, so the count of rules using them is said before a delete.
 */
export function usedByRulesWarning(
  records: readonly Record<string, unknown>[],
  translate: (key: string, options?: Record<string, unknown>) => string,
): string | null {
  const rules = new Set(records.flatMap((r) => (Array.isArray(r.access_rules) ? r.access_rules : [])));
  return rules.size ? translate('schedules.used_by_rules', { smart_count: rules.size }) : null;
}

/** The texts of a schedule summary in the viewer's language. */
export function useSummaryTexts(): SummaryTexts {
  const translate = useTranslate();
  return useMemo(
    () => ({
      day: (d: Weekday) => translate(`schedules.days.${d}`),
      everyDay: translate('schedules.every_day'),
      wholeDay: translate('schedules.whole_day'),
      allDay: translate('schedules.all_day'),
      none: translate('schedules.no_entries'),
    }),
    [translate],
  );
}

/** The current time, renewed every `ms` (an "open now" chip stays true while the page is open). */
function useNow(ms = 60_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** Whether the schedule of the record (as saved) is open at this moment, by the doors' own evaluation. */
export function OpenNowField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const record = useRecordContext<TimeRule>();
  const now = useNow();
  if (!record?.time_zone) return null;
  const open = scheduleOpen(record, now);
  return (
    <Tooltip title={translate('schedules.open_now_hint', { zone: record.time_zone })}>
      <Chip
        size="small"
        color={open ? 'success' : 'default'}
        variant={open ? 'filled' : 'outlined'}
        label={translate(open ? 'schedules.open_now' : 'schedules.closed_now')}
        data-testid="schedule-open-now"
      />
    </Tooltip>
  );
}

/** An entry's days as toggle chips, Monday first; at least one must stay chosen. */
export function DaysInput({
  source,
  readOnly,
  defaultValue = WORKING_DAYS,
}: {
  source: string;
  readOnly?: boolean;
  /** Also read by the entries' iterator for a new row. */
  defaultValue?: readonly Weekday[];
}) {
  const translate = useTranslate();
  const { field, fieldState, isRequired } = useInput({ source, validate: validateDays, defaultValue: [...defaultValue] });
  const days: string[] = Array.isArray(field.value) ? field.value : [];
  const toggle = (d: Weekday) => {
    field.onChange(days.includes(d) ? days.filter((x) => x !== d) : WEEK.filter((w) => w === d || days.includes(w)));
    field.onBlur();
  };
  const error = fieldState.invalid ? fieldState.error?.message : undefined;
  return (
    <FormControl component="fieldset" error={!!error} required={isRequired} sx={{ minWidth: 0 }}>
      <FormLabel component="legend" sx={{ fontSize: 12, mb: 0.5 }}>
        {translate('resources.schedules.fields.days')}
      </FormLabel>
      <Stack direction="row" sx={{ gap: 0.5, flexWrap: 'wrap' }}>
        {WEEK.map((d) => {
          const on = days.includes(d);
          return (
            <Chip
              key={d}
              size="small"
              label={translate(`schedules.days.${d}`)}
              title={translate(`schedules.days_long.${d}`)}
              aria-label={translate(`schedules.days_long.${d}`)}
              aria-pressed={on}
              color={on ? 'primary' : 'default'}
              variant={on ? 'filled' : 'outlined'}
              onClick={readOnly ? undefined : () => toggle(d)}
              disabled={readOnly && !on}
              sx={{ minWidth: 44 }}
            />
          );
        })}
      </Stack>
      {error ? (
        <FormHelperText>
          <InputHelperText error={error} />
        </FormHelperText>
      ) : null}
    </FormControl>
  );
}

/** A time of day typed as `HH:MM` (24-hour, whatever the browser's locale); the body turns it into seconds. */
export function TimeOfDayInput({ validate, ...props }: Omit<TextInputProps, 'type'>) {
  const translate = useTranslate();
  return (
    <TextInput
      placeholder={translate('schedules.time_placeholder')}
      validate={[...(Array.isArray(validate) ? validate : validate ? [validate] : []), validateTime]}
      slotProps={{ inputLabel: { shrink: true }, htmlInput: { maxLength: 8, autoComplete: 'off' } }}
      sx={{ width: 120 }}
      {...props}
    />
  );
}

/** What an entry's times mean when they are not a plain span: past midnight, or the whole day. */
export function EntryNote({ entry }: { entry: { from?: unknown; to?: unknown } | undefined }) {
  const translate = useTranslate();
  const from = secondsOf(entry?.from);
  const to = secondsOf(entry?.to);
  if (from === null || to === null) return null;
  const span = { from, to };
  const text = wholeDay(span)
    ? translate('schedules.whole_day_note')
    : spansMidnight(span)
      ? translate('schedules.spans_midnight', { time: hhmm(to) })
      : null;
  return text ? (
    <FormHelperText sx={{ alignSelf: 'center', maxWidth: 260, color: 'info.main' }} data-testid="entry-note">
      {text}
    </FormHelperText>
  ) : null;
}
