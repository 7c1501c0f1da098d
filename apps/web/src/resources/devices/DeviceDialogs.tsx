import { DEVICE_PROTOCOLS, type Device, type DeviceProtocol, maxLength, minLength } from '@atrium/contract';
import { Alert, Box, Typography } from '@mui/material';
import { useState } from 'react';
import { FormDataConsumer, PasswordInput, SelectInput, useDataProvider, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { FormDialog } from '../../app/kit/FormDialog';
import { useAlert } from '../../app/useAlert';

/** Initialise: sets the device's broker password (typed, or generated and shown once) and queues the init task. */
export function InitDialog({ device, open, onClose }: { device: Device; open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const [generated, setGenerated] = useState<string | null>(null);
  const close = () => {
    setGenerated(null);
    onClose();
  };
  return (
    <FormDialog
      open={open}
      title={translate('devices.init.title', { name: device.name })}
      approveLabel={translate(generated ? 'app.close' : 'devices.init.start')}
      onClose={close}
      onApprove={async (values: { password?: string }) => {
        if (generated) return close();
        const password = values.password?.trim() ? values.password : undefined;
        try {
          const { data } = await dp.request<{ data: { password: string | null } }>(`/devices/${device.id}/init/apply`, {
            method: 'POST',
            body: password ? { password } : {},
          });
          alert.success('devices.init.queued');
          if (data.password) {
            setGenerated(data.password);
            throw new Error('keep open');
          }
          close();
        } catch (error) {
          if (error instanceof Error && error.message === 'keep open') throw error;
          alert.error(error);
          throw error;
        }
      }}
    >
      {generated ? (
        <Alert severity="info" variant="outlined">
          <Typography variant="body2">{translate('devices.init.generated')}</Typography>
          <Box component="code" sx={{ display: 'block', mt: 1, fontSize: 16, userSelect: 'all' }} data-testid="generated-password">
            {generated}
          </Box>
        </Alert>
      ) : (
        <>
          <Typography variant="body2" sx={{ mb: 2 }}>
            {translate('devices.init.text')}
          </Typography>
          <PasswordInput
            source="password"
            label="devices.init.password"
            validate={[minLength(8), maxLength(128)]}
            autoComplete="new-password"
            fullWidth
          />
        </>
      )}
    </FormDialog>
  );
}

/** Changes how the server talks to the device; `none` stops init, restart and sync (the server refuses them). */
export function ProtocolDialog({ device, open, onClose }: { device: Device; open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  return (
    <FormDialog
      open={open}
      width={600}
      title={translate('devices.protocol_dialog.title', { name: device.name })}
      record={{ protocol: device.protocol }}
      approveLabel={translate('devices.protocol_dialog.save')}
      onClose={onClose}
      onApprove={async (values: { protocol: DeviceProtocol }) => {
        try {
          await dp.request(`/devices/${device.id}/protocol`, { method: 'POST', body: { protocol: values.protocol } });
          alert.success('devices.actions.protocol_changed');
          refresh();
          onClose();
        } catch (error) {
          alert.error(error);
          throw error;
        }
      }}
    >
      <SelectInput
        source="protocol"
        label="resources.devices.fields.protocol"
        choices={DEVICE_PROTOCOLS.map((id) => ({ id, name: `devices.protocols.${id}`, disabled: id === 'http' }))}
        helperText="devices.protocol_http_unsupported"
        fullWidth
      />
      <FormDataConsumer>
        {({ formData }) =>
          formData.protocol === 'none' ? (
            <Alert severity="warning" variant="outlined">
              {translate('devices.protocol_dialog.none_warning')}
            </Alert>
          ) : null
        }
      </FormDataConsumer>
    </FormDialog>
  );
}
