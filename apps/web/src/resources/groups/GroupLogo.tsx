import type { Group } from '@atrium/contract';
import DeleteIcon from '@mui/icons-material/Delete';
import { Box, Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useDataProvider, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { GROUPS_API } from '../../app/kit/GroupPicker';
import { IMAGE_TYPES, ImageFileButton } from '../../app/kit/ImageCropDialog';
import { useAlert } from '../../app/useAlert';

/** The white-label logo of a group: upload (`POST /domains/{id}/logo {image}`) and removal; `readOnly`: the picture only. */
export function GroupLogo({ group, readOnly = false }: { group: Group; readOnly?: boolean }) {
  const translate = useTranslate();
  const alert = useAlert();
  const refresh = useRefresh();
  const dp = useDataProvider<AtriumDataProvider>();
  const [busy, setBusy] = useState(false);
  const logo = group.whitelabel_settings?.logo;

  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await call();
      alert.done();
      refresh();
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack direction="row" sx={{ alignItems: 'center', gap: 2, mb: 2 }}>
      <Box
        sx={{
          width: 160,
          height: 80,
          border: 1,
          borderColor: 'divider',
          borderRadius: 1,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          overflow: 'hidden',
          bgcolor: 'background.default',
        }}
      >
        {logo ? (
          <img
            src={logo}
            alt={translate('resources.groups.fields.whitelabel_settings.logo')}
            style={{ maxWidth: '100%', maxHeight: '100%' }}
          />
        ) : (
          <Typography variant="caption" color="text.secondary">
            {translate('groups.logo.none')}
          </Typography>
        )}
      </Box>
      {readOnly ? null : (
        <Stack spacing={1}>
          <ImageFileButton
            label={translate('groups.logo.upload')}
            accept={`${IMAGE_TYPES},image/svg+xml`}
            size="small"
            disabled={busy}
            onFile={(file) => {
              const form = new FormData();
              form.append('image', file, file.name);
              void run(() => dp.request(`/${GROUPS_API}/${group.id}/logo`, { method: 'POST', body: form }));
            }}
          />
          {logo ? (
            <Button
              color="error"
              size="small"
              startIcon={<DeleteIcon />}
              disabled={busy}
              onClick={() => run(() => dp.request(`/${GROUPS_API}/${group.id}/logo`, { method: 'DELETE' }))}
            >
              {translate('groups.logo.remove')}
            </Button>
          ) : null}
        </Stack>
      )}
    </Stack>
  );
}
