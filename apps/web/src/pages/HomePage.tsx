import type { Dashboard } from '@atrium/contract';
import { Alert, Avatar, Box, Card, CardActionArea, CardContent, Chip, Grid, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Title, useDataProvider, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { isAvailable } from '../app/areas';
import type { AtriumDataProvider } from '../app/dataProvider';
import { visibleMenu } from '../app/menu-rules';
import { useSessionData } from '../app/SessionContext';
import { roleName } from '../app/seeded';
import { menuIcon } from '../layout/menu-icons';
import { DASHBOARD_WIDGETS } from './dashboardWidgets';

/** The widgets of DASHBOARD_WIDGETS over the caller's summary. */
function DashboardWidgets() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const summary = useQuery({
    queryKey: ['dashboard'],
    queryFn: async ({ signal }) => (await dp.request<{ data: Dashboard }>('/dashboard', { signal })).data,
  });
  if (summary.isError) return <Alert severity="warning">{translate('dashboard.failed')}</Alert>;
  const data = summary.data;
  if (!data) return null;
  return (
    <Grid container spacing={2} sx={{ mb: 3 }}>
      {DASHBOARD_WIDGETS.map((w) => (
        <Grid key={w.key} size={{ xs: 12, md: w.width }}>
          {w.render(data)}
        </Grid>
      ))}
    </Grid>
  );
}

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
                {profile.role ? roleName(profile.role, translate) : translate('home.no_role')}
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
      <DashboardWidgets />
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
