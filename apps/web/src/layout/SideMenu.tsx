import ExpandLessIcon from '@mui/icons-material/ExpandLess';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Box, Collapse, ListItemText, MenuItem } from '@mui/material';
import { useState } from 'react';
import { Menu, MenuItemLink, useSidebarState, useTranslate } from 'react-admin';
import { useLocation } from 'react-router-dom';
import { isAvailable } from '../app/areas';
import { findMenuEntry, menuPathOf, visibleMenu } from '../app/menu-rules';
import { useSessionData } from '../app/SessionContext';
import { readJson, STORAGE_KEYS, write } from '../app/storage';
import { ConversationsMenuIcon } from '../resources/conversations/unread';
import { menuIcon } from './menu-icons';

type Expanded = Record<string, boolean>;

/**
 * The side menu of spec core §2: the sections of menu-rules.ts the user may see, each collapsible
 * (expanded state in local storage). In minified mode (react-admin's closed sidebar) only the
 * entries' icons show, with their names as tooltips.
 */
export function SideMenu() {
  const translate = useTranslate();
  const [open] = useSidebarState();
  const { ruleContext } = useSessionData();
  const [expanded, setExpanded] = useState<Expanded>(() => readJson<Expanded>(STORAGE_KEYS.sideMenu) ?? {});
  const sections = visibleMenu(ruleContext, isAvailable);
  // A page whose address is not under its entry's (e.g. /integration/add): its entry is highlighted too.
  const { pathname } = useLocation();
  const aliased = menuPathOf(pathname) !== pathname ? findMenuEntry(pathname)?.item.path : undefined;

  const toggle = (code: string) =>
    setExpanded((prev) => {
      const next = { ...prev, [code]: !(prev[code] ?? true) };
      write(STORAGE_KEYS.sideMenu, next);
      return next;
    });

  // MUI's menu items live in one MenuList (react-admin's Menu, which also sets the open and
  // minified widths); the section headers are items too, so the keyboard walks through them.
  return (
    <Box component="nav" aria-label={translate('menu.label')} sx={{ pt: 1, pb: 8 }}>
      <Menu dense>
        {sections.map((section) => {
          const isOpen = !open || (expanded[section.code] ?? true);
          const name = translate(section.label);
          return (
            <Box key={section.code} role="group" aria-label={name}>
              {open ? (
                <MenuItem
                  onClick={() => toggle(section.code)}
                  aria-expanded={isOpen}
                  aria-label={translate(isOpen ? 'menu.collapse_section' : 'menu.expand_section', { section: name })}
                  // Long section names (Russian ones) wrap instead of running under the chevron.
                  sx={{ py: 0.5, color: 'text.secondary', whiteSpace: 'normal', gap: 1 }}
                >
                  <ListItemText
                    primary={name}
                    slotProps={{ primary: { variant: 'overline', sx: { lineHeight: 1.5, fontWeight: 600, display: 'block', py: 0.25 } } }}
                  />
                  {isOpen ? <ExpandLessIcon fontSize="small" /> : <ExpandMoreIcon fontSize="small" />}
                </MenuItem>
              ) : null}
              <Collapse in={isOpen} timeout="auto" unmountOnExit>
                {section.items.map((item) => {
                  const Icon = menuIcon(item.path);
                  // Conversations: the number of unread ones on the icon, kept live (layout/RealtimeBridge).
                  const icon = item.path === '/conversations' ? <ConversationsMenuIcon Icon={Icon} /> : <Icon />;
                  return (
                    <MenuItemLink
                      key={item.path}
                      to={item.path}
                      primaryText={translate(item.label)}
                      leftIcon={icon}
                      {...(aliased === item.path ? { className: 'RaMenuItemLink-active', 'aria-current': 'page' as const } : {})}
                    />
                  );
                })}
              </Collapse>
            </Box>
          );
        })}
      </Menu>
    </Box>
  );
}
