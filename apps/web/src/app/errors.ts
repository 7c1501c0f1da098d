import { ERRORS } from '@atrium/contract';

/** A translate function (react-admin's, or the i18n provider's). */
export type Translate = (key: string, options?: Record<string, unknown>) => string;

const MISSING = '\u0000missing';

/** True when `key` has a text in the current locale. */
export function hasTranslation(translate: Translate, key: string): boolean {
  return translate(key, { _: MISSING }) !== MISSING;
}

/** The server's message of an error: the response body's, else the error object's own. */
export function errorMessageOf(error: unknown): string | null {
  if (typeof error === 'string') return error || null;
  if (!error || typeof error !== 'object') return null;
  const body = (error as { body?: unknown }).body;
  const fromBody = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  if (typeof fromBody === 'string' && fromBody) return fromBody;
  const own = (error as { message?: unknown }).message;
  return typeof own === 'string' && own ? own : null;
}

/** The `details` of a failed call: the error's own, else its response body's. */
function detailsOf(error: unknown): unknown[] {
  const body = (error as { body?: { details?: unknown } } | null)?.body;
  const details = (error as { details?: unknown } | null)?.details ?? body?.details;
  return Array.isArray(details) ? details : [];
}

/** Entity names of an 'invalid related entity sent' answer, in the order the server gave them. */
export function relatedEntities(error: unknown): string[] {
  const names: string[] = [];
  for (const d of detailsOf(error)) {
    if (typeof d === 'string') names.push(d);
    else if (d && typeof d === 'object') {
      const o = d as Record<string, unknown>;
      for (const key of ['entity', 'resource', 'field']) {
        if (typeof o[key] === 'string') {
          names.push(o[key] as string);
          break;
        }
      }
      if (Array.isArray(o.entities)) names.push(...o.entities.filter((e): e is string => typeof e === 'string'));
    }
  }
  return [...new Set(names)];
}

/**
 * The error display rule of spec core §8: the message (of the response, else of the error) is
 * lower-cased and looked up as errors.http.<message>; without a translation the raw message is
 * shown; without any message, the default text. 'invalid related entity sent' lists the affected
 * entities, translated and joined by commas.
 */
export function errorText(error: unknown, translate: Translate): string {
  const message = errorMessageOf(error);
  if (!message) return translate('errors.default');
  const normalized = message.trim().toLowerCase();
  if (normalized === ERRORS.invalid_related_entity.message) {
    const entities = relatedEntities(error).map((name) => {
      const key = `entities.${name.replace(/-/g, '_')}`;
      return hasTranslation(translate, key) ? translate(key) : name;
    });
    if (entities.length > 0) return translate('errors.invalid_related_entities', { entities: entities.join(', ') });
  }
  const key = `errors.http.${normalized}`;
  // A message with variable parts (a limit, a group's name) takes them from the detail that repeats it.
  const params = fieldDetails(error).find((d) => d.message.trim().toLowerCase() === normalized && d.params)?.params ?? {};
  return hasTranslation(translate, key) ? translate(key, params) : message;
}

/** Logs a failed call (spec core §8) and answers the text to show. */
export function reportError(error: unknown, translate: Translate): string {
  console.error(error);
  return errorText(error, translate);
}

/** One field's complaint in a 400 answer: `{field, message, params?}` (message a `validation.*` key or a phrase). */
interface FieldDetail {
  field: string;
  message: string;
  params?: Record<string, unknown>;
}

function fieldDetails(error: unknown): FieldDetail[] {
  return detailsOf(error).filter(
    (d): d is FieldDetail =>
      !!d && typeof d === 'object' && typeof (d as FieldDetail).field === 'string' && typeof (d as FieldDetail).message === 'string',
  );
}

/** A detail's text: a `validation.*` key, else a phrase of the error catalogue, else as the server wrote it. */
function detailText(d: FieldDetail, translate: Translate): string {
  if (hasTranslation(translate, d.message)) return translate(d.message, d.params ?? {});
  const phrase = `errors.http.${d.message.trim().toLowerCase()}`;
  return hasTranslation(translate, phrase) ? translate(phrase, d.params ?? {}) : d.message;
}

/**
 * The server's per-field complaints as react-admin's submission errors (`body.errors`), translated:
 * a form then marks each field the server refused, beside the notification. Nested names
 * (`profile.phone`) become nested objects, as react-hook-form addresses them; a field the form does
 * not have is simply not shown there (the notification still says what went wrong).
 */
export function formErrors(error: unknown, translate: Translate): Record<string, unknown> | undefined {
  const details = fieldDetails(error);
  if (!details.length) return undefined;
  const out: Record<string, unknown> = {};
  for (const d of details) {
    const path = d.field.split('.').filter(Boolean);
    if (!path.length || path[0] === 'body') continue;
    const text = detailText(d, translate);
    let node = out;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) {
        if (node[part] === undefined) node[part] = text;
      } else {
        const next = node[part];
        if (typeof next === 'string') break;
        node[part] = next ?? {};
        node = node[part] as Record<string, unknown>;
      }
    }
  }
  return Object.keys(out).length ? out : undefined;
}
