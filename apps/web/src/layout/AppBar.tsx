import PersonIcon from '@mui/icons-material/Person';
import { Box, Stack } from '@mui/material';
import { Logout, MenuItemLink, AppBar as RaAppBar, TitlePortal, ToggleThemeButton, UserMenu, useTranslate, useUserMenu } from 'react-admin';
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

function ProfileMenu() {
  return (
    <UserMenu label="toolbar.profile_menu">
      <ProfileItem />
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
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <ToolbarLanguageSwitch />
          <NotificationBell />
          <ToggleThemeButton />
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
