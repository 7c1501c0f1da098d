import { maxLength, required, SIP_NUMBER_RELATIONS, type SipNumber } from '@atrium/contract';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import { Box, Button, Typography } from '@mui/material';
import { type ReactNode, useEffect, useState } from 'react';
import {
  AutocompleteInput,
  BooleanInput,
  PasswordInput,
  RadioButtonGroupInput,
  ReferenceInput,
  SimpleForm,
  TextInput,
  useDataProvider,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { useFormContext, useWatch } from 'react-hook-form';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { FormSection } from '../../app/kit/FormSection';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { formToolbar } from './FormToolbar';
import { ForwardRulesInputs } from './ForwardRulesInputs';
import { byName, deviceText, SIP_NUMBERS_API, userText } from './routes';
import { OWNER_TYPES, toFormValues, validateForwardMode, validateOwner, validateSipNumber, validateSipPassword } from './transform';
import { useFormRecord } from './useFormRecord';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

const numberValidate = [required, validateSipNumber];
const nameValidate = maxLength(255);
const createPasswordValidate = [required, validateSipPassword];
const validateUser = validateOwner('user');
const validateDevice = validateOwner('device');
const ownerChoices = OWNER_TYPES.map((id) => ({ id, name: `virtual_numbers.owner_types.${id}` }));
const modeChoices = ['disabled', 'manual', 'picked'].map((id) => ({ id, name: `virtual_numbers.forward_modes.${id}` }));

/**
 * "Generate" (GET /sip-numbers/generate): a free number and a strong password on a new number;
 * on an existing one only a new password (its number stays).
 */
function GenerateButton({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const { setValue } = useFormContext();
  const [busy, setBusy] = useState(false);
  const generate = async () => {
    setBusy(true);
    try {
      const { data } = await dp.request<{ data: { number: string; password: string } }>(`/${SIP_NUMBERS_API}/generate`);
      const options = { shouldDirty: true, shouldValidate: true };
      if (mode === 'create') setValue('number', data.number, options);
      setValue('password', data.password, options);
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button size="small" startIcon={<AutorenewIcon />} onClick={generate} disabled={busy} sx={{ justifySelf: 'start', mb: 1 }}>
      {translate(mode === 'create' ? 'virtual_numbers.generate' : 'virtual_numbers.generate_password')}
    </Button>
  );
}

/** The owner picker of the owner type chosen: a user (and whether it is their master number), a device, or the group. */
function OwnerInputs({ readOnly }: { readOnly: boolean }) {
  const translate = useTranslate();
  const type = useWatch({ name: 'owner_type' });
  if (type === 'user')
    return (
      <Grid>
        <ReferenceInput source="user_id" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
          <AutocompleteInput
            label="resources.virtual-numbers.fields.user_id"
            optionText={userText}
            filterToQuery={byName}
            validate={validateUser}
            readOnly={readOnly}
          />
        </ReferenceInput>
        <BooleanInput
          source="is_master"
          label="resources.virtual-numbers.fields.is_master"
          helperText="virtual_numbers.master_hint"
          readOnly={readOnly}
        />
      </Grid>
    );
  if (type === 'device')
    return (
      <Grid>
        <ReferenceInput source="device_id" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
          <AutocompleteInput
            label="resources.virtual-numbers.fields.device_id"
            optionText={deviceText}
            filterToQuery={byName}
            validate={validateDevice}
            readOnly={readOnly}
          />
        </ReferenceInput>
      </Grid>
    );
  return (
    <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
      {translate(type === 'group' ? 'virtual_numbers.group_owner_hint' : 'virtual_numbers.no_owner_hint')}
    </Typography>
  );
}

/** Forwarding (spec comms §4): none, the number's own rules, or a forward rule group. */
function ForwardInputs({ readOnly }: { readOnly: boolean }) {
  const mode = useWatch({ name: 'forward_mode' });
  const rules = useWatch({ name: 'forward_rules' });
  const { trigger, getFieldState } = useFormContext();
  // "needs at least one number" is said under the mode: it goes once a rule has one.
  useEffect(() => {
    if (rules && getFieldState('forward_mode').invalid) void trigger('forward_mode');
  }, [rules, trigger, getFieldState]);
  if (mode === 'manual') return <ForwardRulesInputs readOnly={readOnly} />;
  if (mode === 'picked')
    return (
      <Grid>
        <ReferenceInput source="forward_group_id" reference="forward-rules" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
          <AutocompleteInput
            label="resources.virtual-numbers.fields.forward_group_id"
            optionText="name"
            filterToQuery={byName}
            validate={required}
            readOnly={readOnly}
          />
        </ReferenceInput>
      </Grid>
    );
  return null;
}

export function VirtualNumberForm({ mode }: { mode: 'create' | 'edit' }) {
  const record = useRecordContext<SipNumber>();
  const { can } = useSessionData();
  const translate = useTranslate();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  const deletable = mode === 'edit' && record?.can_delete !== false && can('can_delete_virtual_numbers');
  const formRecord = useFormRecord(record, toFormValues, SIP_NUMBER_RELATIONS);
  const toolbar = formToolbar({
    readOnly,
    deletable,
    confirmTitle: translate('virtual_numbers.delete_title'),
    confirmContent: translate('virtual_numbers.delete_confirm', { number: record?.number ?? '' }),
  });
  return (
    <SimpleForm record={formRecord} toolbar={toolbar} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="virtual_numbers.sections.general" />
      <Grid>
        <TextInput source="number" validate={numberValidate} readOnly={readOnly} autoComplete="off" />
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <PasswordInput
          source="password"
          validate={mode === 'create' ? createPasswordValidate : validateSipPassword}
          readOnly={readOnly}
          autoComplete="new-password"
          helperText={mode === 'create' ? 'virtual_numbers.password_hint' : 'virtual_numbers.password_kept_hint'}
          size="medium"
        />
        <GroupInput source="domain_id" label="resources.virtual-numbers.fields.domain_id" validate={required} readOnly={readOnly} />
      </Grid>
      {readOnly ? null : <GenerateButton mode={mode} />}
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
        <BooleanInput source="is_active" readOnly={readOnly || !can('can_activate_virtual_numbers')} />
        <BooleanInput
          source="is_reserved"
          helperText="virtual_numbers.reserved_hint"
          readOnly={readOnly || !can('can_mark_system_virtual_numbers')}
        />
      </Box>

      <FormSection title="virtual_numbers.sections.owner" />
      <RadioButtonGroupInput source="owner_type" label={false} choices={ownerChoices} row readOnly={readOnly} />
      <OwnerInputs readOnly={readOnly} />

      <FormSection title="virtual_numbers.sections.forwarding" hint="virtual_numbers.forwarding_hint" />
      <RadioButtonGroupInput
        source="forward_mode"
        label={false}
        choices={modeChoices}
        validate={validateForwardMode}
        row
        readOnly={readOnly}
      />
      <ForwardInputs readOnly={readOnly} />
    </SimpleForm>
  );
}
