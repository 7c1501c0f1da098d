import MoreVertIcon from '@mui/icons-material/MoreVert';
import { Button, IconButton, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { ActionsMenu, type KitAction } from './ActionsMenu';

/**
 * What can be done with a row of a list, in its actions column (`ACTIONS_CELL`): the first `inline`
 * actions as buttons on the row, the rest behind one "more actions" button named after the record.
 * Five buttons side by side wrapped into a column as tall as five rows; one button and a menu keep
 * every row one line high, on a desk and in Russian.
 */
export function RowActions({ actions, name, inline = 1 }: { actions: KitAction[]; name: string; inline?: number }) {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const shown = actions.slice(0, inline);
  const more = actions.slice(inline);
  return (
    <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'flex-end', gap: 0.5, flexWrap: 'nowrap' }}>
      {shown.map((a) => (
        <Button
          key={a.label}
          size="small"
          color={a.danger ? 'error' : 'primary'}
          disabled={a.disabled}
          onClick={a.onClick}
          startIcon={a.icon}
          sx={{ whiteSpace: 'nowrap' }}
        >
          {a.label}
        </Button>
      ))}
      {more.length > 0 ? (
        <>
          <IconButton
            size="small"
            aria-label={translate('kit.more_actions', { name })}
            aria-haspopup="menu"
            aria-expanded={anchor ? true : undefined}
            onClick={(e) => setAnchor(e.currentTarget)}
          >
            <MoreVertIcon fontSize="small" />
          </IconButton>
          <ActionsMenu anchor={anchor} onClose={() => setAnchor(null)} actions={more} />
        </>
      ) : null}
    </Stack>
  );
}
