import { IDENTIFIER_TYPES, type Identifier } from '@atrium/contract';
import { Chip } from '@mui/material';
import { useLocaleState, useRecordContext, useTranslate } from 'react-admin';
import { formatDateTime } from '../../app/format';
import { useSessionData } from '../../app/SessionContext';

export const typeChoices = IDENTIFIER_TYPES.map((id) => ({ id, name: `identifiers.types.${id}` }));

/** An instant in the viewer's language and local time. */
export function useDateTimeText(): (iso: string | null | undefined) => string {
  const [locale] = useLocaleState();
  return (iso) => (iso ? formatDateTime(iso, locale) : '');
}

/** Permission codes of identifiers (server access.service); one record's edit and delete come with it (`can_edit`, `can_delete`). */
export function useIdentifierRights() {
  const { can } = useSessionData();
  return {
    create: can('can_create_identifiers'),
    edit: can('can_edit_identifiers'),
    delete: can('can_delete_identifiers'),
    export: can('can_export_identifiers'),
    // An import creates identifiers, so the server asks for both.
    import: can('can_import_identifiers') && can('can_create_identifiers'),
  };
}

/** The revoked chip of a row: who sees it knows at once the identifier opens nothing any more. */
export function RevokedField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const dateText = useDateTimeText();
  const record = useRecordContext<Identifier>();
  if (!record?.is_revoked) return null;
  return (
    <Chip
      size="small"
      color="error"
      title={record.revoked_at ? translate('identifiers.revoked_at', { date: dateText(record.revoked_at) }) : undefined}
      label={translate('identifiers.revoked')}
    />
  );
}
