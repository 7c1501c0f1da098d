/** A country as GET /countries answers it: its English name, and its names by language. */
export interface NamedCountry {
  code: string;
  name: string;
  names?: Partial<Record<string, string>>;
}

/**
 * Countries named in the console's language and sorted by that name: the browser's own everyday
 * name (Intl.DisplayNames, CLDR: "Russia" rather than "Russian Federation"), else the server's name
 * in that language (i18n-iso-countries), else the English one.
 */
export function localizedCountries<T extends NamedCountry>(countries: readonly T[], locale: string): T[] {
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' });
  } catch {
    names = undefined;
  }
  const named = countries.map((c) => {
    let name: string | undefined;
    try {
      name = names?.of(c.code);
    } catch {
      name = undefined;
    }
    return { ...c, name: name ?? c.names?.[locale.slice(0, 2)] ?? c.name };
  });
  return named.sort((a, b) => a.name.localeCompare(b.name, locale));
}
