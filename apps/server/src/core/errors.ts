import { DATE_RANGE, ERRORS, type ErrorBody, type ErrorCode, type FieldIssue, isEmpty, VALIDATION_MESSAGES } from '@atrium/contract';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { locales, z } from 'zod';

/** The one error type of the server: a catalogue code and optional details for the client. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown[] | undefined;
  constructor(code: ErrorCode, details?: unknown[]) {
    super(ERRORS[code].message);
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const notFound = () => new AppError('not_found');
export const prohibited = (details?: unknown[]) => new AppError('action_prohibited', details);
export const invalidField = (field: string, message: string, params?: Record<string, unknown>) =>
  new AppError('invalid_data', [{ field, message, ...(params ? { params } : {}) } satisfies FieldIssue]);

function body(code: ErrorCode, requestId: string, details?: unknown[]): ErrorBody {
  const e = ERRORS[code];
  return { message: e.message, code, ...(details?.length ? { details } : {}), request_id: requestId };
}

interface PgLikeError {
  code?: string;
  constraint?: string;
}

/**
 * The field each unique index guards, by index name. A duplicate on any other index answers without
 * details: the client never sees a constraint's name.
 */
const UNIQUE_FIELDS: Readonly<Record<string, string>> = {
  users_project_login: 'login',
  domain_types_project_type: 'type',
  groups_sibling_address: 'logic_address',
};

/**
 * PostgreSQL's "the value does not fit": numeric out of range (22003), text that is not of the
 * column's type (22P02), a date or time it cannot read or hold (22007, 22008). The contract should
 * refuse such input first; if something slips through it is the client's data, not a server fault.
 */
const INVALID_VALUE_SQLSTATES = new Set(['22003', '22P02', '22007', '22008']);

// --- validation details: zod's issues as the message catalogue of spec core §5 -------------------

type Params = Record<string, unknown>;
/** A zod issue as fastify-type-provider-zod hands it over: the issue's own fields sit in `params`. */
interface ValidationEntry {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Params;
}
interface Issue extends Params {
  code: string;
  message: string;
  path: PropertyKey[];
}
type Detail = { message: string; params?: Params };

const M = VALIDATION_MESSAGES;
const zodEnglish = locales.en().localeError;
const NUMERIC_TYPES = new Set(['number', 'int', 'bigint', 'nan']);
const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  email: M.email,
  url: M.url_or_ip,
  ipv4: M.url_or_ip,
  ipv6: M.url_or_ip,
  hostname: M.url_or_ip,
  cidrv4: M.ip_with_prefix,
  cidrv6: M.ip_with_prefix,
  e164: M.phone_international,
};
const CATALOGUE: ReadonlySet<string> = new Set(Object.values(M));

/** True when zod wrote the message (its English default); false when the contract chose one. */
function isZodDefault(issue: Issue): boolean {
  // Its text names the value's type, which the issue no longer carries.
  if (issue.code === 'invalid_type') return issue.message.startsWith('Invalid input: expected ');
  const text = zodEnglish(issue as never);
  return (typeof text === 'string' ? text : text?.message) === issue.message;
}

const finite = (n: unknown): number | undefined =>
  typeof n === 'number' && Number.isFinite(n) && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined;

interface Bounds {
  min?: number;
  max?: number;
  /** The bound itself is not allowed (only for numbers that need not be whole). */
  minOpen?: boolean;
  maxOpen?: boolean;
}

/** The bounds of a number field, from its schema; an exclusive bound of a whole number moves in by one. */
function numberBounds(schema: z.ZodType | undefined): Bounds | undefined {
  if (!(schema instanceof z.ZodNumber)) return undefined;
  const b: Bounds = { min: finite(schema.minValue), max: finite(schema.maxValue) };
  const step = schema.isInt ? 1 : 0;
  if (b.min !== undefined && !schema.safeParse(b.min).success) {
    b.min += step;
    b.minOpen = !step;
  }
  if (b.max !== undefined && !schema.safeParse(b.max).success) {
    b.max -= step;
    b.maxOpen = !step;
  }
  return b;
}

function numberDetail(issue: Issue, schema: z.ZodType | undefined): Detail {
  const small = issue.code === 'too_small';
  const open = issue.inclusive === false;
  const b = numberBounds(schema) ?? (small ? { min: Number(issue.minimum), minOpen: open } : { max: Number(issue.maximum), maxOpen: open });
  if (b.min !== undefined && b.max !== undefined && !b.minOpen && !b.maxOpen)
    return { message: M.range, params: { min: b.min, max: b.max } };
  if (small && b.min !== undefined)
    return b.minOpen ? { message: M.greater_than, params: { bound: b.min } } : { message: M.min_value, params: { min: b.min } };
  if (!small && b.max !== undefined)
    return b.maxOpen ? { message: M.less_than, params: { bound: b.max } } : { message: M.max_value, params: { max: b.max } };
  return { message: M.number };
}

