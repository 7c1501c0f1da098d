import { MENU_NOTIFICATIONS } from '@atrium/contract';
import NotificationsIcon from '@mui/icons-material/Notifications';
import { Badge, Box, Button, Divider, IconButton, ListItemText, Menu, MenuItem, Stack, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useLocaleState, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { formatDateTime } from '../app/format';
import { useIdentifierFormat } from '../app/identifier-value';
import { notificationTarget, notificationText, useMarkRead, useUnread } from '../app/notifications';

/** The bell: unread badge, the latest 5 unread, 'see all' beyond 5, 'no new notifications'. */
export function NotificationBell() {
  const translate = useTranslate();
  const identifierFormat = useIdentifierFormat();
  // Dates in the console's language, not the browser's.
  const [locale] = useLocaleState();
  const navigate = useNavigate();
  const { items, total } = useUnread();
  const markRead = useMarkRead();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const latest = items.slice(0, MENU_NOTIFICATIONS);
  const close = () => setAnchor(null);
  const seeAll = total > MENU_NOTIFICATIONS || latest.length === 0;
  const label = translate('toolbar.notifications');
  // The badge is only drawn; the count is also in the button's name for screen readers.
  const buttonLabel = total > 0 ? `${label}: ${translate('notifications.unread_count', { smart_count: total })}` : label;

  return (
    <>
      <Tooltip title={label}>
        <IconButton color="inherit" aria-label={buttonLabel} aria-haspopup="menu" onClick={(e) => setAnchor(e.currentTarget)}>
          <Badge badgeContent={total} color="secondary" max={99} data-testid="unread-badge">
            <NotificationsIcon />
          </Badge>
        </IconButton>
      </Tooltip>
      <Menu
        anchorEl={anchor}
        open={!!anchor}
        onClose={close}
        slotProps={{ paper: { sx: { width: 380, maxWidth: '95vw' } }, list: { 'aria-label': label } }}
      >
        <Stack direction="row" sx={{ px: 2, py: 1, alignItems: 'center', justifyContent: 'space-between' }}>
          <Typography variant="subtitle1">{label}</Typography>
          {total > 0 ? (
            <Button size="small" onClick={() => markRead.mutate(undefined)}>
              {translate('notifications.mark_all_read')}
            </Button>
          ) : null}
        </Stack>
        <Divider />
        {latest.length === 0 ? (
          <MenuItem disabled>
            <ListItemText primary={translate('notifications.none')} />
          </MenuItem>
        ) : (
          latest.map((n) => (
            <MenuItem
              key={n.id}
              onClick={() => {
                close();
                markRead.mutate(n.id);
                const target = notificationTarget(n);
                if (target) navigate(target);
              }}
              sx={{ whiteSpace: 'normal', alignItems: 'flex-start' }}
            >
              <ListItemText
                primary={notificationText(n, translate, identifierFormat)}
                secondary={formatDateTime(n.created_at, locale)}
                slotProps={{ primary: { sx: { fontWeight: n.significance === 'important' ? 600 : 400 } } }}
              />
            </MenuItem>
          ))
        )}
        {seeAll ? <Divider /> : null}
        {seeAll ? (
          <Box sx={{ px: 1, py: 0.5, display: 'flex', justifyContent: 'flex-end' }}>
            <Button
              size="small"
              onClick={() => {
                close();
                navigate('/notifications');
              }}
            >
              {translate('notifications.see_all')}
            </Button>
          </Box>
        ) : null}
      </Menu>
    </>
  );
}
