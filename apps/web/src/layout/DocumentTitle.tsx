import { useEffect } from 'react';
import { useTranslate } from 'react-admin';

/** The element react-admin's `<Title>` renders each page's title into (TitlePortal). */
export const PAGE_TITLE_ID = 'react-admin-title';

/**
 * Keeps the browser's title in step with the page's own (the `h1` of the app bar, which every page
 * fills through react-admin's `<Title>`): "Users — Atrium", in the console's language, with no
 * per-page code.
 */
export function DocumentTitle() {
  const translate = useTranslate();
  const app = translate('app.name');
  useEffect(() => {
    const heading = document.getElementById(PAGE_TITLE_ID);
    if (!heading) return;
    const sync = () => {
      const page = heading.textContent?.trim();
      document.title = page ? `${page} — ${app}` : app;
    };
    sync();
    const watch = new MutationObserver(sync);
    watch.observe(heading, { childList: true, subtree: true, characterData: true });
    return () => watch.disconnect();
  }, [app]);
  return null;
}
