import type { ThemeOptions } from '@mui/material/styles';

type PageItem = 'page' | 'first' | 'last' | 'next' | 'previous' | 'start-ellipsis' | 'end-ellipsis';

function russianPageLabel(type: PageItem, page: number | null, selected?: boolean): string {
  if (type === 'page') return selected ? `${page} страница` : `Перейти на ${page} страницу`;
  if (type === 'first') return 'Перейти на первую страницу';
  if (type === 'last') return 'Перейти на последнюю страницу';
  if (type === 'next') return 'Перейти на следующую страницу';
  return 'Перейти на предыдущую страницу';
}

/**
 * MUI's own Russian texts (its ruRU pack's, for the components the console uses). MUI publishes its
 * packs only as one module of every language (`@mui/material/locale`), which alone put the sign-in
 * page over its 250 KB budget, and no single pack can be imported by itself: so the few are here,
 * in a module only the console (App) loads.
 */
const russianComponents: ThemeOptions['components'] = {
  MuiBreadcrumbs: { defaultProps: { expandText: 'Показать полный путь' } },
  MuiTablePagination: {
    defaultProps: {
      getItemAriaLabel: (type) => russianPageLabel(type, null),
      labelRowsPerPage: 'Строк на странице:',
      labelDisplayedRows: ({ from, to, count }) => `${from}–${to} из ${count !== -1 ? count : `более чем ${to}`}`,
    },
  },
  MuiAutocomplete: {
    defaultProps: {
      clearText: 'Очистить',
      closeText: 'Закрыть',
      loadingText: 'Загрузка…',
      noOptionsText: 'Нет доступных вариантов',
      openText: 'Открыть',
    },
  },
  MuiAlert: { defaultProps: { closeText: 'Закрыть' } },
  MuiPagination: { defaultProps: { 'aria-label': 'Навигация по страницам', getItemAriaLabel: russianPageLabel } },
};

/**
 * A theme speaking the console's language: MUI's own hidden labels (pagination's "Go to previous
 * page", an autocomplete's "Open" and "Clear", an alert's "Close") are MUI's, not react-admin's
 * catalogue's; English ones are MUI's defaults. The signed-out pages show none of them.
 */
export function localisedTheme(options: ThemeOptions, locale: string): ThemeOptions {
  if (locale !== 'ru') return options;
  return { ...options, components: { ...russianComponents, ...options.components } };
}
