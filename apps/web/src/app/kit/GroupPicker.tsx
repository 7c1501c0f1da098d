import {
  AutocompleteArrayInput,
  type AutocompleteArrayInputProps,
  AutocompleteInput,
  type AutocompleteInputProps,
  ReferenceArrayInput,
  ReferenceInput,
} from 'react-admin';

/** The API path of groups (the spec's "domains"). */
export const GROUPS_API = 'domains';

// Server-side search: the name contains what was typed.
const byName = (q: string) => (q ? { 'name@has': q } : {});
/** A group as pickers show it: its path from the top group the user sees ("Site › Building A › Apt 3"), and its logical address. */
export const groupText = (g: { name?: string; logic_address?: number | null; path_names?: string[] } | undefined) => {
  if (!g) return '';
  const name = g.path_names?.length ? g.path_names.join(' › ') : (g.name ?? '');
  return g.logic_address === null || g.logic_address === undefined ? name : `${name} (${g.logic_address})`;
};
/**
 * Pickers show each group by its path ("Site › Building A"), so they list groups in tree order
 * (each before its subgroups); by name they read "Site › A › Apt 1", "Site › A", "Site".
 */
const TREE_ORDER = { field: 'path', order: 'ASC' } as const;
/** Pickers ask for the path of every group they list. */
const WITH_PATHS = { meta: { with: ['path_names'] } };

/** One group, searched on the server (`parent_id`, `domain_id`…). */
export function GroupInput({ source, label, ...props }: { source: string; label: string } & Omit<AutocompleteInputProps, 'source'>) {
  return (
    <ReferenceInput source={source} reference={GROUPS_API} perPage={25} sort={TREE_ORDER} queryOptions={WITH_PATHS}>
      <AutocompleteInput label={label} optionText={groupText} filterToQuery={byName} {...props} />
    </ReferenceInput>
  );
}

/** Several groups, searched on the server (a user's `domains`). */
export function GroupsInput({ source, label, ...props }: { source: string; label: string } & Omit<AutocompleteArrayInputProps, 'source'>) {
  return (
    <ReferenceArrayInput source={source} reference={GROUPS_API} perPage={25} sort={TREE_ORDER} queryOptions={WITH_PATHS}>
      <AutocompleteArrayInput label={label} optionText={groupText} filterToQuery={byName} {...props} />
    </ReferenceArrayInput>
  );
}
