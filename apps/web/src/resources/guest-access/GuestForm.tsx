import { type AccessRule, maxLength, range, required } from '@atrium/contract';
import { Alert, AlertTitle, Box, LinearProgress, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useMemo } from 'react';
import {
  BooleanInput,
  CheckboxGroupInput,
  DateTimeInput,
  FormDataConsumer,
  NumberInput,
  SaveButton,
  SelectInput,
  SimpleForm,
  TextInput,
  Toolbar,
  useDataProvider,
  useTranslate,
} from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';
import { GUEST_TYPES, type GuestFormValues, validPeriodEnd } from './transform';

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

const typeChoices = GUEST_TYPES.map((id) => ({ id, name: `guest_access.types.${id}` }));
const requiredWhenPeriod = (value: unknown, values: Record<string, unknown> = {}) => (values.restrict_period ? required(value) : undefined);
const validateTo = [requiredWhenPeriod, validPeriodEnd];
const validatePasses = [required, range(1, 10_000)];

/** The rules the signed-in person may give a guest (GET /guest-access/access-rules). */
function useGuestRules() {
  const dp = useDataProvider<AtriumDataProvider>();
  return useQuery({
    queryKey: ['guest-access', 'access-rules'],
    queryFn: ({ signal }) =>
      dp.request<{ data: AccessRule[] }>('/guest-access/access-rules', { query: { size: 1000, sort: 'name' }, signal }).then((b) => b.data),
  });
}

/** Picks the rules to give, as checkboxes; rules of the pass that are no longer offered stay listed by number. */
function RulesInput({ current, readOnly }: { current: readonly number[]; readOnly?: boolean }) {
  const translate = useTranslate();
  const rules = useGuestRules();
  const choices = useMemo(() => {
    const offered = (rules.data ?? []).map((r) => ({ id: r.id, name: r.name }));
    const known = new Set(offered.map((r) => r.id));
    return [...offered, ...current.filter((id) => !known.has(id)).map((id) => ({ id, name: `#${id}` }))];
  }, [rules.data, current]);
  if (rules.isPending) return <LinearProgress aria-label={translate('app.loading')} sx={{ my: 2, width: '100%' }} />;
  if (rules.isError)
    return (
      <Alert severity="error" variant="outlined" sx={{ width: '100%' }}>
        <AlertTitle>{translate('guest_access.rules_failed')}</AlertTitle>
        {errorText(rules.error, translate)}
      </Alert>
    );
  if (choices.length === 0)
    return (
      <Alert severity="info" variant="outlined" sx={{ width: '100%' }}>
        {translate('guest_access.no_rules')}
      </Alert>
    );
  return <CheckboxGroupInput source="access_rules" choices={choices} row={false} validate={required} readOnly={readOnly} />;
}

export interface GuestFormProps {
  mode: 'create' | 'edit';
  record: GuestFormValues;
  onSubmit: (values: GuestFormValues) => Promise<Record<string, unknown> | undefined>;
  /** The group limits the server refused the last save with, already worded. */
  limits?: string | null;
  /** Passes used so far (edit). */
  passesUsed?: number;
  /** Above the fields (e.g. the revoked notice). */
  notice?: ReactNode;
}

/** The grant form of a guest: who, which doors, for how long and how many times. */
export function GuestForm({ mode, record, onSubmit, limits, passesUsed, notice }: GuestFormProps) {
  const translate = useTranslate();
  return (
    <SimpleForm
      record={record as never}
      onSubmit={onSubmit as never}
      warnWhenUnsavedChanges={mode === 'edit'}
      toolbar={
        // A new pass can be granted as it stands: the defaults are a valid pass once a rule is picked.
        <Toolbar>
          <SaveButton label={mode === 'create' ? 'guest_access.grant' : undefined} alwaysEnable={mode === 'create'} />
        </Toolbar>
      }
      sx={{ maxWidth: 900 }}
    >
      {notice}
      <Section title="guest_access.sections.guest" />
      <Grid>
        <TextInput source="name" validate={maxLength(255)} helperText="guest_access.name_help" autoComplete="off" />
        <SelectInput source="guest_type" choices={typeChoices} validate={required} readOnly={mode === 'edit'} />
      </Grid>
      <TextInput
        source="key_message"
        multiline
        minRows={2}
        fullWidth
        validate={maxLength(500)}
        helperText={mode === 'edit' ? 'guest_access.message_keep_help' : 'guest_access.message_help'}
      />

      <Section title="guest_access.sections.access" />
      <RulesInput current={record.access_rules ?? []} />

      <Section title="guest_access.sections.restrictions" />
      {limits ? (
        <Alert severity="error" variant="outlined" role="alert" sx={{ mb: 2, width: '100%' }}>
          <AlertTitle>{limits}</AlertTitle>
          {translate('guest_access.limits_hint')}
        </Alert>
      ) : null}
      <BooleanInput source="restrict_period" />
      <FormDataConsumer>
        {({ formData }) =>
          formData.restrict_period ? (
            <Grid>
              <DateTimeInput source="valid_from" validate={requiredWhenPeriod} />
              <DateTimeInput source="valid_to" validate={validateTo} />
            </Grid>
          ) : null
        }
      </FormDataConsumer>
      <BooleanInput source="restrict_pass_count" />
      <FormDataConsumer>
        {({ formData }) =>
          formData.restrict_pass_count ? (
            <Grid>
              <NumberInput
                source="pass_limit"
                min={1}
                step={1}
                validate={validatePasses}
                helperText={passesUsed !== undefined ? translate('guest_access.passes_used_now', { used: passesUsed }) : false}
              />
            </Grid>
          ) : null
        }
      </FormDataConsumer>
    </SimpleForm>
  );
}
