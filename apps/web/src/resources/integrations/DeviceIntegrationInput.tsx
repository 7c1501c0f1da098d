import type { AvailableIntegration, AxxonCamera } from '@atrium/contract';
import { Alert, Box, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { BooleanInput, SelectInput, useDataProvider, useTranslate } from 'react-admin';
import { useFormContext, useWatch } from 'react-hook-form';
import type { AtriumDataProvider } from '../../app/dataProvider';

/** An emptied select gives ''; the API wants null. */
const emptyToNull = (v: unknown) => (v === '' ? null : v);
const L = (k: string) => `integrations.device.${k}`;
const SRC = 'device_settings.integration_axxon';

/** The camera choices: the server's cameras, plus the stored one when the server no longer lists it (or is down). */
export function cameraChoices(cameras: readonly AxxonCamera[] | undefined, stored: { access_point: string | null; name: string | null }) {
  const list = (cameras ?? []).map((c) => ({ id: c.access_point, name: `${c.display_name} (${c.access_point})` }));
  if (stored.access_point && !list.some((c) => c.id === stored.access_point)) {
    list.unshift({ id: stored.access_point, name: stored.name ? `${stored.name} (${stored.access_point})` : stored.access_point });
  }
  return list;
}

/**
 * The device form's `integration_axxon` block (issue 14): an integration available to the device's
 * group (GET /integrations/available), then one of its cameras (display name and access point).
 * The server refuses one that is not available ("integration not allowed for a user or device").
 */
export function DeviceIntegrationInput({ readOnly }: { readOnly?: boolean }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const { setValue } = useFormContext();
  const domainId = useWatch({ name: 'domain_id' }) as number | null | undefined;
  const integrationId = useWatch({ name: `${SRC}.integration_id` }) as number | null | undefined;
  const accessPoint = useWatch({ name: `${SRC}.camera_access_point` }) as string | null | undefined;
  const cameraName = useWatch({ name: `${SRC}.camera_display_name` }) as string | null | undefined;
  const enabled = useWatch({ name: `${SRC}.enabled` }) === true;
  const available = useQuery({
    queryKey: ['integrations', 'available', domainId ?? null],
    queryFn: () =>
      dp
        .request<{ data: AvailableIntegration[] }>(`/integrations/available${domainId ? `?domain_id=${domainId}` : ''}`)
        .then((r) => r.data),
    retry: false,
  });
  const cameras = useQuery({
    queryKey: ['integrations', integrationId, 'cameras'],
    queryFn: () => dp.request<{ data: AxxonCamera[] }>(`/integration/axxonone/${integrationId}/listcameras`).then((r) => r.data),
    enabled: Boolean(integrationId),
    retry: false,
  });
  const integrations = (available.data ?? []).map((i) => ({ id: i.id, name: i.name }));
  if (integrationId && !integrations.some((i) => i.id === integrationId))
    integrations.unshift({ id: integrationId, name: `#${integrationId}` });
  const choices = cameraChoices(cameras.data, { access_point: accessPoint ?? null, name: cameraName ?? null });
  return (
    <Box data-testid="device-integration-axxon" sx={{ width: '100%' }}>
      <Typography variant="subtitle1" component="h2" sx={{ mb: 1 }}>
        {translate(L('title'))}
      </Typography>
      <BooleanInput source={`${SRC}.enabled`} label={L('enabled')} readOnly={readOnly} />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2 }}>
        <SelectInput
          source={`${SRC}.integration_id`}
          label={L('integration')}
          choices={integrations}
          parse={emptyToNull}
          readOnly={readOnly}
          isLoading={available.isLoading}
          // Said only to someone linking a camera, under the field it concerns: as a banner on a tab
          // the toolbar's actions stay above, it read as the answer to whatever was pressed last.
          helperText={enabled && available.isSuccess && available.data.length === 0 && !integrationId ? L('none') : false}
          onChange={() => {
            setValue(`${SRC}.camera_access_point`, null, { shouldDirty: true });
            setValue(`${SRC}.camera_display_name`, null, { shouldDirty: true });
          }}
        />
        <SelectInput
          source={`${SRC}.camera_access_point`}
          label={L('camera')}
          choices={choices}
          parse={emptyToNull}
          disabled={!integrationId}
          readOnly={readOnly}
          isLoading={cameras.isLoading && Boolean(integrationId)}
          onChange={(e) => {
            const ap = (e?.target as HTMLInputElement | undefined)?.value ?? null;
            const cam = cameras.data?.find((c) => c.access_point === ap);
            setValue(`${SRC}.camera_display_name`, cam?.display_name ?? null, { shouldDirty: true });
          }}
        />
      </Box>
      {cameras.isError ? (
        <Alert severity="warning" data-testid="device-integration-cameras-failed">
          {translate(L('cameras_failed'))}
        </Alert>
      ) : null}
    </Box>
  );
}
