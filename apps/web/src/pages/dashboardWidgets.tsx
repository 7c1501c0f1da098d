import type { Dashboard } from '@atrium/contract';
import { Card, CardActionArea, CardContent, Grid, List, ListItem, ListItemText, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useLocaleState, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { auditSentence } from '../app/audit-sentence';
import { formatDateTime } from '../app/format';
import { menuIcon } from '../layout/menu-icons';

/**
 * A widget of the home page: drawn from the caller's summary (GET /dashboard), or nothing when the
 * summary has nothing for it. A later area (devices online, recent access events, open alarms)
 * adds its field to the summary and one entry to DASHBOARD_WIDGETS.
 */
export interface DashboardWidget {
  key: string;
  /** Grid columns out of 12 from the `md` breakpoint on. */
  width: 4 | 6 | 8 | 12;
  render: (summary: Dashboard) => ReactNode;
}

const COUNTS = [
  { key: 'users', path: '/users' },
  { key: 'groups', path: '/groups' },
  { key: 'roles', path: '/roles' },
] as const;

function CountCard({ label, value, path }: { label: string; value: number; path: string }) {
  const Icon = menuIcon(path);
  return (
    <Card sx={{ height: '100%' }}>
      <CardActionArea component={Link} to={path} sx={{ height: '100%' }}>
        <CardContent sx={{ display: 'flex', gap: 2, alignItems: 'center' }}>
          <Icon color="secondary" fontSize="large" />
          <div>
            <Typography variant="h4" component="p">
              {value}
            </Typography>
            <Typography color="text.secondary">{label}</Typography>
          </div>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

function RecentChanges({ changes }: { changes: Dashboard['recent_changes'] }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2">
          {translate('dashboard.recent_changes')}
        </Typography>
        {changes.length === 0 ? (
          <Typography color="text.secondary">{translate('dashboard.no_changes')}</Typography>
        ) : (
          <List dense data-user-content>
            {changes.map((c) => (
              <ListItem key={c.id} disableGutters>
                <ListItemText
                  primary={auditSentence({ ...c, author: c.user_name }, translate)}
                  secondary={formatDateTime(c.created_at, locale)}
                />
              </ListItem>
            ))}
          </List>
        )}
      </CardContent>
    </Card>
  );
}

/** Counts of what the caller may list; an entity they may not list has no card. */
function Counts({ summary }: { summary: Dashboard }) {
  const translate = useTranslate();
  const shown = COUNTS.filter((c) => summary.counts[c.key] !== null);
  if (!shown.length) return null;
  return (
    <Grid container spacing={2}>
      {shown.map((c) => (
        <Grid key={c.key} size={{ xs: 12, sm: 4 }}>
          <CountCard label={translate(`menu.items.${c.key}`)} value={summary.counts[c.key] ?? 0} path={c.path} />
        </Grid>
      ))}
    </Grid>
  );
}

/** Devices online now, of those the caller sees; nothing without a device view permission. */
function DevicesOnline({ devices }: { devices: NonNullable<Dashboard['devices']> }) {
  const translate = useTranslate();
  const Icon = menuIcon('/devices');
  return (
    <Card>
      <CardActionArea component={Link} to="/devices">
        <CardContent sx={{ display: 'flex', gap: 2, alignItems: 'center' }}>
          <Icon color={devices.online === devices.total ? 'success' : 'warning'} fontSize="large" />
          <Typography variant="h6" component="p">
            {translate('dashboard.devices_online', { online: devices.online, total: devices.total })}
          </Typography>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

/** The widgets of the home page, in order. */
export const DASHBOARD_WIDGETS: readonly DashboardWidget[] = [
  { key: 'counts', width: 12, render: (s) => <Counts summary={s} /> },
  { key: 'devices_online', width: 12, render: (s) => (s.devices ? <DevicesOnline devices={s.devices} /> : null) },
  { key: 'recent_changes', width: 12, render: (s) => <RecentChanges changes={s.recent_changes} /> },
];
