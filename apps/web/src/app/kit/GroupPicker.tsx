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
const groupText = (g: { name?: string; logic_address?: number | null } | undefined) =>
  g ? (g.logic_address === null || g.logic_address === undefined ? (g.name ?? '') : `${g.name} (${g.logic_address})`) : '';

/** One group, searched on the server (`parent_id`, `domain_id`…). */
export function GroupInput({ source, label, ...props }: { source: string; label: string } & Omit<AutocompleteInputProps, 'source'>) {
  return (
    <ReferenceInput source={source} reference={GROUPS_API} perPage={25} sort={{ field: 'name', order: 'ASC' }}>
      <AutocompleteInput label={label} optionText={groupText} filterToQuery={byName} {...props} />
    </ReferenceInput>
  );
}

/** Several groups, searched on the server (a user's `domains`). */
export function GroupsInput({ source, label, ...props }: { source: string; label: string } & Omit<AutocompleteArrayInputProps, 'source'>) {
  return (
    <ReferenceArrayInput source={source} reference={GROUPS_API} perPage={25} sort={{ field: 'name', order: 'ASC' }}>
      <AutocompleteArrayInput label={label} optionText={groupText} filterToQuery={byName} {...props} />
    </ReferenceArrayInput>
  );
}
