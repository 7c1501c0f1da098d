import { Avatar, Box, Card, CardActionArea, CardContent, Chip, Grid, Stack, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { isAvailable } from '../app/areas';
import { visibleMenu } from '../app/menu-rules';
import { useSessionData } from '../app/SessionContext';
import { menuIcon } from '../layout/menu-icons';

export function HomePage() {
  const translate = useTranslate();
  const { profile, ruleContext } = useSessionData();
  const entries = visibleMenu(ruleContext, isAvailable)
    .flatMap((s) => s.items)
    .filter((i) => i.path !== '/home');
  return (
    <Box sx={{ maxWidth: 1100 }}>
      <Title title={translate('home.title')} />
      <Card sx={{ mb: 3 }}>
        <CardContent>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
            <Avatar src={profile.avatar_url ?? undefined} alt="" sx={{ width: 56, height: 56 }}>
              {profile.name.slice(0, 1)}
            </Avatar>
            <Box>
              <Typography variant="h5" component="h2">
                {translate('home.welcome', { name: profile.name })}
              </Typography>
              <Typography color="text.secondary">
                {translate('home.project')}: {profile.project.name} · {translate('home.role')}:{' '}
                {profile.role?.name ?? translate('home.no_role')}
              </Typography>
            </Box>
          </Stack>
          {profile.domains.length > 0 ? (
            <Stack direction="row" spacing={1} sx={{ mt: 2, flexWrap: 'wrap', gap: 1 }} aria-label={translate('home.groups')}>
              {profile.domains.map((d) => (
                <Chip key={d.id} label={d.name} size="small" />
              ))}
            </Stack>
          ) : null}
        </CardContent>
      </Card>
      <Typography variant="h6" component="h2" gutterBottom>
        {translate('home.quick_links')}
      </Typography>
      <Grid container spacing={2}>
        {entries.map((item) => {
          const Icon = menuIcon(item.path);
          return (
            <Grid key={item.path} size={{ xs: 12, sm: 6, md: 4 }}>
              <Card>
                <CardActionArea component={Link} to={item.path}>
                  <CardContent sx={{ display: 'flex', gap: 2, alignItems: 'center' }}>
                    <Icon color="secondary" />
                    <Typography>{translate(item.label)}</Typography>
                  </CardContent>
                </CardActionArea>
              </Card>
            </Grid>
          );
        })}
      </Grid>
    </Box>
  );
}
