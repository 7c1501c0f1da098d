import { LinearProgress } from '@mui/material';
import { useEffect, useState } from 'react';
import { useLoading, useTranslate } from 'react-admin';
import { usePendingLoads } from '../app/pending-loads';

/** Quick answers draw nothing: the bar shows only what a person would otherwise wait for unseen. */
const SHOW_AFTER_MS = 150;
/**
 * Once shown, how long the bar stays after the wait ends: a page's code arrives and only then asks
 * for its data, and between the two nothing is loading for a moment, so the bar blinked off and on
 * in the middle of one wait.
 */
const HIDE_AFTER_MS = 200;

/**
 * A thin bar along the top while the page's data or code is on its way: until then the previous
 * page stays up (a route change keeps it while the next one loads) and nothing said "loading".
 */
export function LoadingBar() {
  const translate = useTranslate();
  const fetching = useLoading();
  const chunks = usePendingLoads();
  const busy = fetching || chunks > 0;
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (busy === shown) return;
    const timer = setTimeout(() => setShown(busy), busy ? SHOW_AFTER_MS : HIDE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [busy, shown]);
  // Always there, hidden when idle: a bar taken out of the page while a screen reader or a checker
  // reads it leaves them a node that is gone (axe then reports an unnamed progress bar). Hidden, it
  // stands still: a hidden indeterminate bar still runs its animation, which moves the bar's edges,
  // so an idle console laid out and painted 60 frames a second for nothing.
  return (
    <LinearProgress
      color="secondary"
      variant={shown ? 'indeterminate' : 'determinate'}
      value={0}
      aria-label={translate('app.loading')}
      aria-hidden={!shown}
      data-testid={shown ? 'loading-bar' : undefined}
      sx={{
        position: 'fixed',
        // Along the toolbar's lower edge (its dense height, 48 px at every width): the bar is in the
        // page's content, whose stacking level (react-admin's z-index 2) is under the toolbar's, so at
        // the very top the toolbar covered it and nobody ever saw it.
        top: 48,
        left: 0,
        right: 0,
        height: 3,
        zIndex: (t) => t.zIndex.appBar + 1,
        visibility: shown ? 'visible' : 'hidden',
      }}
    />
  );
}
