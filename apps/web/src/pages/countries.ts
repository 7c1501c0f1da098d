/** A country as GET /countries answers it: the server names it in English. */
export interface NamedCountry {
  code: string;
  name: string;
}

/**
 * Countries named in the console's language and sorted by that name. The browser's own region names
 * (Intl.DisplayNames, CLDR data) are used rather than a second list of 200 names to keep in step;
 * the server's English name stays when the browser has none for a code.
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
    return { ...c, name: name ?? c.name };
  });
  return named.sort((a, b) => a.name.localeCompare(b.name, locale));
}