function sizeDetail(issue: Issue, schema: z.ZodType | undefined): Detail {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  switch (issue.origin) {
    case 'string':
      if (small) return bound <= 1 ? { message: M.required } : { message: M.min_length, params: { length: bound } };
      return { message: M.max_length, params: { length: bound } };
    case 'array':
    case 'set':
      if (small) return bound <= 1 ? { message: M.required } : { message: M.min_items, params: { min: bound } };
      return { message: M.max_items, params: { max: bound } };
    case 'number':
    case 'int':
    case 'bigint':
      return numberDetail(issue, schema);
    default:
      return { message: M.invalid_value };
  }
}

/** The catalogue message (and its placeholders) of one zod issue. */
function issueDetail(issue: Issue, missing: boolean, schema: z.ZodType | undefined): Detail {
  if (!isZodDefault(issue)) {
    // The contract's own message: a catalogue key, or (rarely) a phrase of its own; kept as written.
    const params = issue.params as Params | undefined;
    return { message: issue.message, ...(params && CATALOGUE.has(issue.message) ? { params } : {}) };
  }
  const typeLike = issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union';
  if (missing && typeLike) return { message: M.required };
  switch (issue.code) {
    case 'invalid_type':
      return { message: NUMERIC_TYPES.has(String(issue.expected)) ? M.number : M.invalid_value };
    case 'too_small':
    case 'too_big':
      return sizeDetail(issue, schema);
    case 'not_multiple_of':
      return { message: M.number };
    case 'invalid_format':
      if (issue.format === 'datetime' || issue.format === 'date') return { message: M.date, params: { ...DATE_RANGE } };
      return { message: FORMAT_MESSAGES[String(issue.format)] ?? M.invalid_value };
    case 'invalid_value':
      return { message: M.invalid_value, params: { values: issue.values } };
    case 'invalid_union': {
      // The option the value was meant for: the one whose type matched but a rule failed.
      const options = Array.isArray(issue.errors) ? (issue.errors as Issue[][]) : [];
      const meant = options.find(
        (o) => o.length > 0 && o.every((i) => i.path.length > 0 || (i.code !== 'invalid_type' && i.code !== 'invalid_value')),
      );
      const first = meant?.[0];
      return first ? issueDetail(first, false, undefined) : { message: M.invalid_value };
    }
    default:
      return { message: M.invalid_value };
  }
}

type RouteSchemas = Partial<Record<'body' | 'querystring' | 'query' | 'params' | 'headers', unknown>>;

/**
 * Whether the client left one field of a request empty, and the field's schema. A field inside a
 * value the client sent as text (the JSON of `filters`) is never empty: its text was there.
 */
function fieldAt(request: FastifyRequest, context: string, path: string[]): { empty: boolean; schema: z.ZodType | undefined } {
  const raw: Record<string, unknown> = { body: request.body, querystring: request.query, params: request.params, headers: request.headers };
  const schemas = (request.routeOptions.schema ?? {}) as RouteSchemas;
  let value = Object.hasOwn(raw, context) ? raw[context] : undefined;
  let reached = true;
  let schema = unwrap(context === 'querystring' ? (schemas.querystring ?? schemas.query) : schemas[context as keyof RouteSchemas]);
  for (const key of path) {
    const container = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
    reached &&= container !== undefined;
    value = container && Object.hasOwn(container, key) ? container[key] : undefined;
    schema = unwrap(child(schema, key));
  }
  return { empty: reached && isEmpty(value), schema };
}

interface LooseDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  getter?: () => z.ZodType;
}
const defOf = (schema: unknown): LooseDef | undefined => (schema instanceof z.ZodType ? (schema._zod.def as LooseDef) : undefined);

/** The schema under optional, nullable, default, pipe and lazy wrappers. */
function unwrap(schema: unknown): z.ZodType | undefined {
  let s = schema;
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(s);
    if (!def) return undefined;
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined) ?? def.getter?.();
    if (!inner) return s as z.ZodType;
    s = inner;
  }
  return undefined;
}

function child(schema: z.ZodType | undefined, key: string): z.ZodType | undefined {
  const def = defOf(schema);
  if (def?.type === 'object' && def.shape && Object.hasOwn(def.shape, key)) return def.shape[key];
  if (def?.type === 'array') return def.element;
  if (def?.type === 'record') return def.valueType;
  return undefined;
}

