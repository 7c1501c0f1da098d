import CallIcon from '@mui/icons-material/Call';
import CallMadeIcon from '@mui/icons-material/CallMade';
import CallMissedIcon from '@mui/icons-material/CallMissed';
import CallMissedOutgoingIcon from '@mui/icons-material/CallMissedOutgoing';
import CallReceivedIcon from '@mui/icons-material/CallReceived';
import RefreshIcon from '@mui/icons-material/Refresh';
import { Box, IconButton, List, ListItem, ListItemIcon, ListItemText, ListSubheader, Tooltip, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { useLocale, useTranslate } from 'react-admin';
import { formatDuration, groupRecents, type RecentItem } from './recents';
import type { DialerCall } from './types';
import { dialerApi, useReportError } from './useDialer';

function OutcomeIcon({ item }: { item: RecentItem }) {
  const answered = item.outcome === 'answered';
  if (item.direction === 'incoming') return answered ? <CallReceivedIcon color="success" /> : <CallMissedIcon color="error" />;
  return answered ? <CallMadeIcon color="success" /> : <CallMissedOutgoingIcon color="warning" />;
}

/** Recents of spec comms §2: grouped by date, each with its icon, title, duration, time and a call button. */
export function RecentsPane({
  ownNumber,
  dial,
  calls,
}: {
  ownNumber: string;
  dial: (number: string, video: boolean) => void;
  calls: readonly DialerCall[];
}) {
  const translate = useTranslate();
  const locale = useLocale();
  const history = useQuery({ queryKey: ['dialer', 'history', ownNumber], queryFn: () => dialerApi.history(ownNumber) });
  useReportError(history.error);
  // A call that just ended is in the history now.
  const ended = calls.filter((c) => c.status === 'destroyed').length;
  const { refetch } = history;
  useEffect(() => {
    if (ended > 0) void refetch();
  }, [ended, refetch]);
  const groups = useMemo(() => groupRecents(history.data ?? [], ownNumber), [history.data, ownNumber]);
  const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
  const timeFormat = new Intl.DateTimeFormat(locale, { timeStyle: 'short' });
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: 0, flex: 1 }} data-testid="dialer-recents">
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', px: 1.5, pt: 1 }}>
        <Tooltip title={translate('dialer.recents.refresh')}>
          <IconButton size="small" onClick={() => void history.refetch()} aria-label={translate('dialer.recents.refresh')}>
            <RefreshIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
      <List dense sx={{ overflow: 'auto', flex: 1, minHeight: 0 }} subheader={<li />}>
        {groups.length === 0 && !history.isLoading ? (
          <Typography variant="body2" color="text.secondary" sx={{ px: 2, py: 1 }}>
            {translate('dialer.recents.empty')}
          </Typography>
        ) : null}
        {groups.map((group) => (
          <li key={group.day}>
            <ul style={{ padding: 0 }}>
              <ListSubheader sx={{ lineHeight: '28px' }}>
                {group.label ? translate(`dialer.recents.${group.label}`) : dateFormat.format(group.time)}
              </ListSubheader>
              {group.items.map((item) => (
                <ListItem
                  key={item.entry.id}
                  secondaryAction={
                    <IconButton
                      edge="end"
                      color="success"
                      onClick={() => dial(item.number, false)}
                      aria-label={translate('dialer.recents.call', { name: item.title })}
                    >
                      <CallIcon />
                    </IconButton>
                  }
                >
                  <Tooltip
                    title={`${translate(`dialer.recents.direction.${item.direction}`)} · ${translate(`dialer.recents.outcome.${item.outcome}`)}`}
                  >
                    <ListItemIcon sx={{ minWidth: 36 }}>
                      <OutcomeIcon item={item} />
                    </ListItemIcon>
                  </Tooltip>
                  <ListItemText
                    primary={item.title}
                    secondary={`${formatDuration(item.entry.duration)} · ${dateFormat.format(item.time)} ${timeFormat.format(item.time)}`}
                    slotProps={{ primary: { noWrap: true } }}
                  />
                </ListItem>
              ))}
            </ul>
          </li>
        ))}
      </List>
    </Box>
  );
}
