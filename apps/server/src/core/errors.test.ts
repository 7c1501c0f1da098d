import { FILTER_OPERATORS, INT4_MAX, ListQuerySchema, VALIDATION_MESSAGES as M } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminClient, buildTestApp, type client, type TestApp } from '../../test/helpers.js';
import { registerErrorHandler } from './errors.js';

let t: TestApp;
let api: ReturnType<typeof client>;
let bare: FastifyInstance;
beforeAll(async () => {
  t = await buildTestApp();
  api = await adminClient(t);
  bare = await bareApp();
});
afterAll(async () => {
  await bare?.close();
  await t?.close();
});

const pgError = (code: string, extra: Record<string, unknown> = {}) =>
  // As drizzle throws it: the driver's error is the cause.
  Object.assign(new Error('Failed query: select secret_column from users'), {
    cause: Object.assign(new Error('duplicate key value violates unique constraint "users_project_login"'), { code, ...extra }),
  });

/** A small app with the error handler and routes that fail on purpose or validate with zod. */
async function bareApp(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  app.get('/api/v0/sql', { schema: { querystring: z.object({ q: z.string() }) } }, async (req) => {
    const queries: Record<string, ReturnType<typeof sql>> = {
      int4: sql`SELECT ${'3000000000'}::int AS n`,
      text: sql`SELECT ${'abc'}::int AS n`,
      date: sql`SELECT ${'300000-01-01'}::timestamptz AS d`,
      field: sql`SELECT ${'2024-13-45'}::timestamptz AS d`,
    };
    return t.database.db.execute(queries[(req.query as { q: string }).q] as ReturnType<typeof sql>);
  });
  app.get('/api/v0/fail', async (req) => {
    const { code, constraint } = req.query as { code: string; constraint?: string };
    throw pgError(code, constraint ? { constraint } : {});
  });
  const body = z.strictObject({
    login: z.string().trim().min(1).max(8),
    password: z.string().min(8).max(128),
    id: z.number().int().min(1).max(INT4_MAX),
    count: z.number().int().min(0).optional(),
    ratio: z.number().gt(0).lt(1).optional(),
    positive: z.number().int().positive().optional(),
    email: z.email().optional(),
    locale: z.enum(['en', 'ru']).optional(),
    flag: z.boolean().optional(),
    groups: z.array(z.number().int()).min(1).max(2).optional(),
    phone: z
      .string()
      .regex(/^\+\d+$/, M.phone_international)
      .optional(),
    chosen: z
      .string()
      .refine((v) => v !== 'x', 'a phrase of its own')
      .optional(),
    value: z.union([z.string().max(3), z.number(), z.null()]).optional(),
    nested: z.object({ port: z.number().int().min(1).max(65535).nullable().default(null) }).optional(),
  });
  app.post('/api/v0/things', { schema: { body } }, async () => ({ ok: true }));
  app.get(
    '/api/v0/things',
    { schema: { querystring: z.object({ page: z.coerce.number().int().min(1).max(100).default(1) }) } },
    async () => ({}),
  );
  app.delete('/api/v0/things/:id', { schema: { params: z.object({ id: z.coerce.number().int().min(1) }) } }, async () => ({}));
  app.get('/api/v0/things/:id/parts', async () => ({}));
  app.get('/page', async () => 'html');
  await app.ready();
  return app;
}

/** An app with one list route, as the modules declare them. */
async function bareList(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandler(app);
  app.get('/api/v0/list', { schema: { querystring: ListQuerySchema } }, async () => ({}));
  await app.ready();
  return app;
}

describe('database errors never leak SQL and are the client data’s fault', () => {
  it.each(['int4', 'text', 'date', 'field'])('a value PostgreSQL cannot hold (%s) answers 400', async (q) => {
    const res = await bare.inject({ method: 'GET', url: `/api/v0/sql?q=${q}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'invalid data sent', code: 'invalid_data' });
    expect(res.body).not.toMatch(/select|int|timestamp|range|syntax|3000000000/i);
  });

  it.each(['22003', '22P02', '22007', '22008'])('SQLSTATE %s from any query answers 400 without details', async (code) => {
    const res = await bare.inject({ method: 'GET', url: `/api/v0/fail?code=${code}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: 'invalid data sent', code: 'invalid_data', request_id: expect.any(String) });
  });

  it.each([
    ['users_project_login', [{ field: 'login' }]],
    ['domain_types_project_type', [{ field: 'type' }]],
    ['groups_sibling_address', [{ field: 'logic_address' }]],
    ['projects_uid_unique', undefined],
    ['constructor', undefined],
    ['', undefined],
  ])('a duplicate on "%s" names the field, never the constraint', async (constraint, details) => {
    const dup = await bare.inject({ method: 'GET', url: `/api/v0/fail?code=23505&constraint=${constraint}` });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('value not unique');
    expect(dup.json().details).toEqual(details);
    expect(dup.body).not.toMatch(/users_project_login|constraint|projects_uid/);
  });
});

