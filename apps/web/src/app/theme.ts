import type { ThemeOptions } from '@mui/material/styles';
import { useEffect, useState } from 'react';
import { loadRussian } from '../i18n';

/** Width of the side menu, and of its minified (icons only) mode. */
export const MENU_WIDTH = 250;
export const MENU_CLOSED_WIDTH = 56;

const PRIMARY = '#1f2a44';
const ACCENT = '#e91e63';

const shared = {
  shape: { borderRadius: 8 },
  typography: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
  sidebar: { width: MENU_WIDTH, closedWidth: MENU_CLOSED_WIDTH },
  components: {
    MuiButton: { defaultProps: { disableElevation: true }, styleOverrides: { root: { textTransform: 'none' } } },
    MuiTab: { styleOverrides: { root: { textTransform: 'none' } } },
  },
} as const;

/** Theme of spec core §9: a dark primary colour and a pink accent. */
export const lightTheme: ThemeOptions = {
  ...shared,
  palette: {
    mode: 'light',
    primary: { main: PRIMARY },
    secondary: { main: ACCENT },
    // MUI's default orange and light blue carry white text at 3:1 and 4:1, under WCAG's 4.5:1 for small
    // text (status chips, alerts): their darker shades keep the hue and pass.
    warning: { main: '#b45309' },
    info: { main: '#0369a1' },
    background: { default: '#f4f5f8' },
  },
};

export const darkTheme: ThemeOptions = {
  ...shared,
  palette: {
    mode: 'dark',
    primary: { main: '#90a4d4' },
    secondary: { main: '#f06292' },
    background: { default: '#12151c', paper: '#1b2029' },
  },
};

type MuiComponents = ThemeOptions['components'];

/**
 * MUI's own texts in the console's language (pagination's "Go to previous page", an autocomplete's
 * "Open", "Clear" and "No options", an alert's "Close"): they come from MUI's locale packs, not from
 * react-admin's catalogue. English is MUI's default; another language's pack is fetched when that
 * language is chosen, so the sign-in page in English downloads none (its 250 KB budget).
 */
const MUI_PACKS: Record<string, () => Promise<MuiComponents>> = {
  // With the console's own Russian texts, so a theme built once the pack is here labels in Russian too.
  ru: () => Promise.all([import('@mui/material/locale'), loadRussian()]).then(([{ ruRU }]) => ruRU.components),
};
const loadedPacks = new Map<string, MuiComponents>();

/** MUI's texts for `locale` once its pack is here (undefined before, and for English). */
export function useMuiLocalePack(locale: string): MuiComponents | undefined {
  const [, setLoaded] = useState(0);
  useEffect(() => {
    const load = MUI_PACKS[locale];
    if (!load || loadedPacks.has(locale)) return;
    let live = true;
    load()
      .then((components) => {
        loadedPacks.set(locale, components);
        if (live) setLoaded((n) => n + 1);
      })
      // Not fetched (offline, a new release's files): MUI's few hidden labels stay in English.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [locale]);
  return loadedPacks.get(locale);
}

/**
 * A theme with MUI's texts of a locale pack and a name for every spinner and bar; the console's own
 * component settings win. Both themes need the name: `<Admin>` wraps its pages in its own theme, so
 * react-admin's loading page (shown while a signed-in route checks the session) drew an unnamed
 * progress bar under the outer one's defaults (axe: aria-progressbar-name, target :root).
 */
export function localisedTheme(options: ThemeOptions, pack: MuiComponents | undefined, busyLabel: string): ThemeOptions {
  const named = { 'aria-label': busyLabel };
  return {
    ...options,
    components: {
      ...pack,
      MuiCircularProgress: { defaultProps: named },
      MuiLinearProgress: { defaultProps: named },
      ...options.components,
    },
  };
}
