import type { MobileAppLinks, Profile } from '@atrium/contract';
import PhoneIphoneIcon from '@mui/icons-material/PhoneIphone';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Link, Stack, Typography } from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { PROFILE_KEY } from '../app/authProvider';
import { http } from '../app/http';
import { QrCode } from '../resources/guest-access/QrCode';

const STORES = [
  { key: 'app_store', url: (l: MobileAppLinks) => l.app_store_url },
  { key: 'google_play', url: (l: MobileAppLinks) => l.google_play_url },
] as const;

/** What the dialog shows: a QR code and a link per store the project has a page in, or a note that none is set. */
export function MobileAppDownload({ links }: { links: MobileAppLinks | null }) {
  const translate = useTranslate();
  const stores = STORES.flatMap((s) => {
    const url = links ? s.url(links) : null;
    return url ? [{ key: s.key, url }] : [];
  });
  if (stores.length === 0) return <Alert severity="info">{translate('profile.mobile_app.none')}</Alert>;
  return (
    <Box>
      <Typography variant="body2" sx={{ mb: 2 }}>
        {translate('profile.mobile_app.intro')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={3} sx={{ justifyContent: 'center' }}>
        {stores.map((s) => {
          const store = translate(`profile.mobile_app.${s.key}`);
          return (
            <Stack key={s.key} spacing={1} sx={{ alignItems: 'center' }}>
              <QrCode value={s.url} size={180} alt={translate('profile.mobile_app.qr', { store })} />
              <Link href={s.url} target="_blank" rel="noopener noreferrer">
                {store}
              </Link>
            </Stack>
          );
        })}
      </Stack>
    </Box>
  );
}

export function MobileAppDialog({ open, links, onClose }: { open: boolean; links: MobileAppLinks | null; onClose: () => void }) {
  const translate = useTranslate();
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{translate('profile.mobile_app.title')}</DialogTitle>
      <DialogContent>
        <MobileAppDownload links={links} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('profile.mobile_app.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** Whether the dialog opens by itself: the user has not dismissed it yet and there is a store page to show. */
export const opensByItself = (profile: Profile, links: MobileAppLinks | null): boolean =>
  profile.profile.is_app_popup_active && Boolean(links?.app_store_url || links?.google_play_url);

/**
 * The profile's "Get the mobile app" button and its dialog. While the profile's is_app_popup_active is
 * on and the project has a store page, the dialog opens by itself once; closing it turns the flag off
 * (PATCH /profile/mobile-client/popup/active), so it does not come back. The button opens it any time.
 */
export function MobileAppButton({ profile, links }: { profile: Profile; links: MobileAppLinks | null }) {
  const translate = useTranslate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(() => opensByItself(profile, links));
  const dismiss = useMutation({
    mutationFn: () => http.data<Profile>('/profile/mobile-client/popup/active', { method: 'PATCH', body: { is_app_popup_active: false } }),
    onSuccess: (updated) => queryClient.setQueryData(PROFILE_KEY, updated),
  });
  const close = () => {
    setOpen(false);
    if (profile.profile.is_app_popup_active && !dismiss.isPending) dismiss.mutate();
  };
  return (
    <>
      <Button startIcon={<PhoneIphoneIcon />} onClick={() => setOpen(true)}>
        {translate('profile.mobile_app.open')}
      </Button>
      <MobileAppDialog open={open} links={links} onClose={close} />
    </>
  );
}
