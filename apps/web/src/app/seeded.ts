import { BUILTIN_ROLE_NAME, DEFAULT_DOMAIN_TYPES } from '@atrium/contract';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/**
 * Rows every new project is created with are stored in English (the database does not know who will
 * read them); the console shows them in the reader's language, keyed by what cannot change (a domain
 * type's code, a role being the built-in one), for as long as they keep the name they were made with.
 * A name an operator typed is shown as typed.
 */
export function domainTypeName(t: { type: number; name: string } | null | undefined, translate: Translate): string {
  if (!t) return '';
  const seeded = DEFAULT_DOMAIN_TYPES.find((d) => d.type === t.type);
  return seeded && seeded.name === t.name ? translate(`seeded.domain_types.${t.type}`) : t.name;
}

export function roleName(r: { name: string; is_builtin?: boolean | null } | null | undefined, translate: Translate): string {
  if (!r) return '';
  return r.name === BUILTIN_ROLE_NAME && r.is_builtin !== false ? translate('seeded.roles.administrator') : r.name;
}
