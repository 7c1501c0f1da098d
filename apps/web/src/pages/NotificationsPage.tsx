import { NOTIFICATION_CLASSES, NOTIFICATION_PAGE_SIZE, type NotificationClass, READ_MARK_DELAY_MS } from '@atrium/contract';
import CircleIcon from '@mui/icons-material/Circle';
import SettingsIcon from '@mui/icons-material/Settings';
import { Box, Button, Card, List, ListItem, ListItemButton, ListItemIcon, ListItemText, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Title, useLocaleState, useTranslate } from 'react-admin';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { formatDateTime } from '../app/format';
import { http } from '../app/http';
import { useIdentifierFormat } from '../app/identifier-value';
import { fetchNotifications, NOTIFICATIONS_KEY, notificationTarget, notificationText } from '../app/notifications';
import { PageLoader } from '../layout/PageLoader';

const isClass = (v: string | null): v is NotificationClass => (NOTIFICATION_CLASSES as readonly (string | null)[]).includes(v);

/** Notifications by class (tabs, `?type=`), 20 per page; opening the page marks them read after 1 s. */
export function NotificationsPage() {
  const translate = useTranslate();
  const identifierFormat = useIdentifierFormat();
  // Dates in the console's language, not the browser's.
  const [locale] = useLocaleState();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const raw = params.get('type');
  const type: NotificationClass = isClass(raw) ? raw : 'all';

  const query = useInfiniteQuery({
    queryKey: [...NOTIFICATIONS_KEY, 'list', type],
    queryFn: ({ pageParam, signal }) => fetchNotifications(type, pageParam, NOTIFICATION_PAGE_SIZE, signal),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const loaded = pages.reduce((n, p) => n + p.data.length, 0);
      return loaded < last.meta.total ? loaded : undefined;
    },
  });

  useEffect(() => {
    const timer = setTimeout(() => {
      http
        .request('/notifications/read', { method: 'POST' })
        .then(() => queryClient.invalidateQueries({ queryKey: [...NOTIFICATIONS_KEY, 'unread'] }))
        .catch((error) => console.error(error));
    }, READ_MARK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [queryClient]);

  const items = query.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Box sx={{ maxWidth: 960 }}>
      <Title title={translate('notifications.title')} />
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
        <Tabs
          value={type}
          onChange={(_, next: NotificationClass) => setParams(next === 'all' ? {} : { type: next })}
          aria-label={translate('notifications.title')}
          variant="scrollable"
        >
          {NOTIFICATION_CLASSES.map((c) => (
            <Tab key={c} value={c} label={translate(`notifications.tabs.${c}`)} />
          ))}
        </Tabs>
        <Button component={Link} to="/notifications/settings" startIcon={<SettingsIcon />}>
          {translate('notifications.settings.title')}
        </Button>
      </Stack>
      <Card>
        {query.isLoading ? (
          <PageLoader />
        ) : items.length === 0 ? (
          <Typography sx={{ p: 3 }} color="text.secondary">
            {translate('notifications.empty')}
          </Typography>
        ) : (
          // Each line names records (devices, people): data, beside texts from the catalogue.
          <List aria-label={translate(`notifications.tabs.${type}`)} data-user-content>
            {items.map((n) => {
              const target = notificationTarget(n);
              // Each entry an item of the list (a button alone in a list is no list item to a screen reader).
              return (
                <ListItem key={n.id} disablePadding>
                  <ListItemButton disabled={!target} onClick={() => target && navigate(target)} sx={{ '&.Mui-disabled': { opacity: 1 } }}>
                    <ListItemIcon sx={{ minWidth: 32 }}>
                      {n.read_at ? null : (
                        <CircleIcon color="secondary" sx={{ fontSize: 10 }} titleAccess={translate('notifications.unread')} />
                      )}
                    </ListItemIcon>
                    <ListItemText
                      primary={notificationText(n, translate, identifierFormat)}
                      secondary={formatDateTime(n.created_at, locale)}
                      slotProps={{ primary: { sx: { fontWeight: n.significance === 'important' ? 600 : 400 } } }}
                    />
                  </ListItemButton>
                </ListItem>
              );
            })}
          </List>
        )}
        {query.hasNextPage ? (
          <Box sx={{ p: 1, textAlign: 'center' }}>
            <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
              {translate('notifications.load_more')}
            </Button>
          </Box>
        ) : null}
      </Card>
    </Box>
  );
}
