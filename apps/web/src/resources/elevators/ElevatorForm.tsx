import { type Device, type Elevator, maxLength, range, required } from '@atrium/contract';
import AddIcon from '@mui/icons-material/Add';
import { Box, Button } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import {
  ArrayInput,
  AutocompleteInput,
  BooleanInput,
  FormDataConsumer,
  NumberInput,
  ReferenceInput,
  SelectInput,
  SimpleForm,
  SimpleFormIterator,
  TextInput,
  useGetOne,
  useRecordContext,
  useSimpleFormIterator,
  useTranslate,
} from 'react-admin';
import { FormSection } from '../../app/kit/FormSection';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { FloorMapInput } from './FloorMapInput';
import { DEVICE_MODES, newControllerRow, RELAY_MODES, relaysOf, toFormValues, validateControllers } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

// Server-side search: the name contains what was typed.
const byName = (q: string) => (q ? { 'name@has': q } : {});
const deviceText = (d: Partial<Device> | undefined) =>
  d ? `${d.name ?? ''}${d.model ? ` · ${d.model}` : ''}${d.serial_number ? ` · ${d.serial_number}` : ''}` : '';
const LIFT_CONTROLLERS = { type: 'liftcontroller' };
const nameValidate = [required, maxLength(255)];
const secondsValidate = [required, range(1, 600)];
const releaseValidate = [required, range(0, 600)];
const deviceModeChoices = DEVICE_MODES.map((id) => ({ id, name: `elevators.device_modes.${id}` }));
const relayModeChoices = RELAY_MODES.map((id) => ({ id, name: id }));

function AddControllerButton() {
  const translate = useTranslate();
  const { add } = useSimpleFormIterator();
  return (
    <Button size="small" startIcon={<AddIcon />} onClick={() => add(newControllerRow())}>
      {translate('elevators.add_controller')}
    </Button>
  );
}

/** One lift controller: its device, settings and floor map (the relay ports offered follow its model). */
function ControllerInputs({ deviceId, readOnly }: { deviceId: unknown; readOnly: boolean }) {
  const id = typeof deviceId === 'number' || (typeof deviceId === 'string' && deviceId !== '') ? deviceId : undefined;
  const { data: device } = useGetOne<Device>('devices', { id: id as number }, { enabled: id !== undefined });
  const relays = relaysOf(device);
  return (
    <Box sx={{ width: '100%' }}>
      <Grid>
        <ReferenceInput
          source="device_id"
          reference="devices"
          filter={LIFT_CONTROLLERS}
          perPage={25}
          sort={{ field: 'name', order: 'ASC' }}
        >
          <AutocompleteInput
            label="resources.elevators.fields.device_id"
            optionText={deviceText}
            filterToQuery={byName}
            validate={required}
            readOnly={readOnly}
            helperText={device ? undefined : 'elevators.controller_hint'}
          />
        </ReferenceInput>
        <BooleanInput source="enabled" label="resources.elevators.fields.enabled" readOnly={readOnly} sx={{ alignSelf: 'center' }} />
      </Grid>
      <Grid>
        <SelectInput
          source="settings.device_mode"
          label="resources.elevators.fields.device_mode"
          choices={deviceModeChoices}
          validate={required}
          readOnly={readOnly}
        />
        <SelectInput
          source="settings.relay_mode"
          label="resources.elevators.fields.relay_mode"
          choices={relayModeChoices}
          validate={required}
          readOnly={readOnly}
        />
        <BooleanInput source="settings.invert_all_relays" label="resources.elevators.fields.invert_all_relays" readOnly={readOnly} />
        <NumberInput
          source="settings.relay_open_time"
          label="resources.elevators.fields.relay_open_time"
          validate={secondsValidate}
          step={1}
          readOnly={readOnly}
        />
        <NumberInput
          source="settings.lift_release_time.card"
          label="resources.elevators.fields.release_card"
          validate={releaseValidate}
          step={1}
          readOnly={readOnly}
        />
        <NumberInput
          source="settings.lift_release_time.api"
          label="resources.elevators.fields.release_api"
          validate={releaseValidate}
          step={1}
          readOnly={readOnly}
        />
      </Grid>
      <FloorMapInput relays={relays} readOnly={readOnly} />
    </Box>
  );
}

export function ElevatorForm({ mode, toolbar }: { mode: 'create' | 'edit'; toolbar?: ReactNode }) {
  const record = useRecordContext<Elevator>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  const formRecord = useMemo(() => (record ? toFormValues(record) : undefined), [record]);
  return (
    <SimpleForm record={formRecord} toolbar={readOnly ? false : toolbar} warnWhenUnsavedChanges>
      {readOnly ? <ReadOnlyNotice /> : null}
      <FormSection title="elevators.sections.general" />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>
        <TextInput source="name" validate={nameValidate} readOnly={readOnly} />
        <GroupInput source="domain_id" label="resources.elevators.fields.domain_id" validate={required} readOnly={readOnly} />
      </Box>

      <FormSection title="elevators.sections.controllers" hint="elevators.controllers_hint" />
      <ArrayInput source="controllers" label={false} validate={validateControllers} isRequired>
        <SimpleFormIterator
          disableReordering
          disableClear
          disableAdd={readOnly}
          disableRemove={readOnly}
          getItemLabel={(i) => `#${i + 1}`}
          addButton={<AddControllerButton />}
          fullWidth
          sx={{ '& .RaSimpleFormIterator-line': { borderBottom: 2, borderColor: 'divider', pb: 2, mb: 2 } }}
        >
          <FormDataConsumer>
            {({ scopedFormData }) => <ControllerInputs deviceId={scopedFormData?.device_id} readOnly={readOnly} />}
          </FormDataConsumer>
        </SimpleFormIterator>
      </ArrayInput>
    </SimpleForm>
  );
}
