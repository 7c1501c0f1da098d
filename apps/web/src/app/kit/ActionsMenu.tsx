import { ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import type { ReactNode } from 'react';

/** Something the user can do from a menu of the kit (a form dialog's title, a list row's "more"). */
export interface KitAction {
  label: string;
  onClick: () => void;
  icon?: ReactNode;
  disabled?: boolean;
  /** Deleting, revoking: worded in the error colour. */
  danger?: boolean;
}

/** The menu of `actions` under `anchor` (open while there is one); choosing one closes it first. */
export function ActionsMenu({ anchor, onClose, actions }: { anchor: HTMLElement | null; onClose: () => void; actions: KitAction[] }) {
  return (
    <Menu anchorEl={anchor} open={!!anchor} onClose={onClose}>
      {actions.map((a) => {
        const colour = a.danger ? { color: 'error.main' } : undefined;
        return (
          <MenuItem
            key={a.label}
            disabled={a.disabled}
            onClick={() => {
              onClose();
              a.onClick();
            }}
            sx={colour}
          >
            {a.icon ? <ListItemIcon sx={colour}>{a.icon}</ListItemIcon> : null}
            <ListItemText>{a.label}</ListItemText>
          </MenuItem>
        );
      })}
    </Menu>
  );
}
