import { Box, Button, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';

export function NotFoundPage() {
  const translate = useTranslate();
  return (
    <Box sx={{ textAlign: 'center', py: 8 }}>
      <Title title={translate('not_found.title')} />
      <Typography variant="h1" component="p" color="text.secondary" sx={{ fontWeight: 700 }}>
        404
      </Typography>
      <Typography variant="h5" component="h2" gutterBottom>
        {translate('not_found.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {translate('not_found.text')}
      </Typography>
      <Button component={Link} to="/home" variant="contained">
        {translate('not_found.go_home')}
      </Button>
    </Box>
  );
}
