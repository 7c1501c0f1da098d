import { auditSubject } from '@atrium/contract';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** An audit event as both the audit log and the home page have it. */
export interface AuditLine {
  entity: string;
  entity_id: string | null;
  action: string;
  /** Who made the change, as the reader should see them; null when nobody signed in did. */
  author: string | null;
  /** The author's id as recorded (a deleted person keeps it). */
  user_id: number | null;
  before?: unknown;
  after?: unknown;
  /** The record's name when the server already worked it out (the home page). */
  subject?: string | null;
  api_key?: { name: string; prefix: string } | null;
}

// Areas record their entities in the singular or, for bulk changes, the plural, and a group as
// "domains" (the spec's word): one noun each.
const SAME_AS: Record<string, string> = {
  users: 'user',
  domains: 'group',
  groups: 'group',
  roles: 'role',
  devices: 'device',
  domain_types: 'domain_type',
  sip_numbers: 'sip_number',
  access_rules: 'access_rule',
  markers: 'marker',
  integrations: 'integration',
  forward_rules: 'forward_rule',
  elevators: 'elevator',
  sip_trunks: 'sip_trunk',
  schedule: 'time_rule',
};

/** Events about a session have no record to name: "Anna Petrova signed in". */
const ALONE = new Set(['session', 'two_factor']);

const has = (translate: Translate, key: string) => translate(key, { _: '\u0000' }) !== '\u0000';

/**
 * An audit event as a sentence in the reader's language: "Anna Petrova created the virtual number
 * 1001", «Пользователь Анна Петрова создал виртуальный номер 1001». The codes stay on the event
 * (its details and the filters); a code this console has no words for reads as a change of a record,
 * never as the code.
 */
export function auditSentence(e: AuditLine, translate: Translate): string {
  const author = e.author ?? loginTried(e);
  let who =
    author === null
      ? translate(e.user_id === null ? 'audit.who.system' : 'audit.who.deleted', { id: e.user_id })
      : translate(typeof e.author === 'string' ? 'audit.who.user' : 'audit.who.login', { name: author, login: author });
  if (e.api_key) who = translate('audit.who.api_key', { who, name: e.api_key.name, prefix: e.api_key.prefix });
  const entity = SAME_AS[e.entity] ?? e.entity;
  if (ALONE.has(entity) && has(translate, `audit.alone.${e.action}`)) return translate(`audit.alone.${e.action}`, { who });
  const did = has(translate, `audit.did.${e.action}`) ? translate(`audit.did.${e.action}`) : translate('audit.did.update');
  const subject = e.subject ?? auditSubject(e.before, e.after) ?? (e.entity_id ? `#${e.entity_id}` : '');
  const what = (
    has(translate, `audit.what.${entity}`) ? translate(`audit.what.${entity}`, { subject }) : translate('audit.what.record', { subject })
  ).trim();
  return translate('audit.sentence', { who, did, what }).replace(/\s+/g, ' ').trim();
}

/** A failed sign-in has no author, only the login that was tried. */
function loginTried(e: AuditLine): string | null {
  const login = e.after && typeof e.after === 'object' ? (e.after as Record<string, unknown>).login : undefined;
  return e.user_id === null && typeof login === 'string' ? login : null;
}
