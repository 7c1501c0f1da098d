import type { Profile } from '@atrium/contract';
import { emptyToNull } from '@atrium/contract';
import { type Me, userAccess } from '../app/action-rules';

/** The profile page's form values. */
export interface ProfileForm {
  name: string;
  locale: string;
  address: string | null;
  phone: string | null;
  time_zone: string | null;
  time_format: string | null;
  identifier_format: string;
}

export const toForm = (p: Profile): ProfileForm & { id: number } => ({
  id: p.id,
  name: p.name,
  locale: p.locale,
  address: p.profile.address,
  phone: p.profile.phone,
  time_zone: p.profile.time_zone,
  time_format: p.profile.time_format,
  identifier_format: p.profile.identifier_format,
});

/**
 * May the signed-in user change their own name, address and phone? The rule of PATCH /users/{self}
 * (action-rules userAccess on their own record), which PATCH /profile applies to these fields too
 * (profile.service mayEditOwnRecord): edit-own-profile or a users edit scope over themselves.
 */
export function mayEditOwnRecord(permissions: readonly string[] | null | undefined, me: Me): boolean {
  return userAccess(permissions, me, { id: me.userId, domains: me.groupIds }).edit !== 'none';
}

/** What the page sends to PATCH /profile. */
export interface ProfilePatch {
  name?: string;
  locale: string;
  profile: Record<string, string | null>;
}

/**
 * The PATCH /profile body of the form. Without the right to edit the record, its fields are not
 * sent at all: language, time zone and formats are saved alone.
 */
export function profileBody(v: ProfileForm, recordEditable: boolean): ProfilePatch {
  const formats = {
    time_zone: emptyToNull(v.time_zone),
    time_format: emptyToNull(v.time_format),
    identifier_format: v.identifier_format,
  };
  if (!recordEditable) return { locale: v.locale, profile: formats };
  return {
    name: v.name.trim(),
    locale: v.locale,
    profile: {
      address: emptyToNull(v.address?.trim() ?? null),
      phone: emptyToNull(v.phone?.replace(/[\s\-()]/g, '') ?? null),
      ...formats,
    },
  };
}
