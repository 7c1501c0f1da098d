import type { OpenAPIV3 } from 'openapi-types';

/**
 * What the OpenAPI document says of every operation and parameter, derived in one place from the
 * route itself so that every area's routes lint clean (Spectral `spectral:oas`, scripts/lint-openapi.ts)
 * without each route repeating it. A route's own `operationId`, `description` or `tags` win.
 */

const VERBS: Record<string, string> = { get: 'Reads', put: 'Creates', post: 'Runs', patch: 'Updates', delete: 'Deletes', head: 'Checks' };

const camel = (words: string[]) =>
  words
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');

/** The path below the API prefix, in OpenAPI form (`/users/{id}`), and its words for an operationId. */
function pathWords(url: string): { path: string; words: string[] } {
  const path = url.replace(/^\/api\/v0/, '') || '/';
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => {
      if (seg === '*') return ['path'];
      const param = /^[:{](\w+)}?$/.exec(seg);
      if (param) return ['by', param[1] as string];
      return seg.split(/[^A-Za-z0-9]+/);
    });
  return { path, words };
}

export function operationIdOf(method: string, url: string): string {
  return camel([method.toLowerCase(), ...pathWords(url).words]);
}

/** Adds an operationId, a description and a tag to one route's schema where it has none. */
export function describeOperation(method: string, url: string, schema: Record<string, unknown>): Record<string, unknown> {
  const { path, words } = pathWords(url);
  const area = words[0] ?? 'api';
  const tags = Array.isArray(schema.tags) && schema.tags.length ? schema.tags : [area];
  return {
    ...schema,
    tags,
    operationId: schema.operationId ?? operationIdOf(method, url),
    description: schema.description ?? `${VERBS[method.toLowerCase()] ?? 'Calls'} \`${path}\` (${String(tags[0])}).`,
  };
}

const PARAMETER_TEXT: Record<string, string> = {
  id: 'The id of the record.',
  page: 'Page of the list, from 1.',
  size: 'Records per page (at most 1000).',
  sort: 'Sort fields, comma separated; a leading minus sorts descending (`name,-created_at`).',
  filters: 'Filter rules as JSON: `{ "match": "match_all" | "match_any", "rules": [{ "field", "operator", "value" }] }`.',
  with: 'Relations to include, comma separated.',
  search: 'Text the records contain.',
  gently: 'Refuse the deletion, naming what depends on the record, instead of deleting it.',
  tz_offset: "The caller's offset from UTC in minutes, to read and write dates.",
  export_format: 'Format of the download: `csv` or `xlsx`.',
  path: 'Path of the stored file.',
  access_token: 'The access token (only for the realtime socket, which cannot send headers).',
};

/**
 * The finishing touches of the whole document: top-level tags for every tag operations use, a
 * description for every parameter, a wildcard path made a named parameter, and the info block.
 */
export function polishDocument<T extends Partial<OpenAPIV3.Document>>(doc: T): T {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  const used = new Set<string>();
  for (const [key, item] of Object.entries(paths)) {
    let target = key;
    if (key.includes('{*}')) {
      target = key.replace('{*}', '{path}');
      delete paths[key];
      paths[target] = item;
    }
    for (const op of Object.values(item) as OpenAPIV3.OperationObject[]) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      for (const t of op.tags ?? []) used.add(t);
      for (const p of (op.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
        if (p.name === '*') p.name = 'path';
        p.description ??= PARAMETER_TEXT[p.name] ?? `The \`${p.name}\` ${p.in === 'path' ? 'of the path' : 'parameter'}.`;
      }
    }
  }
  const tags = [...used].sort().map((name) => ({ name, description: `Calls of the ${name.replace(/[-_]/g, ' ')} area.` }));
  return {
    ...doc,
    info: {
      title: 'Atrium API',
      version: 'v0',
      description:
        'The API of Atrium: everything the console does goes through it. Bearer access tokens from `POST /login`; errors are `{ message, code, details }`; lists take `page`, `size`, `sort`, `filters` and `with`.',
      contact: { name: 'Atrium', url: '/' },
      license: { name: 'Terms of use', url: '/api/v0/terms/en.html' },
      ...doc.info,
    },
    tags,
  };
}
