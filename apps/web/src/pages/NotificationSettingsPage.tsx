import type { NotificationSettings } from '@atrium/contract';
import { Box, Button, Card, CardActions, CardContent, FormControlLabel, Switch, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Title, useTranslate } from 'react-admin';
import { http } from '../app/http';
import { useAlert } from '../app/useAlert';
import { PageLoader } from '../layout/PageLoader';

const KEY = ['notifications', 'settings'] as const;

export function NotificationSettingsPage() {
  const translate = useTranslate();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: KEY,
    queryFn: ({ signal }) => http.data<NotificationSettings>('/notifications/settings', { signal }),
  });
  const [acs, setAcs] = useState(false);
  useEffect(() => {
    if (query.data) setAcs(query.data.acs);
  }, [query.data]);
  const save = useMutation({
    mutationFn: (body: NotificationSettings) => http.data<NotificationSettings>('/notifications/settings', { method: 'POST', body }),
    onSuccess: (data) => {
      queryClient.setQueryData(KEY, data);
      alert.done();
    },
    onError: alert.error,
  });
  return (
    <Box sx={{ maxWidth: 720 }}>
      <Title title={translate('notifications.settings.title')} />
      {query.isLoading ? (
        <PageLoader />
      ) : (
        <Card>
          <CardContent>
            <FormControlLabel
              control={<Switch checked={acs} onChange={(e) => setAcs(e.target.checked)} name="acs" />}
              label={translate('notifications.settings.acs')}
            />
            <Typography variant="body2" color="text.secondary" sx={{ ml: 6 }}>
              {translate('notifications.settings.acs_hint')}
            </Typography>
          </CardContent>
          <CardActions sx={{ justifyContent: 'flex-end' }}>
            <Button variant="contained" onClick={() => save.mutate({ acs })} disabled={save.isPending}>
              {translate('notifications.settings.save')}
            </Button>
          </CardActions>
        </Card>
      )}
    </Box>
  );
}
