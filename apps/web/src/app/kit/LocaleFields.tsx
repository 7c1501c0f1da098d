import { Typography } from '@mui/material';
import { type FieldProps, NumberField, type NumberFieldProps, useFieldValue } from 'react-admin';
import { useFormat } from '../format';

/**
 * A list's or a page's date in the console's language (react-admin's `DateField` follows the
 * browser's): a moment with its time, or a calendar day with `date`.
 */
export function DateTimeField(props: FieldProps & { date?: boolean }) {
  const value = useFieldValue(props);
  const format = useFormat();
  const text = props.date
    ? // a calendar day (`2026-11-27`) is the same day everywhere, not midnight UTC moved into the browser's zone
      format.date(value as string, { utc: /^\d{4}-\d{2}-\d{2}$/.test(String(value)) })
    : format.dateTime(value as string);
  return (
    // A date and its time read as one: never split over two lines.
    <Typography component="span" variant="body2" sx={{ whiteSpace: 'nowrap' }}>
      {text}
    </Typography>
  );
}

/**
 * A number in the console's language (react-admin's `NumberField` follows the browser's). Codes
 * (ids, addresses, type numbers) are read digit by digit, so `code` keeps them ungrouped.
 */
export function LocaleNumberField({ code, ...props }: NumberFieldProps & { code?: boolean }) {
  const { locale } = useFormat();
  return <NumberField {...props} locales={locale} options={code ? { useGrouping: false } : props.options} />;
}
