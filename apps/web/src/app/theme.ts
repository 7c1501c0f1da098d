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
