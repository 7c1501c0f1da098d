/** The ids of an `available_roles` value, whether it holds role objects (as read) or ids (as picked). */
export function roleIds(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((v) => (v && typeof v === 'object' ? Number((v as { id: unknown }).id) : Number(v)))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** A role form's values as the API takes them. */
export function roleBody(values: Record<string, unknown>) {
  const description = typeof values.description === 'string' ? values.description.trim() : '';
  return {
    name: String(values.name ?? '').trim(),
    description: description === '' ? null : description,
    permissions: Array.isArray(values.permissions) ? values.permissions.filter((c): c is string => typeof c === 'string') : [],
    available_roles: roleIds(values.available_roles),
    two_factor_required: values.two_factor_required === true,
  };
}

/** What a gentle bulk delete says about a role still in use: "Role 3 is used by ann, bob and 4 more". */
export function describeDependencies(
  dependencies: readonly { id: number; users_count: number; users: readonly { login: string }[] }[],
  translate: (key: string, options?: Record<string, unknown>) => string,
): string | null {
  if (dependencies.length === 0) return null;
  return dependencies
    .map((d) => {
      const names = d.users.map((u) => u.login).join(', ');
      const more = d.users_count - d.users.length;
      const users = more > 0 ? translate('roles.and_more', { users: names, smart_count: more }) : names;
      return translate('roles.in_use_by', { id: d.id, users });
    })
    .join('; ');
}
