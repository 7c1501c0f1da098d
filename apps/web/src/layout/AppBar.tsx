import Brightness4Icon from '@mui/icons-material/Brightness4';
import PersonIcon from '@mui/icons-material/Person';
import { Box, ListItemIcon, ListItemText, MenuItem, Stack, Switch, useMediaQuery } from '@mui/material';
import {
  Logout,
  MenuItemLink,
  AppBar as RaAppBar,
  TitlePortal,
  ToggleThemeButton,
  UserMenu,
  useTheme,
  useTranslate,
  useUserMenu,
} from 'react-admin';
import { Breadcrumbs } from './Breadcrumbs';
import { DocumentTitle } from './DocumentTitle';
import { NotificationBell } from './NotificationBell';
import { ToolbarLanguageSwitch } from './ToolbarLanguageSwitch';

function ProfileItem() {
  const translate = useTranslate();
  const menu = useUserMenu();
  return (
    <MenuItemLink to="/profile" primaryText={translate('menu.items.profile')} leftIcon={<PersonIcon />} onClick={() => menu?.onClose()} />
  );
}

/** On a phone the theme's switch is here, not in the bar: the page's title needs the bar's width. */
function ThemeItem() {
  const translate = useTranslate();
  const [theme, setTheme] = useTheme();
  const dark = theme === 'dark';
  return (
    <MenuItem role="menuitemcheckbox" aria-checked={dark} onClick={() => setTheme(dark ? 'light' : 'dark')}>
      <ListItemIcon>
        <Brightness4Icon fontSize="small" />
      </ListItemIcon>
      <ListItemText>{translate('toolbar.dark_mode')}</ListItemText>
      <Switch edge="end" size="small" checked={dark} tabIndex={-1} slotProps={{ input: { 'aria-hidden': true } }} />
    </MenuItem>
  );
}

function ProfileMenu() {
  const phone = useMediaQuery((theme) => theme.breakpoints.down('sm'));
  return (
    <UserMenu label="toolbar.profile_menu">
      <ProfileItem />
      {phone ? <ThemeItem /> : null}
      <Logout />
    </UserMenu>
  );
}

/** The toolbar: title, breadcrumbs, language, bell, theme, profile menu (spec core §2). */
export function AppBar() {
  return (
    // Always on: the bell, the language and the profile menu stay in reach on long pages.
    <RaAppBar
      alwaysOn
      color="primary"
      userMenu={<ProfileMenu />}
      toolbar={
        // On a phone the buttons sit closer and the theme's switch moves into the profile menu, so a
        // one-word Russian title ("Идентификаторы", "Пользователи") keeps its width.
        <Stack direction="row" spacing={{ xs: 0, sm: 1 }} sx={{ alignItems: 'center' }}>
          <ToolbarLanguageSwitch />
          <NotificationBell />
          <Box sx={{ display: { xs: 'none', sm: 'flex' } }}>
            <ToggleThemeButton />
          </Box>
        </Stack>
      }
    >
      <Box sx={{ flex: 1, minWidth: 0, display: 'flex', alignItems: 'baseline', gap: 2, overflow: 'hidden' }}>
        {/* The page's title is its one h1 (each page sets it with react-admin's <Title>) and the browser's title. */}
        {/* On a phone the title wraps onto a second line in a smaller size rather than being cut. */}
        <TitlePortal
          variant="h6"
          component="h1"
          sx={{
            flex: '0 1 auto',
            whiteSpace: { xs: 'normal', sm: 'nowrap' },
            fontSize: { xs: '1rem', sm: '1.25rem' },
            lineHeight: { xs: 1.2, sm: 1.6 },
            overflowWrap: 'anywhere',
          }}
        />
        <DocumentTitle />
        <Breadcrumbs />
      </Box>
    </RaAppBar>
  );
}
