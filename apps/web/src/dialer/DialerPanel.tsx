import CloseIcon from '@mui/icons-material/Close';
import { Alert, Box, Button, Drawer, IconButton, Tab, Tabs, Typography } from '@mui/material';
import { type Dispatch, useState } from 'react';
import { useTranslate } from 'react-admin';
import { CallsPane } from './CallsPane';
import { ContactsPane } from './ContactsPane';
import { ControlsPane } from './ControlsPane';
import type { DialerEngine, DialerSnapshot } from './engine';
import type { KeypadAction, KeypadState } from './keypad';
import { RecentsPane } from './RecentsPane';

export interface DialerPanelProps {
  open: boolean;
  onClose: () => void;
  ownNumber: string;
  snapshot: DialerSnapshot;
  engine: DialerEngine;
  keypad: KeypadState;
  keypadDispatch: Dispatch<KeypadAction>;
  dial: (number: string, video: boolean, sipNumberId?: number) => void;
  mediaDenied: boolean;
  askMedia: () => void;
}

/**
 * The dialer panel of spec comms §2: contacts (and recents) on the left, the calls in the centre,
 * interception, doors and the keypad on the right. It stays mounted while closed, so the media of a
 * call keeps playing.
 */
export function DialerPanel(props: DialerPanelProps) {
  const translate = useTranslate();
  const [tab, setTab] = useState<'contacts' | 'recents'>('contacts');
  return (
    <Drawer
      anchor="right"
      open={props.open}
      onClose={props.onClose}
      keepMounted
      slotProps={{
        paper: { sx: { width: { xs: '100vw', lg: 1180 }, maxWidth: '100vw' }, 'aria-label': translate('dialer.title') } as object,
      }}
      data-testid="dialer-panel"
    >
      <Box sx={{ display: 'flex', alignItems: 'center', px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
        <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
          {translate('dialer.title')} · {props.ownNumber}
        </Typography>
        <IconButton onClick={props.onClose} aria-label={translate('dialer.close')}>
          <CloseIcon />
        </IconButton>
      </Box>
      {props.mediaDenied ? (
        <Alert
          severity="warning"
          sx={{ m: 1 }}
          action={
            <Button color="inherit" onClick={props.askMedia}>
              {translate('dialer.media.allow')}
            </Button>
          }
        >
          {translate('dialer.media.needed')}
        </Alert>
      ) : null}
      <Box
        sx={{
          flex: 1,
          minHeight: 0,
          display: 'grid',
          gridTemplateColumns: { xs: '1fr', md: '300px 1fr 300px' },
          overflow: { xs: 'auto', md: 'hidden' },
        }}
      >
        <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: 0, borderRight: { md: 1 }, borderColor: { md: 'divider' } }}>
          <Tabs value={tab} onChange={(_, v) => setTab(v)} variant="fullWidth">
            <Tab value="contacts" label={translate('dialer.contacts.title')} />
            <Tab value="recents" label={translate('dialer.recents.title')} />
          </Tabs>
          {tab === 'contacts' ? (
            <ContactsPane ownNumber={props.ownNumber} active={props.open} dial={props.dial} />
          ) : (
            <RecentsPane ownNumber={props.ownNumber} dial={props.dial} calls={props.snapshot.calls} />
          )}
        </Box>
        <CallsPane ownNumber={props.ownNumber} snapshot={props.snapshot} engine={props.engine} />
        <ControlsPane
          ownNumber={props.ownNumber}
          active={props.open}
          keypad={props.keypad}
          keypadDispatch={props.keypadDispatch}
          dial={props.dial}
          engine={props.engine}
          snapshot={props.snapshot}
        />
      </Box>
    </Drawer>
  );
}
