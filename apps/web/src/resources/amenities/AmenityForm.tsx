import { type Amenity, maxLength, required, WEEK_DAYS, type WeekDay } from '@atrium/contract';
import { Alert, Box, Chip, FormControl, FormHelperText, FormLabel, Stack } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import {
  AddItemButton,
  ArrayInput,
  AutocompleteArrayInput,
  DeleteWithConfirmButton,
  NumberInput,
  ReferenceArrayInput,
  SaveButton,
  SimpleForm,
  SimpleFormIterator,
  TextInput,
  Toolbar,
  useInput,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { AmenityFiles } from './AmenityFiles';
import { type AmenityFormValues, amenityFormValues, validateAmenityForm, validateTime } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);
const byName = (q: string) => (q ? { 'name@has': q } : {});
const nameValidate = [required, maxLength(64)];
const atLeastOne = (v: unknown) => (Array.isArray(v) && v.length ? undefined : 'validation.required');

/** A window's days as toggle chips, Monday first. */
function DaysInput({ source, readOnly }: { source: string; readOnly: boolean }) {
  const translate = useTranslate();
  const { field, fieldState } = useInput({ source, defaultValue: ['mon', 'tue', 'wed', 'thu', 'fri'] });
  const days: WeekDay[] = Array.isArray(field.value) ? field.value : [];
  const toggle = (d: WeekDay) => {
    field.onChange(days.includes(d) ? days.filter((x) => x !== d) : WEEK_DAYS.filter((w) => w === d || days.includes(w)));
    field.onBlur();
  };
  const error = fieldState.error?.message;
  return (
    <FormControl component="fieldset" error={!!error} sx={{ minWidth: 0, mr: 1 }}>
      <FormLabel component="legend" sx={{ fontSize: 12, mb: 0.5 }}>
        {translate('resources.amenities.fields.days')}
      </FormLabel>
      <Stack direction="row" spacing={0.5} role="group" aria-label={translate('resources.amenities.fields.days')}>
        {WEEK_DAYS.map((d) => (
          <Chip
            key={d}
            label={translate(`amenities.days.${d}`)}
            color={days.includes(d) ? 'primary' : 'default'}
            variant={days.includes(d) ? 'filled' : 'outlined'}
            onClick={readOnly ? undefined : () => toggle(d)}
            aria-pressed={days.includes(d)}
            size="small"
          />
        ))}
      </Stack>
      <FormHelperText>{error ? translate(error) : ' '}</FormHelperText>
    </FormControl>
  );
}

function AmenityToolbar({ deletable, name }: { deletable: boolean; name: string }) {
  const translate = useTranslate();
  return (
    <Toolbar sx={{ justifyContent: 'space-between' }}>
      <SaveButton />
      {deletable ? (
        <DeleteWithConfirmButton
          mutationMode="pessimistic"
          confirmTitle={translate('amenities.delete_title')}
          confirmContent={translate('amenities.delete_confirm', { name })}
        />
      ) : null}
    </Toolbar>
  );
}

/** The amenity form: name and address, groups and access rules, persons, the week's windows, files (edit). */
export function AmenityForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<Amenity>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  const formRecord = useMemo(() => amenityFormValues(mode === 'edit' ? record : undefined), [record, mode]);
  const live = record?.live_reservations ?? 0;
  const iteratorLocks = { disableAdd: readOnly, disableRemove: readOnly, disableClear: true, disableReordering: true };
  return (
    <SimpleForm
      record={formRecord}
      validate={(v) => validateAmenityForm(v as AmenityFormValues)}
      toolbar={readOnly ? false : <AmenityToolbar deletable={mode === 'edit' && record?.can_delete === true} name={record?.name ?? ''} />}
      warnWhenUnsavedChanges
    >
      {readOnly ? <ReadOnlyNotice /> : null}
      {mode === 'edit' && live > 0 ? (
        <Alert severity="info" variant="outlined" sx={{ mb: 2, width: '100%' }}>
          {translate('amenities.live_notice', { smart_count: live })}
        </Alert>
      ) : null}
      <FormSection title="amenities.sections.general" />
      <Grid>
        <TextInput source="name" label="resources.amenities.fields.name" validate={nameValidate} readOnly={readOnly} />
        <TextInput source="address" label="resources.amenities.fields.address" validate={maxLength(255)} readOnly={readOnly} />
      </Grid>
      <TextInput
        source="description"
        label="resources.amenities.fields.description"
        multiline
        minRows={2}
        validate={maxLength(2000)}
        readOnly={readOnly}
        fullWidth
      />

      <FormSection title="amenities.sections.access" hint="amenities.access_hint" />
      <GroupsInput source="domains" label="resources.amenities.fields.domains" validate={atLeastOne} readOnly={readOnly} fullWidth />
      <ReferenceArrayInput source="access_rules" reference="access-rules" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.amenities.fields.access_rules"
          filterToQuery={byName}
          validate={atLeastOne}
          readOnly={readOnly}
          fullWidth
        />
      </ReferenceArrayInput>

      <FormSection title="amenities.sections.persons" hint="amenities.persons_hint" />
      <Grid>
        <NumberInput
          source="number_of_persons.min"
          label="resources.amenities.fields.number_of_persons.min"
          min={1}
          validate={required}
          readOnly={readOnly}
        />
        <NumberInput
          source="number_of_persons.max"
          label="resources.amenities.fields.number_of_persons.max"
          min={1}
          validate={required}
          readOnly={readOnly}
        />
      </Grid>

      <FormSection title="amenities.sections.slots" hint="amenities.slots_hint" />
      <NumberInput
        source="time_slots.duration_minutes"
        label="resources.amenities.fields.time_slots.duration_minutes"
        min={1}
        validate={required}
        readOnly={readOnly || live > 0}
      />
      <ArrayInput source="time_slots.items" label={false}>
        <SimpleFormIterator
          inline
          {...iteratorLocks}
          disableAdd={readOnly || live > 0}
          disableRemove={readOnly || live > 0}
          addButton={<AddItemButton label="amenities.add_slot" />}
        >
          <DaysInput source="days" readOnly={readOnly || live > 0} />
          <TextInput
            source="from"
            label="resources.amenities.fields.from"
            defaultValue="09:00"
            validate={validateTime}
            readOnly={readOnly || live > 0}
            helperText="amenities.time_hint"
            sx={{ width: 130 }}
          />
          <TextInput
            source="to"
            label="resources.amenities.fields.to"
            defaultValue="18:00"
            validate={validateTime}
            readOnly={readOnly || live > 0}
            helperText="amenities.time_hint"
            sx={{ width: 130 }}
          />
        </SimpleFormIterator>
      </ArrayInput>

      {mode === 'edit' && record ? (
        <>
          <FormSection title="amenities.sections.files" />
          <AmenityFiles record={record} readOnly={readOnly} />
        </>
      ) : null}
    </SimpleForm>
  );
}
