import type { Amenity } from '@atrium/contract';
import DeleteIcon from '@mui/icons-material/Delete';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Box, Button, Stack, Typography } from '@mui/material';
import { useDataProvider, useNotify, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { ImageFileButton } from '../../app/kit/ImageCropDialog';

type Kind = 'image' | 'terms-of-use';

/** The amenity's image and terms of use: uploaded (multipart `file`) and removed on their own calls. */
export function AmenityFiles({ record, readOnly }: { record: Amenity; readOnly: boolean }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const run = async (kind: Kind, file: File | null) => {
    try {
      if (file) {
        const form = new FormData();
        form.append('file', file, file.name);
        await dp.request(`/amenities/${record.id}/${kind}`, { method: 'POST', body: form });
      } else await dp.request(`/amenities/${record.id}/${kind}`, { method: 'DELETE' });
      notify(file ? 'amenities.file_saved' : 'amenities.file_removed', { type: 'success' });
      refresh();
    } catch (e) {
      notify(e instanceof Error ? e.message : 'ra.notification.http_error', { type: 'error' });
    }
  };
  const row = (kind: Kind, label: string, url: string | null, accept: string) => (
    <Stack direction="row" spacing={1} sx={{ mb: 1, alignItems: 'center' }} data-testid={`amenity-${kind}`}>
      <Typography variant="body2" sx={{ minWidth: 180 }}>
        {label}
      </Typography>
      {url && kind === 'image' ? (
        <Box component="img" src={url} alt={label} sx={{ height: 56, borderRadius: 1, border: 1, borderColor: 'divider' }} />
      ) : null}
      {url ? (
        <Button size="small" href={url} target="_blank" rel="noopener" startIcon={<OpenInNewIcon />}>
          {translate('amenities.open')}
        </Button>
      ) : (
        <Typography variant="body2" color="text.secondary">
          {translate('amenities.none')}
        </Typography>
      )}
      {readOnly ? null : (
        <>
          <ImageFileButton
            size="small"
            variant="text"
            accept={accept}
            label={translate(url ? 'amenities.replace' : 'amenities.upload')}
            onFile={(f) => void run(kind, f)}
          />
          {url ? (
            <Button size="small" color="error" startIcon={<DeleteIcon />} onClick={() => void run(kind, null)}>
              {translate('amenities.remove')}
            </Button>
          ) : null}
        </>
      )}
    </Stack>
  );
  return (
    <Box sx={{ width: '100%' }}>
      {row('image', translate('amenities.image'), record.files.image, 'image/png,image/jpeg,image/gif,image/webp')}
      {row('terms-of-use', translate('amenities.terms_of_use'), record.files.terms_of_use, 'application/pdf')}
    </Box>
  );
}
