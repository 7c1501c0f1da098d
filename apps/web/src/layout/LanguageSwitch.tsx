import { ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useTranslate } from 'ra-core';
import { APP_LOCALES, type AppLocale, isAppLocale } from '../i18n';

/** The en/ru switch: buttons named by their language so either can be pressed by name. */
export function LanguageSwitch({
  value,
  onChange,
  size = 'small',
}: {
  value: AppLocale;
  onChange: (locale: AppLocale) => void;
  size?: 'small' | 'medium';
}) {
  const translate = useTranslate();
  return (
    <ToggleButtonGroup
      exclusive
      size={size}
      value={value}
      aria-label={translate('toolbar.language')}
      onChange={(_, next) => {
        if (isAppLocale(next)) onChange(next);
      }}
      // Both places it sits (toolbar, sign-in background) are dark: the chosen language is lit, not darkened.
      sx={{
        '& .MuiToggleButton-root': { color: 'inherit', borderColor: 'currentColor', py: 0.25, px: 1, opacity: 0.75 },
        '& .MuiToggleButton-root.Mui-selected, & .MuiToggleButton-root.Mui-selected:hover': {
          color: 'inherit',
          bgcolor: 'rgba(255, 255, 255, 0.24)',
          fontWeight: 700,
          opacity: 1,
        },
      }}
    >
      {APP_LOCALES.map((l) => (
        <ToggleButton key={l} value={l} lang={l} aria-label={translate(`toolbar.languages.${l}`)}>
          {l.toUpperCase()}
        </ToggleButton>
      ))}
    </ToggleButtonGroup>
  );
}
