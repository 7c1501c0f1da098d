import {
  alphanumericDashUnderscore,
  DEVICE_MODELS,
  DEVICE_TYPES,
  type Device,
  type DeviceModelCapabilities,
  deviceModel,
  maxLength,
  range,
  required,
} from '@atrium/contract';
import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import {
  ArrayInput,
  BooleanInput,
  FormDataConsumer,
  NumberInput,
  PasswordInput,
  SelectInput,
  SimpleFormIterator,
  TabbedForm,
  TextInput,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { DeviceIntegrationInput } from '../integrations/DeviceIntegrationInput';
import { typeChoices } from './shared';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

const s = (key: string) => `devices.settings.${key}`;
const choices = (ids: readonly string[], prefix?: string) => ids.map((id) => ({ id, name: prefix ? `${prefix}.${id}` : id }));
// http is part of the device model, but the server does not serve it yet and refuses it: shown, not offered.
const protocolChoices = choices(['mqtt', 'http'], 'devices.protocols').map((c) => ({ ...c, disabled: c.id === 'http' }));
const NO_CAPS: DeviceModelCapabilities = { locks: 0, face_recognition: false, lift_relays: 0, sip: false, display: false };

/** The models of a type, for the model picker. */
export const modelChoices = (type: unknown) => DEVICE_MODELS.filter((m) => m.type === type).map((m) => ({ id: m.model, name: m.model }));

/** What the chosen model can do; the form shows only the settings blocks it has. */
const capsOf = (values: Record<string, unknown>): DeviceModelCapabilities =>
  deviceModel(String(values.type ?? ''), String(values.model ?? ''))?.capabilities ?? NO_CAPS;

function ModelCaps() {
  const translate = useTranslate();
  return (
    <FormDataConsumer>
      {({ formData }) => {
        const caps = capsOf(formData);
        return (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {translate('devices.model_caps', { locks: caps.locks, lift_relays: caps.lift_relays })}
          </Typography>
        );
      }}
    </FormDataConsumer>
  );
}

/** Shows its tab's content only when the chosen model has the capability. */
function WhenModel({ has, children }: { has: (caps: DeviceModelCapabilities, type: string) => boolean; children: ReactNode }) {
  return <FormDataConsumer>{({ formData }) => (has(capsOf(formData), String(formData.type ?? '')) ? children : null)}</FormDataConsumer>;
}

export function DeviceForm({ mode, toolbar }: { mode: 'create' | 'edit'; toolbar?: ReactNode }) {
  const translate = useTranslate();
  const record = useRecordContext<Device>();
  const readOnly = mode === 'edit' && record?.can_edit === false;
  return (
    <TabbedForm toolbar={readOnly ? false : (toolbar as never)} warnWhenUnsavedChanges>
      <TabbedForm.Tab label="devices.sections.general">
        {readOnly ? <ReadOnlyNotice /> : null}
        <Grid>
          <TextInput source="name" validate={[required, maxLength(31)]} readOnly={readOnly} />
          <SelectInput source="type" choices={typeChoices} validate={required} readOnly={readOnly} defaultValue={DEVICE_TYPES[0]} />
          <FormDataConsumer>
            {({ formData }) => <SelectInput source="model" choices={modelChoices(formData.type)} validate={required} readOnly={readOnly} />}
          </FormDataConsumer>
          <TextInput source="serial_number" validate={[required, maxLength(64), alphanumericDashUnderscore]} readOnly={readOnly} />
          <GroupInput source="domain_id" label="resources.devices.fields.domain_id" validate={required} readOnly={readOnly} />
          <SelectInput
            source="protocol"
            choices={protocolChoices}
            readOnly={readOnly || record?.protocol === 'none'}
            helperText="devices.protocol_http_unsupported"
          />
          <TextInput source="ip_address" readOnly={readOnly} />
          <NumberInput source="port" validate={range(1, 65535)} readOnly={readOnly} />
          <TextInput source="device_login" validate={maxLength(64)} readOnly={readOnly} autoComplete="off" />
          <PasswordInput
            source="device_password"
            validate={maxLength(128)}
            readOnly={readOnly}
            autoComplete="new-password"
            helperText={record?.device_password_set ? 'devices.password_kept' : false}
          />
          <NumberInput source="location_latitude" validate={range(-90, 90)} readOnly={readOnly} />
          <NumberInput source="location_longitude" validate={range(-180, 180)} readOnly={readOnly} />
        </Grid>
        <TextInput source="description" multiline minRows={2} validate={maxLength(1000)} readOnly={readOnly} fullWidth />
        <ModelCaps />
      </TabbedForm.Tab>
      <TabbedForm.Tab label="devices.sections.sip">
        <WhenModel has={(c) => c.sip}>
          <Grid>
            <BooleanInput source="device_settings.sip.enabled" label={s('enabled')} readOnly={readOnly} />
            <BooleanInput source="device_settings.sip.manual" label={s('manual')} readOnly={readOnly} />
            <TextInput source="device_settings.sip.proxy_address" label={s('proxy_address')} readOnly={readOnly} />
            <TextInput source="device_settings.sip.realm_address" label={s('realm_address')} readOnly={readOnly} />
            <TextInput source="device_settings.sip.login" label={s('login')} readOnly={readOnly} autoComplete="off" />
            <PasswordInput source="device_settings.sip.password" label={s('password')} readOnly={readOnly} autoComplete="new-password" />
            <TextInput source="device_settings.sip.stun_address" label={s('stun_address')} readOnly={readOnly} />
            <NumberInput source="device_settings.sip.stun_port" label={s('stun_port')} validate={range(1, 65535)} readOnly={readOnly} />
            <NumberInput
              source="device_settings.sip.talk_timeout"
              label={s('talk_timeout')}
              validate={range(1, 3600)}
              readOnly={readOnly}
            />
            <SelectInput
              source="device_settings.sip.transport"
              label={s('transport')}
              choices={choices(['UDP', 'TCP', 'TLS'])}
              readOnly={readOnly}
            />
            <SelectInput
              source="device_settings.sip.rtp_profile"
              label={s('rtp_profile')}
              choices={choices(['AVP', 'SAVP'])}
              readOnly={readOnly}
            />
            <BooleanInput source="device_settings.sip.use_address" label={s('use_address')} readOnly={readOnly} />
          </Grid>
        </WhenModel>
      </TabbedForm.Tab>
      <TabbedForm.Tab label="devices.sections.address">
        <Grid>
          <SelectInput
            source="device_settings.address.mode"
            label={s('mode')}
            choices={choices(['building', 'apartment'], 'devices.settings.modes')}
            readOnly={readOnly}
          />
          <TextInput source="device_settings.address.building" label={s('building')} validate={maxLength(31)} readOnly={readOnly} />
          <TextInput source="device_settings.address.unit" label={s('unit')} validate={maxLength(31)} readOnly={readOnly} />
          <TextInput source="device_settings.address.floor" label={s('floor')} validate={maxLength(31)} readOnly={readOnly} />
          <TextInput source="device_settings.address.apartment" label={s('apartment')} validate={maxLength(31)} readOnly={readOnly} />
          <BooleanInput source="device_settings.address.reregister" label={s('reregister')} readOnly={readOnly} />
          <NumberInput
            source="device_settings.address.reregister_interval"
            label={s('reregister_interval')}
            validate={range(1, 86400)}
            readOnly={readOnly}
          />
        </Grid>
      </TabbedForm.Tab>
      <TabbedForm.Tab label="devices.sections.network">
        <Grid>
          <BooleanInput source="device_settings.network.is_dhcp" label={s('is_dhcp')} readOnly={readOnly} />
          <Box />
          <TextInput source="device_settings.network.ip" label={s('ip')} readOnly={readOnly} />
          <TextInput source="device_settings.network.subnet" label={s('subnet')} readOnly={readOnly} />
          <TextInput source="device_settings.network.gateway" label={s('gateway')} readOnly={readOnly} />
          <TextInput source="device_settings.network.dns" label={s('dns')} readOnly={readOnly} />
        </Grid>
      </TabbedForm.Tab>
      <TabbedForm.Tab label="devices.sections.additional">
        <WhenModel has={(c) => c.display}>
          <Grid>
            {[0, 1, 2, 3].map((i) => (
              <TextInput
                key={i}
                source={`device_settings.additional.button_numbers.${i}`}
                label={translate(s('button_number'), { n: i + 1 })}
                validate={maxLength(31)}
                readOnly={readOnly}
              />
            ))}
          </Grid>
        </WhenModel>
        <BooleanInput
          source="device_settings.additional.alpr_camera_interaction"
          label={s('alpr_camera_interaction')}
          readOnly={readOnly}
        />
        <BooleanInput source="device_settings.additional.remote_lock_opening" label={s('remote_lock_opening')} readOnly={readOnly} />
        <BooleanInput source="get_logs" readOnly={readOnly} />
        <Grid>
          <NumberInput
            source="management.heartbeat"
            label="resources.devices.fields.heartbeat"
            validate={range(5, 3600)}
            readOnly={readOnly}
          />
          <BooleanInput source="management.realtime_logging" label="resources.devices.fields.realtime_logging" readOnly={readOnly} />
        </Grid>
      </TabbedForm.Tab>
      <TabbedForm.Tab label="devices.sections.face_recognition">
        <WhenModel has={(c) => c.face_recognition}>
          <Grid>
            <BooleanInput source="device_settings.face_recognition.enabled" label={s('enabled')} readOnly={readOnly} />
            <BooleanInput source="device_settings.face_recognition.autostart" label={s('autostart')} readOnly={readOnly} />
            <SelectInput
              source="device_settings.face_recognition.mode"
              label={s('fr_mode')}
              choices={choices(['2D', '3D'])}
              readOnly={readOnly}
            />
            <SelectInput
              source="device_settings.face_recognition.similarity"
              label={s('similarity')}
              choices={choices(['low', 'medium', 'high'], 'devices.settings.similarities')}
              readOnly={readOnly}
            />
          </Grid>
        </WhenModel>
      </TabbedForm.Tab>
      <TabbedForm.Tab label="devices.sections.lift_controller">
        <WhenModel has={(c, type) => type === 'liftcontroller' || c.lift_relays > 0}>
          <Grid>
            <SelectInput
              source="device_settings.lift_controller.device_mode"
              label={s('device_mode')}
              choices={choices(['call-up', 'call-down', 'access'], 'devices.settings.device_modes')}
              readOnly={readOnly}
            />
            <SelectInput
              source="device_settings.lift_controller.relay_mode"
              label={s('relay_mode')}
              choices={choices(['COM-NC', 'COM-NO'])}
              readOnly={readOnly}
            />
            <BooleanInput source="device_settings.lift_controller.invert_all_relays" label={s('invert_all_relays')} readOnly={readOnly} />
            <NumberInput
              source="device_settings.lift_controller.relay_open_time"
              label={s('relay_open_time')}
              validate={range(1, 600)}
              readOnly={readOnly}
            />
            <NumberInput
              source="device_settings.lift_controller.lift_release_time.card"
              label={s('release_card')}
              validate={range(0, 600)}
              readOnly={readOnly}
            />
            <NumberInput
              source="device_settings.lift_controller.lift_release_time.api"
              label={s('release_api')}
              validate={range(0, 600)}
              readOnly={readOnly}
            />
          </Grid>
          <ArrayInput source="device_settings.lift_controller.floor_map" label={s('floor_map')}>
            <SimpleFormIterator inline disableReordering disableAdd={readOnly} disableRemove={readOnly} disableClear={readOnly}>
              <NumberInput source="relay" label={s('relay')} validate={[required, range(1, 64)]} readOnly={readOnly} />
              <TextInput source="floor" label={s('floor_number')} validate={[required, maxLength(31)]} readOnly={readOnly} />
            </SimpleFormIterator>
          </ArrayInput>
        </WhenModel>
      </TabbedForm.Tab>
      {/* an Axxon One camera of an integration available to the device's group (issue 14) */}
      <TabbedForm.Tab label="devices.sections.integration_axxon">
        <DeviceIntegrationInput readOnly={readOnly} />
      </TabbedForm.Tab>
    </TabbedForm>
  );
}
