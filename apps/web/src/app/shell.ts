import { useLayoutEffect } from 'react';

/**
 * The shell is index.html's first paint (the sign-in page or the console's loading state, drawn
 * before any script). It lies over the page until the page that replaces it is there: removed in a
 * layout effect, so the browser paints the page and not the shell in the same frame.
 */
export function dropShell(): void {
  document.getElementById('shell')?.remove();
}

/** Removes the shell once the calling component is on screen. */
export function useDropShell(): void {
  useLayoutEffect(dropShell, []);
}

/**
 * The pages that replace the shell remove it themselves; should a page that draws in its place ever
 * forget, the shell still goes after this long instead of covering it for good.
 */
export const SHELL_LAST_MS = 8000;
