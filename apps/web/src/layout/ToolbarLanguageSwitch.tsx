import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useLocaleState } from 'react-admin';
import { PROFILE_KEY } from '../app/authProvider';
import { http } from '../app/http';
import { isAppLocale } from '../i18n';
import { LanguageSwitch } from './LanguageSwitch';

/** The toolbar's en/ru switch: changes the language now, remembers it, and saves it to the profile. */
export function ToolbarLanguageSwitch() {
  const [locale, setLocale] = useLocaleState();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (next: string) => http.request('/profile', { method: 'PATCH', body: { locale: next } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: PROFILE_KEY }),
    onError: (error) => console.error(error),
  });
  return (
    <LanguageSwitch
      value={isAppLocale(locale) ? locale : 'en'}
      onChange={(next) => {
        setLocale(next);
        save.mutate(next);
      }}
    />
  );
}
