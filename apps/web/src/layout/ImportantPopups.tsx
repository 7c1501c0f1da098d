import { IMPORTANT_POPUPS_AT_ONCE } from '@atrium/contract';
import CloseIcon from '@mui/icons-material/Close';
import { Alert, AlertTitle, Box, Button, IconButton, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { useIdentifierFormat } from '../app/identifier-value';
import { notificationTarget, notificationText, useMarkRead, useUnread } from '../app/notifications';

/**
 * Important unread notifications as stacked popups (spec core §2): 3 at a time; closing one marks
 * it read; 'hide all' (when more than one) hides them for now; 'see all' opens the important tab.
 */
export function ImportantPopups() {
  const translate = useTranslate();
  const identifierFormat = useIdentifierFormat();
  const navigate = useNavigate();
  const { items } = useUnread();
  const markRead = useMarkRead();
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const important = items.filter((n) => n.significance === 'important' && !hidden.has(n.id));
  if (important.length === 0) return null;
  const shown = important.slice(0, IMPORTANT_POPUPS_AT_ONCE);

  return (
    <Box
      role="region"
      aria-label={translate('notifications.important')}
      sx={{ position: 'fixed', top: 72, right: 16, width: 360, maxWidth: 'calc(100vw - 32px)', zIndex: (t) => t.zIndex.snackbar }}
    >
      <Stack spacing={1}>
        {shown.map((n) => {
          const target = notificationTarget(n);
          return (
            <Alert
              key={n.id}
              severity="warning"
              variant="filled"
              elevation={6}
              // MUI's filled warning orange carries white text at 3:1; a darker amber keeps it at 5:1 (WCAG AA).
              sx={{ bgcolor: '#b45309', color: '#fff' }}
              action={
                <IconButton
                  size="small"
                  color="inherit"
                  aria-label={translate('notifications.mark_read')}
                  onClick={() => markRead.mutate(n.id)}
                >
                  <CloseIcon fontSize="small" />
                </IconButton>
              }
            >
              <AlertTitle>{translate('notifications.important')}</AlertTitle>
              {notificationText(n, translate, identifierFormat)}
              {target ? (
                <Box>
                  <Button
                    size="small"
                    color="inherit"
                    onClick={() => {
                      markRead.mutate(n.id);
                      navigate(target);
                    }}
                  >
                    {translate('notifications.open')}
                  </Button>
                </Box>
              ) : null}
            </Alert>
          );
        })}
        <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end' }}>
          {important.length > 1 ? (
            <Button
              size="small"
              variant="contained"
              color="inherit"
              onClick={() => setHidden(new Set([...hidden, ...important.map((n) => n.id)]))}
            >
              {translate('notifications.hide_all')}
            </Button>
          ) : null}
          <Button size="small" variant="contained" color="primary" onClick={() => navigate('/notifications?type=important')}>
            {translate('notifications.see_all')}
          </Button>
        </Stack>
      </Stack>
    </Box>
  );
}
