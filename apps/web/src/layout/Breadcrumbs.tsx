import { Link, Breadcrumbs as MuiBreadcrumbs, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { findMenuEntry, menuPathOf } from '../app/menu-rules';

interface Crumb {
  label: string;
  to?: string;
}

/** Where the page is: section › entry › new/edit, from the menu data. */
export function useCrumbs(): Crumb[] {
  const translate = useTranslate();
  const { pathname } = useLocation();
  if (pathname === '/profile') return [{ label: translate('menu.items.profile') }];
  const found = findMenuEntry(pathname);
  if (!found) return [];
  const crumbs: Crumb[] = [{ label: translate(found.section.label) }, { label: translate(found.item.label), to: found.item.path }];
  const rest = menuPathOf(pathname).slice(found.item.path.length);
  if (rest === '/settings' && found.item.path === '/notifications') crumbs.push({ label: translate('menu.items.notification_settings') });
  else if (rest === '/add' || rest === '/create') crumbs.push({ label: translate('toolbar.add') });
  else if (rest === '/search') crumbs.push({ label: translate('toolbar.search') });
  else if (/^\/[^/]+\/edit$/.test(rest) || /^\/[^/]+$/.test(rest)) crumbs.push({ label: translate('toolbar.edit') });
  return crumbs;
}

export function Breadcrumbs() {
  const translate = useTranslate();
  const crumbs = useCrumbs();
  if (crumbs.length === 0) return null;
  return (
    <MuiBreadcrumbs
      aria-label={translate('toolbar.breadcrumbs')}
      sx={{ color: 'inherit', opacity: 0.8, fontSize: 13, display: { xs: 'none', md: 'flex' }, '& .MuiBreadcrumbs-separator': { mx: 0.5 } }}
    >
      {crumbs.map((c, i) =>
        c.to && i < crumbs.length - 1 ? (
          <Link key={c.label} component={RouterLink} to={c.to} color="inherit" underline="hover">
            {c.label}
          </Link>
        ) : (
          <Typography
            key={c.label}
            color="inherit"
            sx={{ fontSize: 'inherit' }}
            aria-current={i === crumbs.length - 1 ? 'page' : undefined}
          >
            {c.label}
          </Typography>
        ),
      )}
    </MuiBreadcrumbs>
  );
}
