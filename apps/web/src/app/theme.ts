import type { ThemeOptions } from '@mui/material/styles';

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

/**
 * A theme speaking the console's language: MUI's own hidden labels (pagination's "Go to previous
 * page", an autocomplete's "Open" and "Clear", an alert's "Close") come from its locale pack, not
 * from react-admin's catalogue.
 */
export function localisedTheme(options: ThemeOptions, locale: string): ThemeOptions {
  // MUI's own locale packs come as one module of every language, which put the sign-in page over its
  // 250 KB budget; the few MUI labels the console shows are given through react-admin's catalogue.
  void locale;
  return options;
}
