import CallIcon from '@mui/icons-material/Call';
import RefreshIcon from '@mui/icons-material/Refresh';
import SearchIcon from '@mui/icons-material/Search';
import {
  Box,
  IconButton,
  InputAdornment,
  List,
  ListItem,
  ListItemText,
  ListSubheader,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslate } from 'react-admin';
import { contactCount, groupContacts, splitHighlights } from './contacts';
import { dialerApi, useReportError } from './useDialer';

/** Text with the search's matches marked. */
export function Highlighted({ text, query }: { text: string; query: string }) {
  return (
    <>
      {splitHighlights(text, query).map((part, i) =>
        part.match ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts of one text, in order
          <Box key={i} component="mark" sx={{ bgcolor: 'warning.light', color: 'inherit', px: 0 }}>
            {part.text}
          </Box>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts of one text, in order
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}

/** The contacts column of spec comms §2. */
export function ContactsPane({
  ownNumber,
  active,
  dial,
}: {
  ownNumber: string;
  active: boolean;
  dial: (number: string, video: boolean, id?: number) => void;
}) {
  const translate = useTranslate();
  const [query, setQuery] = useState('');
  const contacts = useQuery({ queryKey: ['dialer', 'contacts'], queryFn: () => dialerApi.contacts(), enabled: active, staleTime: 60_000 });
  useReportError(contacts.error);
  const groups = useMemo(() => groupContacts(contacts.data ?? [], { query, ownNumber }), [contacts.data, query, ownNumber]);
  const total = contactCount(groups);
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: 0, flex: 1 }} data-testid="dialer-contacts">
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1.5, pt: 1 }}>
        <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }}>
          {translate('dialer.contacts.count', { smart_count: total })}
        </Typography>
        <Tooltip title={translate('dialer.contacts.refresh')}>
          <IconButton size="small" onClick={() => void contacts.refetch()} aria-label={translate('dialer.contacts.refresh')}>
            <RefreshIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
      <TextField
        size="small"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        placeholder={translate('dialer.contacts.search')}
        sx={{ mx: 1.5, my: 1 }}
        slotProps={{
          htmlInput: { 'aria-label': translate('dialer.contacts.search') },
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchIcon fontSize="small" />
              </InputAdornment>
            ),
          },
        }}
      />
      <List dense sx={{ overflow: 'auto', flex: 1, minHeight: 0 }} subheader={<li />}>
        {total === 0 && !contacts.isLoading ? (
          <Typography variant="body2" color="text.secondary" sx={{ px: 2, py: 1 }}>
            {translate('dialer.contacts.empty')}
          </Typography>
        ) : null}
        {groups.map((group) => (
          <li key={group.letter}>
            <ul style={{ padding: 0 }}>
              <ListSubheader sx={{ lineHeight: '28px' }}>{group.letter}</ListSubheader>
              {group.contacts.map(({ contact, title }) => (
                <ListItem
                  key={contact.id}
                  secondaryAction={
                    <IconButton
                      edge="end"
                      color="success"
                      onClick={() => dial(contact.number, false, contact.id)}
                      aria-label={translate('dialer.contacts.call', { name: title })}
                    >
                      <CallIcon />
                    </IconButton>
                  }
                >
                  <ListItemText
                    primary={<Highlighted text={title} query={query} />}
                    secondary={contact.owner_info ?? undefined}
                    slotProps={{ primary: { noWrap: true }, secondary: { noWrap: true } }}
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
