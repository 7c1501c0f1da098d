import { HEX_IDENTIFIER_TYPES, type Identifier, type IdentifierType, maxLength, range, required } from '@atrium/contract';
import { Alert, Box, Typography } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import {
  AutocompleteArrayInput,
  AutocompleteInput,
  BooleanInput,
  DateTimeInput,
  FormDataConsumer,
  NumberInput,
  ReferenceArrayInput,
  ReferenceInput,
  SelectInput,
  SimpleForm,
  TextInput,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { type IdentifierFormat, isIdentifierType, storedValue, useIdentifierFormat } from '../../app/identifier-value';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { typeChoices, useDateTimeText } from './shared';
import { isoOrNull, newIdentifierRecord, toFormValues, VALUE_TEXT } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

const Section = ({ title }: { title: string }) => {
  const translate = useTranslate();
  return (
    <Typography variant="subtitle1" component="h2" sx={{ mt: 2, mb: 1 }}>
      {translate(title)}
    </Typography>
  );
};

// Server-side search: the name contains what was typed.
const byName = (q: string) => (q ? { 'name@has': q } : {});
const userText = (u: { name?: string; login?: string } | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');

/** The number must be one the type can hold, read in the viewer's format. */
const validValue =
  (format: IdentifierFormat) =>
  (value: unknown, values: Record<string, unknown> = {}): string | undefined =>
    typeof value === 'string' && value.trim() !== '' && storedValue(values.type, value, format) === null
      ? 'identifiers.invalid_value'
      : undefined;

/** The end of the validity period comes after its start. */
const validPeriodEnd = (value: unknown, values: Record<string, unknown> = {}): string | undefined => {
  const from = isoOrNull(values.period_restrict_from);
  const to = isoOrNull(value);
  return from && to && Date.parse(from) >= Date.parse(to) ? 'validation.invalid_value' : undefined;
};

const helpKey = (type: unknown, format: IdentifierFormat): string => {
  const t: IdentifierType = isIdentifierType(type) ? type : 'card';
  if (HEX_IDENTIFIER_TYPES.includes(t)) return `identifiers.value_help.${format}`;
  if (t === 'access_code' || t === 'license_plate') return `identifiers.value_help.${t}`;
  return 'identifiers.value_help.other';
};

export function IdentifierForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const format = useIdentifierFormat();
  const dateText = useDateTimeText();
  const record = useRecordContext<Identifier>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  // The form edits the number as the viewer reads it (value_text); `value` stays as stored.
  const formRecord = useMemo(
    () => (mode === 'create' ? { ...newIdentifierRecord(), ...record } : record ? toFormValues(record, format) : undefined),
    [mode, record, format],
  );
  const validateValue = useMemo(() => [required, maxLength(128), validValue(format)], [format]);
  return (
    <SimpleForm record={formRecord} toolbar={readOnly ? false : undefined} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      {record?.is_revoked ? (
        <Alert severity="error" variant="outlined" sx={{ mb: 2, width: '100%' }}>
          {translate('identifiers.revoked_notice', { date: dateText(record.revoked_at) })}
        </Alert>
      ) : null}
      <Section title="identifiers.sections.general" />
      <Grid>
        <TextInput source="name" validate={[required, maxLength(255)]} readOnly={readOnly} />
        <SelectInput source="type" choices={typeChoices} validate={required} readOnly={readOnly} />
        <FormDataConsumer>
          {({ formData }) => (
            <TextInput
              source={VALUE_TEXT}
              label="resources.identifiers.fields.value"
              validate={validateValue}
              readOnly={readOnly}
              autoComplete="off"
              helperText={helpKey(formData.type, format)}
            />
          )}
        </FormDataConsumer>
        <ReferenceInput source="owner_id" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
          <AutocompleteInput
            label="resources.identifiers.fields.owner_id"
            optionText={userText}
            filterToQuery={byName}
            readOnly={readOnly}
          />
        </ReferenceInput>
        <BooleanInput source="is_active" readOnly={readOnly} />
      </Grid>
      <TextInput source="description" multiline minRows={2} validate={maxLength(1000)} readOnly={readOnly} fullWidth />

      <Section title="identifiers.sections.restrictions" />
      <BooleanInput source="period_restrict_active" readOnly={readOnly} />
      <FormDataConsumer>
        {({ formData }) =>
          formData.period_restrict_active ? (
            <Grid>
              <DateTimeInput source="period_restrict_from" readOnly={readOnly} />
              <DateTimeInput source="period_restrict_to" validate={validPeriodEnd} readOnly={readOnly} />
            </Grid>
          ) : null
        }
      </FormDataConsumer>
      <BooleanInput source="passes_restrict_active" readOnly={readOnly} />
      <FormDataConsumer>
        {({ formData }) =>
          formData.passes_restrict_active ? (
            <Grid>
              <NumberInput
                source="passes_restrict_max_count"
                validate={[required, range(0, 1_000_000)]}
                readOnly={readOnly}
                helperText={
                  mode === 'edit' && record?.passes_restrict_active
                    ? translate('identifiers.passes_used_now', { used: record.passes_restrict_passes_count })
                    : false
                }
              />
            </Grid>
          ) : null
        }
      </FormDataConsumer>

      <Section title="identifiers.sections.access" />
      <ReferenceArrayInput source="access_rules" reference="access-rules" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput label="resources.identifiers.fields.access_rules" filterToQuery={byName} readOnly={readOnly} fullWidth />
      </ReferenceArrayInput>
    </SimpleForm>
  );
}
