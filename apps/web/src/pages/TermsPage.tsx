import { Alert, Box, CircularProgress } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useEffect, useState } from 'react';
import { useAppLocale } from '../app/locale';
import { PageLink, PublicPage } from './PublicPage';

// The document comes unstyled; give it the console's type instead of the browser's serif.
const TERMS_STYLE =
  '<style>body{margin:0;font:15px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222}h1{font-size:1.3em;margin-top:0}</style>';

/** Terms and conditions in the current language (GET /terms/<locale>.html), shown sandboxed. */
export function TermsPage() {
  const translate = useTranslate();
  const locale = useAppLocale();
  const [html, setHtml] = useState<string | null | false>(null);
  useEffect(() => {
    let live = true;
    setHtml(null);
    fetch(`/api/v0/terms/${locale}.html`)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`http ${r.status}`))))
      .then((text) => live && setHtml(text))
      .catch((err) => {
        console.error(err);
        if (live) setHtml(false);
      });
    return () => {
      live = false;
    };
  }, [locale]);
  return (
    <PublicPage wide title={translate('terms.title')} footer={<PageLink to="/login">{translate('auth.to_login')}</PageLink>}>
      {html === null ? (
        <CircularProgress aria-label={translate('app.loading')} />
      ) : html === false ? (
        <Alert severity="warning">{translate('terms.unavailable')}</Alert>
      ) : (
        <Box
          component="iframe"
          title={translate('terms.title')}
          sandbox=""
          srcDoc={`${TERMS_STYLE}${html}`}
          sx={{ width: '100%', height: '60vh', border: 0, bgcolor: '#fff', borderRadius: 1 }}
        />
      )}
    </PublicPage>
  );
}