describe('validation details are catalogue messages (spec core §5) with their placeholders', () => {
  const valid = { login: 'anna', password: 'long-enough', id: 1 };
  const detailsOf = async (payload: Record<string, unknown>) => {
    const res = await bare.inject({ method: 'POST', url: '/api/v0/things', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    return res.json().details as { field: string; message: string; params?: Record<string, unknown> }[];
  };

  it('accepts the valid body', async () => {
    expect((await bare.inject({ method: 'POST', url: '/api/v0/things', payload: valid })).statusCode).toBe(200);
  });

  it.each<[string, Record<string, unknown>, { field: string; message: string; params?: Record<string, unknown> }]>([
    ['a missing field', { login: undefined }, { field: 'login', message: M.required }],
    ['a null field', { login: null }, { field: 'login', message: M.required }],
    ['a blank text', { login: '   ' }, { field: 'login', message: M.required }],
    ['a long text', { login: 'a'.repeat(9) }, { field: 'login', message: M.max_length, params: { length: 8 } }],
    ['a short text', { password: 'short' }, { field: 'password', message: M.min_length, params: { length: 8 } }],
    ['an id above int4', { id: 3_000_000_000 }, { field: 'id', message: M.range, params: { min: 1, max: INT4_MAX } }],
    ['an id of 0', { id: 0 }, { field: 'id', message: M.range, params: { min: 1, max: INT4_MAX } }],
    ['a number as text', { id: '5' }, { field: 'id', message: M.number }],
    ['a fraction for a whole number', { id: 1.5 }, { field: 'id', message: M.number }],
    ['below a lower bound only', { count: -1 }, { field: 'count', message: M.min_value, params: { min: 0 } }],
    ['not above an exclusive bound', { ratio: 0 }, { field: 'ratio', message: M.greater_than, params: { bound: 0 } }],
    ['not below an exclusive bound', { ratio: 1 }, { field: 'ratio', message: M.less_than, params: { bound: 1 } }],
    ['not positive', { positive: 0 }, { field: 'positive', message: M.min_value, params: { min: 1 } }],
    ['a bad e-mail', { email: 'nope' }, { field: 'email', message: M.email }],
    ['an unknown option', { locale: 'de' }, { field: 'locale', message: M.invalid_value, params: { values: ['en', 'ru'] } }],
    ['a wrong kind', { flag: 'yes' }, { field: 'flag', message: M.invalid_value }],
    ['an empty list', { groups: [] }, { field: 'groups', message: M.required }],
    ['a long list', { groups: [1, 2, 3] }, { field: 'groups', message: M.max_items, params: { max: 2 } }],
    ['a list member', { groups: [1, 'x'] }, { field: 'groups.1', message: M.number }],
    ['the contract’s catalogue key', { phone: '123' }, { field: 'phone', message: M.phone_international }],
    ['the contract’s own phrase', { chosen: 'x' }, { field: 'chosen', message: 'a phrase of its own' }],
    ['the union member the value was meant for', { value: 'long' }, { field: 'value', message: M.max_length, params: { length: 3 } }],
    ['a value no union member takes', { value: { a: 1 } }, { field: 'value', message: M.invalid_value }],
    ['a nested field', { nested: { port: 70000 } }, { field: 'nested.port', message: M.range, params: { min: 1, max: 65535 } }],
    ['an unknown field', { extra: 1 }, { field: 'body', message: M.unknown_field, params: { keys: ['extra'] } }],
  ])('%s', async (_label, change, expected) => {
    expect(await detailsOf({ ...valid, ...change })).toEqual([expected]);
  });

  it('names query and path fields after their place, with both bounds', async () => {
    let res = await bare.inject({ method: 'GET', url: '/api/v0/things?page=1000' });
    expect(res.json().details).toEqual([{ field: 'querystring.page', message: M.range, params: { min: 1, max: 100 } }]);
    res = await bare.inject({ method: 'GET', url: '/api/v0/things?page=x' });
    expect(res.json().details).toEqual([{ field: 'querystring.page', message: M.number }]);
    res = await bare.inject({ method: 'DELETE', url: '/api/v0/things/0' });
    expect(res.json().details).toEqual([{ field: 'params.id', message: M.min_value, params: { min: 1 } }]);
  });

  it('a rule inside the filters text is named by its place and message, never "required"', async () => {
    const app = await bareList();
    const filters = encodeURIComponent(JSON.stringify({ rules: [{ field: 'name', operator: 'like', value: null }, { field: 'name' }] }));
    const res = await app.inject({ method: 'GET', url: `/api/v0/list?filters=${filters}` });
    expect(res.json().details).toEqual([
      { field: 'querystring.filters.rules.0.operator', message: M.invalid_value, params: { values: [...FILTER_OPERATORS] } },
      { field: 'querystring.filters.rules.1.operator', message: M.invalid_value, params: { values: [...FILTER_OPERATORS] } },
      { field: 'querystring.filters.rules.1.value', message: M.invalid_value },
    ]);
    await app.close();
  });

  it('a body that is not JSON is invalid data, not a server fault', async () => {
    const res = await bare.inject({
      method: 'POST',
      url: '/api/v0/things',
      payload: '{"login":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ field: '', message: M.invalid_value }]);
  });

  it('never answers zod’s English prose', async () => {
    const res = await bare.inject({ method: 'POST', url: '/api/v0/things', payload: { id: 'x', login: 5, locale: 1, extra: true } });
    expect(res.body).not.toMatch(/Invalid input|expected|received|Too (big|small)|Unrecognized/);
  });
});

describe('405 method prohibited', () => {
  it.each([
    ['PUT', '/api/v0/things', 'GET, HEAD, POST'],
    ['PATCH', '/api/v0/things?page=2', 'GET, HEAD, POST'],
    ['GET', '/api/v0/things/5', 'DELETE'],
    ['POST', '/api/v0/things/5/parts', 'GET, HEAD'],
  ])('%s %s answers 405 and says what is allowed', async (method, url, allow) => {
    const res = await bare.inject({ method: method as 'GET', url });
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ message: 'method prohibited', code: 'method_prohibited' });
    expect(res.headers.allow).toBe(allow);
  });

  it.each([
    ['GET', '/api/v0/nothing'],
    ['POST', '/api/v0/things/5/parts/6'],
    ['POST', '/page'],
  ])('%s %s is still not found', async (method, url) => {
    expect((await bare.inject({ method: method as 'GET', url })).statusCode).toBe(404);
  });
});

describe('through the app: what the audit found answers 400, 404 or 405, never 500', () => {
  const filters = (rule: Record<string, unknown>) => `filters=${encodeURIComponent(JSON.stringify({ rules: [rule] }))}`;

  it.each<[string, string, unknown, string]>([
    ['GET', '/users/3000000000', undefined, 'params.id'],
    ['GET', '/roles/3000000000', undefined, 'params.id'],
    ['GET', '/domains/3000000000', undefined, 'params.id'],
    ['GET', '/domain-types/3000000000', undefined, 'params.id'],
    ['PATCH', '/users/2147483648', {}, 'params.id'],
    ['DELETE', '/domains/3000000000', undefined, 'params.id'],
    ['POST', '/users/delete', { items: [3_000_000_000] }, 'items.0'],
    ['POST', '/roles/delete', { items: [1, 3_000_000_000] }, 'items.1'],
    ['POST', '/notifications/read?id=3000000000', {}, 'querystring.id'],
    ['GET', '/users?branch=3000000000', undefined, 'querystring.branch'],
    ['GET', '/domains?id=1,3000000000', undefined, 'querystring.id'],
    ['PUT', '/users', { login: 'big', domains: [3_000_000_000] }, 'domains.0'],
    ['PUT', '/roles', { name: 'big', available_roles: [3_000_000_000] }, 'available_roles.0'],
    ['PUT', '/domains', { name: 'big', parent_id: 3_000_000_000 }, 'parent_id'],
    ['GET', '/users?sort=constructor', undefined, 'sort'],
    ['GET', '/roles?sort=toString', undefined, 'sort'],
    ['GET', '/domains?sort=__proto__', undefined, 'sort'],
    ['GET', `/users?${filters({ field: 'constructor', operator: 'equals', value: 1 })}`, undefined, 'filters.rules.0.field'],
    ['GET', `/roles?${filters({ field: '__proto__', operator: 'equals', value: 1 })}`, undefined, 'filters.rules.0.field'],
    ['GET', `/users?${filters({ field: 'created_at', operator: 'above', value: '275760-09-13' })}`, undefined, 'filters.rules.0.value'],
    [
      'GET',
      `/users?${filters({ field: 'name', operator: 'equals', value: 'x'.repeat(1001) })}`,
      undefined,
      'querystring.filters.rules.0.value',
    ],
    ['GET', '/users?with=constructor', undefined, 'with'],
  ])('%s %s', async (method, url, payload, field) => {
    const res = await api.raw(method as 'GET', url, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid data sent');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    for (const d of res.json().details as { message: string }[]) expect(Object.values(M)).toContain(d.message);
  });

  it.each([
    ['DELETE', '/users'],
    ['PATCH', '/roles'],
    ['PUT', '/users/1'],
    ['PUT', '/users/delete'],
    ['DELETE', '/notifications/read'],
  ])('%s %s answers 405 method prohibited', async (method, url) => {
    const res = await api.raw(method as 'GET', url);
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ message: 'method prohibited', code: 'method_prohibited' });
  });

  it('an unknown API path is still 404', async () => {
    expect((await api.get('/no-such-thing')).statusCode).toBe(404);
    expect((await api.raw('POST', '/no-such-thing', {})).statusCode).toBe(404);
  });
});
