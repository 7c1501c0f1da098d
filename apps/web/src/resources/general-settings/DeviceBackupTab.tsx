import type { DeviceTask } from '@atrium/contract';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Alert, Box, Button, CircularProgress, Link, Typography } from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useDataProvider, useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText } from '../../app/errors';

const L = (k: string) => `general_settings.device_backup.${k}`;

/**
 * Device backup import (spec comms §7, reached from project settings): a device's backup image is
 * uploaded, and its settings are restored onto the device with that serial number by an apply task.
 */
export function DeviceBackupTab() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const upload = useMutation({
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return (await dp.request<{ data: DeviceTask }>('/devices/backup/import', { method: 'POST', body: form })).data;
    },
  });
  const task = upload.data;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 640 }} data-testid="device-backup-tab">
      <Typography variant="body2">{translate(L('hint'))}</Typography>
      <Box>
        <Button
          component="label"
          variant="contained"
          startIcon={upload.isPending ? <CircularProgress size={16} /> : <UploadFileIcon />}
          disabled={upload.isPending}
        >
          {translate(L('choose'))}
          <input
            hidden
            type="file"
            accept=".json,.gz,application/json,application/gzip"
            aria-label={translate(L('choose'))}
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = '';
              if (f) upload.mutate(f);
            }}
          />
        </Button>
      </Box>
      {upload.isError ? <Alert severity="error">{errorText(upload.error, translate)}</Alert> : null}
      {task ? (
        <Alert severity="success" data-testid="device-backup-result">
          {translate(L('queued'), { device: task.device_name, serial: task.serial_number })}{' '}
          <Link component={RouterLink} to={`/devices/${task.device_id}`}>
            {translate(L('tasks'))}
          </Link>
        </Alert>
      ) : null}
    </Box>
  );
}
