import { DEFAULT_ENTRY, maxLength, REPEAT_MODES, required, type TimeRule } from '@atrium/contract';
import { Alert, Box } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import {
  AddItemButton,
  ArrayInput,
  AutocompleteArrayInput,
  BooleanInput,
  DateInput,
  DeleteWithConfirmButton,
  FormDataConsumer,
  ReferenceArrayInput,
  SaveButton,
  SelectInput,
  SimpleForm,
  SimpleFormIterator,
  TextInput,
  Toolbar,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { TimeZoneInput } from '../../app/kit/TimeZoneInput';
import { hhmm, WORKING_DAYS } from './schedule';
import { DaysInput, EntryNote, TimeOfDayInput, usedByRulesWarning } from './shared';
import { toFormValues, validateExceptions, validateValidTo } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

const repeatChoices = REPEAT_MODES.map((id) => ({ id, name: `schedules.repeat_modes.${id}` }));
const exceptionChoices = [
  { id: 'closed', name: 'schedules.exception_closed' },
  { id: 'open', name: 'schedules.exception_open' },
];
const byName = (q: string) => (q ? { 'name@has': q } : {});
const nameValidate = [required, maxLength(255)];

/** Save, and a delete that says first which access rules use the schedule. */
function ScheduleToolbar() {
  const translate = useTranslate();
  const record = useRecordContext<TimeRule>();
  const warning = record ? usedByRulesWarning([record], translate) : null;
  return (
    <Toolbar sx={{ justifyContent: 'space-between' }}>
      <SaveButton />
      <DeleteWithConfirmButton
        mutationMode="pessimistic"
        confirmContent={
          <>
            {translate('schedules.delete_confirm')}
            {warning ? (
              <Alert severity="warning" variant="outlined" sx={{ mt: 2 }}>
                {warning}
              </Alert>
            ) : null}
          </>
        }
      />
    </Toolbar>
  );
}

export function TimeRuleForm({ mode }: { mode: 'create' | 'edit' }) {
  const record = useRecordContext<TimeRule>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  const formRecord = useMemo(() => (record ? toFormValues(record) : undefined), [record]);
  const iteratorLocks = { disableAdd: readOnly, disableRemove: readOnly, disableClear: true, disableReordering: true };
  return (
    <SimpleForm record={formRecord} toolbar={readOnly ? false : mode === 'edit' ? <ScheduleToolbar /> : undefined} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="schedules.sections.general" />
      <Grid>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <GroupInput source="domain_id" label="resources.schedules.fields.domain_id" validate={required} readOnly={readOnly} />
        <TimeZoneInput source="time_zone" validate={required} readOnly={readOnly} helperText="schedules.time_zone_hint" />
        <SelectInput source="repeat_mode" choices={repeatChoices} validate={required} readOnly={readOnly} />
        <DateInput source="valid_from" readOnly={readOnly} />
        <DateInput source="valid_to" validate={validateValidTo} readOnly={readOnly} />
      </Grid>
      <TextInput source="description" multiline minRows={2} validate={maxLength(1000)} readOnly={readOnly} fullWidth />

      <FormSection title="schedules.sections.hours" />
      <BooleanInput source="is_all_day" readOnly={readOnly} helperText="schedules.all_day_hint" />
      <FormDataConsumer>
        {({ formData }) =>
          formData.is_all_day ? null : (
            <ArrayInput source="entries" label={false} helperText="schedules.entries_hint" sx={{ mt: 1 }}>
              <SimpleFormIterator inline {...iteratorLocks} addButton={<AddItemButton label="schedules.add_entry" />}>
                <DaysInput source="days" defaultValue={WORKING_DAYS} readOnly={readOnly} />
                <TimeOfDayInput
                  source="from"
                  label="resources.schedules.fields.from"
                  defaultValue={hhmm(DEFAULT_ENTRY.from)}
                  validate={required}
                  readOnly={readOnly}
                />
                <TimeOfDayInput
                  source="to"
                  label="resources.schedules.fields.to"
                  defaultValue={hhmm(DEFAULT_ENTRY.to)}
                  validate={required}
                  readOnly={readOnly}
                />
                <FormDataConsumer>{({ scopedFormData }) => <EntryNote entry={scopedFormData} />}</FormDataConsumer>
              </SimpleFormIterator>
            </ArrayInput>
          )
        }
      </FormDataConsumer>

      <FormSection title="schedules.sections.exceptions" hint="schedules.exceptions_hint" />
      <ArrayInput source="exceptions" label={false} validate={validateExceptions}>
        <SimpleFormIterator inline {...iteratorLocks}>
          <DateInput source="date" label="resources.schedules.fields.date" validate={required} readOnly={readOnly} />
          <SelectInput
            source="open"
            label="resources.schedules.fields.open"
            choices={exceptionChoices}
            format={(v: unknown) => (v === true ? 'open' : 'closed')}
            parse={(v: unknown) => v === 'open'}
            defaultValue={false}
            readOnly={readOnly}
            sx={{ minWidth: 220 }}
          />
        </SimpleFormIterator>
      </ArrayInput>

      <FormSection title="schedules.sections.rules" />
      <ReferenceArrayInput source="access_rules" reference="access-rules" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput label="resources.schedules.fields.access_rules" filterToQuery={byName} readOnly={readOnly} fullWidth />
      </ReferenceArrayInput>
    </SimpleForm>
  );
}
