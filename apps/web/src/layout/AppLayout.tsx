import { ALERT_TIMEOUT_MS } from '@atrium/contract';
import { Alert, Box, Button } from '@mui/material';
import type { ReactNode } from 'react';
import { Layout, Notification, useTranslate } from 'react-admin';
import { SessionProvider } from '../app/SessionContext';
import { useDropShell } from '../app/shell';
import { Dialer } from '../dialer/Dialer';
import { AppBar } from './AppBar';
import { FloatingButtons, FloatingButtonsProvider, useFloatingButtonsRoom } from './FloatingButtons';
import { ImportantPopups } from './ImportantPopups';
import { LicenseWarnings } from './LicenseWarnings';
import { LoadingBar } from './LoadingBar';
import { PageLoader } from './PageLoader';
import { RealtimeBridge } from './RealtimeBridge';
import { SideMenu } from './SideMenu';

/** Alert toasts with the spec's 3000 ms default. */
export const AppNotification = () => <Notification autoHideDuration={ALERT_TIMEOUT_MS} />;

function ProfileFailed({ retry }: { retry: () => void }) {
  const translate = useTranslate();
  return (
    <Box sx={{ p: 4, maxWidth: 640, mx: 'auto' }}>
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={retry}>
            {translate('app.reload')}
          </Button>
        }
      >
        {translate('app.chunk_error')}
      </Alert>
    </Box>
  );
}

/**
 * react-admin's layout, its page ending below the floating buttons (the dialer…): they float over
 * the page's bottom-right corner, where the last row's actions and a form's Save are.
 */
function RoomyLayout({ children }: { children: ReactNode }) {
  const room = useFloatingButtonsRoom();
  return (
    // react-admin lets the page grow as wide as its widest content; ours keeps to the screen, a wide
    // table scrolling in its own card.
    <Layout
      appBar={AppBar}
      menu={SideMenu}
      sx={{
        minWidth: 0,
        '& .RaLayout-content': { p: { xs: 1, sm: 2 }, minWidth: 0, ...(room ? { pb: { xs: `${room}px`, sm: `${room}px` } } : {}) },
      }}
    >
      {children}
    </Layout>
  );
}

/** The signed-in frame: session data, realtime, menu, toolbar, popups and floating buttons. */
export function AppLayout({ children }: { children: ReactNode }) {
  // The console's frame (its loading state first) replaces index.html's shell.
  useDropShell();
  return (
    <SessionProvider loading={<PageLoader />} failed={(retry) => <ProfileFailed retry={retry} />}>
      <FloatingButtonsProvider>
        <RealtimeBridge />
        <Dialer />
        <RoomyLayout>
          {/* Drawn along the top of the screen, but inside the page's landmarks like everything else. */}
          <LoadingBar />
          <LicenseWarnings />
          {children}
        </RoomyLayout>
        <ImportantPopups />
        <FloatingButtons />
      </FloatingButtonsProvider>
    </SessionProvider>
  );
}