/** One detail per zod issue: `{field, message, params?}` with a catalogue key as the message. */
function validationDetails(err: FastifyError, request: FastifyRequest): FieldIssue[] {
  const context = String(err.validationContext ?? '');
  return (err.validation as unknown as ValidationEntry[]).map((v) => {
    const path = v.instancePath === '/' ? [] : v.instancePath.replace(/^\//, '').split('/');
    const where = path.join('.');
    const field = [context === 'body' ? '' : context, where].filter(Boolean).join('.') || context;
    const issue: Issue = { ...v.params, code: v.keyword, message: v.message ?? '', path };
    if (issue.code === 'unrecognized_keys') return { field, message: M.unknown_field, params: { keys: issue.keys } };
    const { empty, schema } = fieldAt(request, context, path);
    const detail = issueDetail(issue, empty, schema);
    return { field, message: detail.message, ...(detail.params ? { params: detail.params } : {}) };
  });
}

// --- 405: a known path called with a method it does not take -----------------------------------

/** A route's path as a pattern: `:name` (with an optional own regex) is one segment, `*` the rest. */
function pathPattern(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z_]\w*(?:\([^)]*\))?|\*)/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (part === '*') return '.*';
      const own = /\((.*)\)$/.exec(part)?.[1];
      return own ? `(?:${own.replace(/^\^|\$$/g, '')})` : '[^/]+';
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * Answers 405 "method prohibited" for an API path that exists with other methods, instead of a
 * 404. Routes are recorded as they are added, so this must be registered before them.
 */
function registerMethodCheck(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    routes.push({ pattern: pathPattern(route.url), methods: new Set(methods) });
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith('/api/')) return;
    const allowed = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]));
    if (allowed.size === 0 || allowed.has(request.method)) return;
    reply.header('allow', [...allowed].sort().join(', '));
    throw new AppError('method_prohibited');
  });
}

/**
 * Maps every failure to the envelope of ARCHITECTURE §3. Nothing internal (stack, SQL, paths,
 * constraint names) ever reaches a client; 5xx causes go to the log with the request id.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  registerMethodCheck(app);
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const rid = String(request.id);
    if (err instanceof AppError) {
      return reply.status(err.status).send(body(err.code, rid, err.details));
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      return reply.status(400).send(body('invalid_data', rid, validationDetails(err, request)));
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err, cause: err.cause }, 'response does not match its schema');
      return reply.status(500).send(body('internal', rid));
    }
    const pgErr = (err.cause ?? err) as PgLikeError;
    if (pgErr.code === '23505') {
      const field = pgErr.constraint && Object.hasOwn(UNIQUE_FIELDS, pgErr.constraint) ? UNIQUE_FIELDS[pgErr.constraint] : undefined;
      return reply.status(409).send(body('value_not_unique', rid, field ? [{ field }] : undefined));
    }
    if (pgErr.code === '23503') return reply.status(400).send(body('invalid_related_entity', rid));
    if (pgErr.code && INVALID_VALUE_SQLSTATES.has(pgErr.code)) {
      request.log.warn({ err }, 'a value the database cannot hold reached a query');
      return reply.status(400).send(body('invalid_data', rid));
    }
    if (databaseUnavailable(err, pgErr)) {
      request.log.warn({ err }, 'the database did not answer in time');
      return reply.status(503).header('retry-after', '5').send(body('database_unavailable', rid));
    }
    if (err.statusCode === 413 || err.code === 'FST_REQ_FILE_TOO_LARGE') return reply.status(413).send(body('payload_too_large', rid));
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
      return reply.status(400).send(body('wrong_file_body', rid));
    }
    if (err.statusCode === 429) return reply.status(429).send(body('too_many_attempts', rid));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(400).send(body('invalid_data', rid, [{ field: '', message: M.invalid_value }]));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(body('internal', rid));
  });
}

/** SQLSTATEs of a database that is blocked, going away or out of connections (statement and lock time-outs included). */
const UNAVAILABLE_SQLSTATES = new Set(['57014', '55P03', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08006']);

/** A query that timed out or found no database: the pool's acquisition time-out, a refused or lost connection. */
function databaseUnavailable(err: FastifyError, pgErr: PgLikeError): boolean {
  if (pgErr.code && UNAVAILABLE_SQLSTATES.has(pgErr.code)) return true;
  if (pgErr.code === 'ECONNREFUSED' || pgErr.code === 'ECONNRESET') return true;
  const text = `${err.message} ${(pgErr as { message?: string }).message ?? ''}`;
  return /timeout exceeded when trying to connect|Connection terminated/i.test(text);
}

export function errorBody(code: ErrorCode, requestId: string, details?: unknown[]): ErrorBody {
  return body(code, requestId, details);
}
