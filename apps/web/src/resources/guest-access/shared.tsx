import { ERRORS, GUEST_IDENTIFIER_NAME, type Identifier } from '@atrium/contract';
import { Chip } from '@mui/material';
import { useState } from 'react';
import { useLocaleState, useNotify, useRecordContext, useTranslate } from 'react-admin';
import { errorText, type Translate } from '../../app/errors';
import { formatDateTime } from '../../app/format';
import { useSessionData } from '../../app/SessionContext';

/** Who may grant guests (server guest-access.ts); they edit the guests they granted. */
export function useCanGrant(): boolean {
  return useSessionData().can('can_create_guest_identifiers');
}

/**
 * Whether the caller may revoke or delete this guest key (server guest-access.ts `ownGuest`): one
 * they granted, or any with "view all" and the identifiers' edit (revoke) or delete permission.
 */
export function useGuestRights(): { revoke: (i: Identifier) => boolean; remove: boolean } {
  const { profile, can } = useSessionData();
  const all = can('can_view_all_identifiers');
  const granter = can('can_create_guest_identifiers');
  return {
    revoke: (i) => (granter && i.created_by === profile.id) || (all && can('can_edit_identifiers')),
    remove: granter || (all && can('can_delete_identifiers')),
  };
}

/**
 * An identifier's name as the viewer reads it: a guest pass granted without a name is stored with
 * the spec's fixed English name, and shown by its name in the viewer's language.
 */
export function identifierName(i: Pick<Identifier, 'name' | 'guest_type'>, translate: Translate): string {
  return i.guest_type && (!i.name || i.name === GUEST_IDENTIFIER_NAME) ? translate('guest_access.default_name') : i.name;
}

/** `identifierName` in the viewer's language. */
export function useIdentifierName(): (identifier: Pick<Identifier, 'name' | 'guest_type'>) => string {
  const translate = useTranslate();
  return (i) => identifierName(i, translate);
}

/** An instant in the viewer's language and local time. */
export function useDateTimeText(): (iso: string | null | undefined) => string {
  const [locale] = useLocaleState();
  return (iso) => (iso ? formatDateTime(iso, locale) : '');
}

const LIMITS = ERRORS.guest_limits.message;

/**
 * The group limits' message of a refused save, with its numbers (the error display rule alone
 * would leave the placeholders), or null when the save failed for another reason.
 */
export function limitsText(error: unknown, translate: Translate): string | null {
  const body = (error as { body?: { message?: unknown; details?: unknown } } | null)?.body;
  if (typeof body?.message !== 'string' || body.message.toLowerCase() !== LIMITS) return null;
  const detail = (Array.isArray(body.details) ? body.details : []).find(
    (d): d is { params: Record<string, unknown> } => !!d && typeof d === 'object' && 'params' in d,
  );
  const shown = (v: unknown) => (typeof v === 'number' ? v : '—');
  return translate(`errors.http.${LIMITS}`, { max_count: shown(detail?.params.max_count), max_days: shown(detail?.params.max_days) });
}

/**
 * Runs one save of the grant form: a refused save tells why (the limits beside the restrictions,
 * anything else as a notification) and hands the server's field complaints back to the form.
 */
export function useGuestSave<T>(save: (values: T) => Promise<void>) {
  const translate = useTranslate();
  const notify = useNotify();
  const [limits, setLimits] = useState<string | null>(null);
  const onSubmit = async (values: T): Promise<Record<string, unknown> | undefined> => {
    setLimits(null);
    try {
      await save(values);
      return undefined;
    } catch (error) {
      const overLimits = limitsText(error, translate);
      setLimits(overLimits);
      notify(overLimits ?? errorText(error, translate), { type: 'error' });
      const errors = (error as { body?: { errors?: unknown } } | null)?.body?.errors;
      return errors && typeof errors === 'object' ? (errors as Record<string, unknown>) : undefined;
    }
  };
  return { limits, onSubmit };
}

/** The revoked chip of a row. */
export function RevokedField(_: { source?: string; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const dateText = useDateTimeText();
  const record = useRecordContext<Identifier>();
  if (!record?.is_revoked) return null;
  return (
    <Chip
      size="small"
      color="error"
      title={record.revoked_at ? dateText(record.revoked_at) : undefined}
      label={translate('guest_access.revoked')}
    />
  );
}
