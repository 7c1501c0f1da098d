import { type AccessRule, type Device, type Identifier, maxLength, range, required, type User } from '@atrium/contract';
import { Alert, Box } from '@mui/material';
import type { ReactNode } from 'react';
import {
  AddItemButton,
  ArrayInput,
  AutocompleteArrayInput,
  AutocompleteInput,
  BooleanInput,
  FormDataConsumer,
  ReferenceArrayInput,
  ReferenceInput,
  SelectInput,
  SimpleForm,
  SimpleFormIterator,
  TextInput,
  useGetOne,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { lockChoices, locksOf, validateDevices } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

// Server-side search: the name contains what was typed.
const byName = (q: string) => (q ? { 'name@has': q } : {});
const deviceText = (d: Partial<Device> | undefined) => (d ? `${d.name ?? ''}${d.serial_number ? ` · ${d.serial_number}` : ''}` : '');
const identifierText = (i: Partial<Identifier> | undefined) => (i ? `${i.name ?? ''}${i.value ? ` (${i.value})` : ''}` : '');
const userText = (u: Partial<User> | undefined) => (u ? `${u.name ?? ''}${u.login ? ` (${u.login})` : ''}` : '');
const nameValidate = [required, maxLength(255)];
// Marked as required for react-admin too, so the lock picker offers no empty choice.
const lockRequired = Object.assign((value: unknown) => required(value), { isRequired: true });

/** The lock of a row's device: 1 up to the locks its model has. */
function LockNumberInput({ deviceId, readOnly }: { deviceId: unknown; readOnly: boolean }) {
  const id = typeof deviceId === 'number' || typeof deviceId === 'string' ? deviceId : undefined;
  const { data: device } = useGetOne<Device>('devices', { id: id as number }, { enabled: id !== undefined && id !== '' });
  const locks = locksOf(device);
  return (
    <SelectInput
      source="lock_number"
      label="resources.access-rules.fields.lock_number"
      choices={lockChoices(locks)}
      defaultValue={1}
      validate={[lockRequired, range(1, locks)]}
      readOnly={readOnly}
      sx={{ minWidth: 100 }}
    />
  );
}

export function AccessRuleForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<AccessRule>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  return (
    <SimpleForm toolbar={readOnly ? false : undefined} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="access_rules.sections.general" />
      <TextInput source="name" validate={nameValidate} readOnly={readOnly} sx={{ maxWidth: 480 }} fullWidth />
      <TextInput source="description" multiline minRows={2} validate={maxLength(1000)} readOnly={readOnly} fullWidth />
      <Grid>
        <BooleanInput source="prohibition" readOnly={readOnly} helperText="access_rules.prohibition_hint" />
        <BooleanInput source="is_shareable" readOnly={readOnly} helperText="access_rules.shareable_hint" />
        <BooleanInput source="available_for_guest" readOnly={readOnly} helperText="access_rules.guest_hint" />
      </Grid>
      <FormDataConsumer>
        {({ formData }) =>
          formData.prohibition ? (
            <Alert severity="error" variant="outlined" sx={{ mt: 1, width: '100%' }} data-testid="prohibition-notice">
              {translate('access_rules.prohibition_hint')}
            </Alert>
          ) : null
        }
      </FormDataConsumer>

      <FormSection title="access_rules.sections.devices" hint="access_rules.devices_hint" />
      <ArrayInput source="devices" label={false} validate={validateDevices} isRequired>
        <SimpleFormIterator
          inline
          disableReordering
          disableClear
          disableAdd={readOnly}
          disableRemove={readOnly}
          addButton={<AddItemButton label="access_rules.add_device" />}
        >
          <ReferenceInput source="id" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
            <AutocompleteInput
              label="resources.access-rules.fields.device"
              optionText={deviceText}
              filterToQuery={byName}
              validate={required}
              readOnly={readOnly}
              sx={{ minWidth: 320 }}
            />
          </ReferenceInput>
          <FormDataConsumer>
            {({ scopedFormData }) => <LockNumberInput deviceId={scopedFormData?.id} readOnly={readOnly} />}
          </FormDataConsumer>
        </SimpleFormIterator>
      </ArrayInput>

      <FormSection title="access_rules.sections.who" hint="access_rules.who_hint" />
      <ReferenceArrayInput source="identifiers" reference="identifiers" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.access-rules.fields.identifiers"
          optionText={identifierText}
          filterToQuery={byName}
          readOnly={readOnly}
          fullWidth
        />
      </ReferenceArrayInput>
      <ReferenceArrayInput source="users" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.access-rules.fields.users"
          optionText={userText}
          filterToQuery={byName}
          readOnly={readOnly}
          fullWidth
        />
      </ReferenceArrayInput>
      <GroupsInput source="domains" label="resources.access-rules.fields.domains" readOnly={readOnly} fullWidth />

      <FormSection title="access_rules.sections.when" hint="access_rules.when_hint" />
      <ReferenceArrayInput source="time_rules" reference="schedules" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput label="resources.access-rules.fields.time_rules" filterToQuery={byName} readOnly={readOnly} fullWidth />
      </ReferenceArrayInput>
    </SimpleForm>
  );
}
