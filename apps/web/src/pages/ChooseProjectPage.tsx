import FolderIcon from '@mui/icons-material/FolderOutlined';
import { Alert, List, ListItemButton, ListItemIcon, ListItemText, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useMemo } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { enter } from '../app/auth';
import { safeRedirect } from '../app/redirect';
import { pendingProjects } from '../app/session';
import { PageLink, PublicPage } from './PublicPage';

/** Shown when a login belongs to several projects: each session opens one (spec core §4). */
export function ChooseProjectPage() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const location = useLocation();
  const { sessions, remember } = useMemo(() => pendingProjects.get(), []);

  return (
    <PublicPage title={translate('auth.choose_project')}>
      {sessions.length === 0 ? (
        <Alert severity="info">
          {translate('auth.no_projects')} <PageLink to="/login">{translate('auth.to_login')}</PageLink>
        </Alert>
      ) : (
        <>
          <Typography color="text.secondary">{translate('auth.choose_project_hint')}</Typography>
          <List aria-label={translate('auth.choose_project')}>
            {sessions.map((s) => (
              <ListItemButton
                key={s.project?.id ?? s.token}
                onClick={() => {
                  enter(s, remember);
                  navigate(safeRedirect(location.search) ?? '/home', { replace: true });
                }}
              >
                <ListItemIcon>
                  <FolderIcon />
                </ListItemIcon>
                <ListItemText primary={s.project?.name ?? s.project?.uid} secondary={s.project?.uid} />
              </ListItemButton>
            ))}
          </List>
        </>
      )}
    </PublicPage>
  );
}
