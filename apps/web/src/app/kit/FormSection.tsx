import { Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';

/** A titled part of a form (an h2 for screen readers), with an optional line of help under it. */
export function FormSection({ title, hint }: { title: string; hint?: string }) {
  const translate = useTranslate();
  return (
    <Box sx={{ mt: 2, mb: 1 }}>
      <Typography variant="subtitle1" component="h2">
        {translate(title)}
      </Typography>
      {hint ? (
        <Typography variant="body2" color="text.secondary">
          {translate(hint)}
        </Typography>
      ) : null}
    </Box>
  );
}
