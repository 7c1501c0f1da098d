import { Box, CircularProgress } from '@mui/material';
import { useTranslate } from 'ra-core';

/** What a page shows while its code or data loads. */
export function PageLoader() {
  const translate = useTranslate();
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '50vh' }}>
      <CircularProgress color="secondary" aria-label={translate('app.loading')} />
    </Box>
  );
}
