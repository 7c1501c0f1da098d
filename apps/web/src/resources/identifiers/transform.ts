import type { CreateIdentifierBody, Identifier, UpdateIdentifierBody } from '@atrium/contract';
import { displayValue, type IdentifierFormat, storedValue } from '../../app/identifier-value';

/** The form edits the value as the viewer reads it, in `value_text`; `value` stays as stored. */
export const VALUE_TEXT = 'value_text';

const FIELDS = [
  'name',
  'description',
  'is_active',
  'type',
  'owner_id',
  'period_restrict_active',
  'passes_restrict_active',
  'access_rules',
] as const;

/** Text inputs give '' for an emptied field; the API wants null. */
const nullIfBlank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

/** A date-time input's local time ("2025-03-01T09:00") or a stored ISO string → ISO with offset, or null. */
export function isoOrNull(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(String(v));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A record → the form's values: the value in the viewer's format. */
export const toFormValues = (record: Partial<Identifier>, format: IdentifierFormat): Record<string, unknown> => ({
  ...record,
  [VALUE_TEXT]: displayValue(record.type ?? 'card', record.value, format),
});

/**
 * The form's values → the body the API takes: only the fields it knows (the record carries read-only
 * ones such as the passes used), '' → null, dates as ISO, the typed value as stored. An unchanged
 * text keeps the stored value as it is (a decimal round trip would drop leading zero bytes).
 */
export function identifierBody(
  values: Record<string, unknown>,
  format: IdentifierFormat,
  before?: Partial<Identifier>,
): CreateIdentifierBody | UpdateIdentifierBody {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (values[f] !== undefined) out[f] = nullIfBlank(values[f]);
  const text = values[VALUE_TEXT];
  const unchanged = before && before.type === values.type && text === displayValue(before.type, before.value, format);
  if (unchanged) out.value = before.value;
  else if (text !== undefined) out.value = storedValue(values.type, text, format) ?? String(text).trim();
  // Dates only mean something while their restriction is on; off, they are cleared.
  if (values.period_restrict_active) {
    out.period_restrict_from = isoOrNull(values.period_restrict_from);
    out.period_restrict_to = isoOrNull(values.period_restrict_to);
  } else if (values.period_restrict_active === false) {
    out.period_restrict_from = null;
    out.period_restrict_to = null;
  }
  if (values.passes_restrict_active) {
    const n = Number(values.passes_restrict_max_count);
    out.passes_restrict_max_count = Number.isFinite(n) ? n : 0;
  } else if (values.passes_restrict_active === false) out.passes_restrict_max_count = 0;
  if (!before) {
    if (out.description === null) delete out.description;
    if (out.owner_id === null) delete out.owner_id;
  }
  return out as CreateIdentifierBody | UpdateIdentifierBody;
}

/** A new identifier's form: a card (spec entities §3), active, no restrictions. */
export const newIdentifierRecord = () => ({
  type: 'card',
  is_active: true,
  period_restrict_active: false,
  passes_restrict_active: false,
  passes_restrict_max_count: 0,
  access_rules: [],
  [VALUE_TEXT]: '',
});
