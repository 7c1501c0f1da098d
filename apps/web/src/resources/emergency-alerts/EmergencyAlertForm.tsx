import { EMERGENCY_DEFAULTS, type EmergencyAlert, maxLength, required } from '@atrium/contract';
import { Box } from '@mui/material';
import {
  AutocompleteArrayInput,
  BooleanInput,
  NumberInput,
  ReferenceArrayInput,
  SelectInput,
  SimpleForm,
  TextInput,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { formToolbar } from '../virtual-numbers/FormToolbar';
import { deviceTypeChoices, validateRecipients } from './shared';

const nameValidate = [required, maxLength(128)];
const durationValidate = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= EMERGENCY_DEFAULTS.playback_duration_max
    ? undefined
    : { message: 'validation.range', args: { min: 1, max: EMERGENCY_DEFAULTS.playback_duration_max } };
};
const byName = (q: string) => (q ? { 'name@has': q } : {});
const deviceText = (d: { name?: string; serial_number?: string } | undefined) =>
  d ? `${d.name ?? ''}${d.serial_number ? ` · ${d.serial_number}` : ''}` : '';

export function EmergencyAlertForm({ mode }: { mode: 'create' | 'edit' }) {
  const translate = useTranslate();
  const record = useRecordContext<EmergencyAlert>();
  const { can } = useSessionData();
  const readOnly = mode === 'edit' && (record?.can_edit === false || !can('can_edit_emergency_alerts'));
  const deletable = mode === 'edit' && record?.can_delete !== false && can('can_delete_emergency_alerts');
  const toolbar = formToolbar({
    readOnly,
    deletable,
    confirmTitle: translate('emergency.delete_title'),
    confirmContent: translate('emergency.delete_confirm', { name: record?.name ?? '' }),
  });
  return (
    <SimpleForm toolbar={toolbar} validate={validateRecipients} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '2fr 1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <SelectInput source="device_type" choices={deviceTypeChoices} validate={required} readOnly={readOnly} />
        <NumberInput
          source="playback_duration"
          min={1}
          max={EMERGENCY_DEFAULTS.playback_duration_max}
          validate={durationValidate}
          readOnly={readOnly}
        />
      </Box>
      <BooleanInput source="open_locks" helperText="emergency.open_locks_hint" readOnly={readOnly} />
      <FormSection title="emergency.recipients" hint="emergency.recipients_hint" />
      <GroupsInput source="domains" label="resources.emergency-alerts.fields.domains" readOnly={readOnly} fullWidth />
      <ReferenceArrayInput source="devices" reference="devices" perPage={25} sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput
          label="resources.emergency-alerts.fields.devices"
          optionText={deviceText}
          filterToQuery={byName}
          readOnly={readOnly}
          fullWidth
        />
      </ReferenceArrayInput>
    </SimpleForm>
  );
}
