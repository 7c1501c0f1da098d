import { Box, Card, CardContent, Link, Stack, Typography } from '@mui/material';
import { useTranslate } from 'ra-core';
import { type ReactNode, useEffect } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { setAppLocale, useAppLocale } from '../app/locale';
import { useDropShell } from '../app/shell';
import { LanguageSwitch } from '../layout/LanguageSwitch';
import { usePublicSettings } from './usePublicSettings';

/** The frame of the signed-out pages: brand, language switch, one card. */
export function PublicPage({ title, children, footer, wide }: { title: string; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  const translate = useTranslate();
  const locale = useAppLocale();
  // The management company's name and logo (project settings, white-label tab) when it has them.
  const brand = usePublicSettings()?.white_label;
  useDropShell();
  useEffect(() => {
    document.title = `${title} · ${translate('app.name')}`;
  }, [title, translate]);
  return (
    <Box
      component="main"
      sx={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        p: 2,
        background: (t) =>
          t.palette.mode === 'dark'
            ? 'linear-gradient(160deg, #12151c 0%, #1f2a44 100%)'
            : 'linear-gradient(160deg, #1f2a44 0%, #3b4a6b 60%, #e91e63 140%)',
      }}
    >
      <Stack
        direction="row"
        sx={{ alignItems: 'center', justifyContent: 'space-between', width: '100%', maxWidth: wide ? 880 : 440, mb: 2, color: '#fff' }}
      >
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', minWidth: 0 }}>
          {brand?.logo_url ? (
            <Box
              component="img"
              src={brand.logo_url}
              alt={brand.name ?? translate('app.name')}
              sx={{ height: 40, maxWidth: 160, objectFit: 'contain' }}
            />
          ) : null}
          <Typography variant="h5" component="p" sx={{ fontWeight: 700, letterSpacing: 0.5, overflowWrap: 'anywhere' }}>
            {brand?.name ?? translate('app.name')}
          </Typography>
        </Stack>
        <LanguageSwitch value={locale} onChange={setAppLocale} />
      </Stack>
      <Card sx={{ width: '100%', maxWidth: wide ? 880 : 440 }} elevation={8}>
        <CardContent sx={{ p: { xs: 2, sm: 4 } }}>
          <Typography variant="h5" component="h1" gutterBottom>
            {title}
          </Typography>
          {children}
        </CardContent>
      </Card>
      {/* On the dark backdrop, links are white like the brand above the card. */}
      {footer ? <Box sx={{ mt: 2, color: '#fff', '& a': { color: '#fff' } }}>{footer}</Box> : null}
    </Box>
  );
}

/** A link to another signed-out page. */
export function PageLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    // The accent's darker (lighter in dark mode) shade: its main one falls short of 4.5:1 on the card.
    <Link
      component={RouterLink}
      to={to}
      underline="hover"
      sx={{ color: (t) => (t.palette.mode === 'dark' ? t.palette.secondary.light : t.palette.secondary.dark) }}
    >
      {children}
    </Link>
  );
}
