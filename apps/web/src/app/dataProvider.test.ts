import { describe, expect, it, vi } from 'vitest';
import { changedFields, createDataProvider, filterSource, toFilters, toSort } from './dataProvider';
import { ApiError, type HttpClient, type RequestOptions } from './http';

function fakeHttp(answer: (path: string, o: RequestOptions) => unknown) {
  const calls: { path: string; o: RequestOptions }[] = [];
  const http: HttpClient = {
    request: vi.fn(async (path: string, o: RequestOptions = {}) => {
      calls.push({ path, o });
      return answer(path, o);
    }) as HttpClient['request'],
    data: vi.fn(),
    refresh: vi.fn(),
  };
  return { http, calls };
}

/** An HTTP client whose every request fails with `error`. */
const failingWith = (error: ApiError): HttpClient => ({
  request: vi.fn(async () => {
    throw error;
  }),
  data: vi.fn(),
  refresh: vi.fn(),
});

describe('list query mapping', () => {
  it('maps filters to rules with the six operators', () => {
    expect(toFilters({ name: 'Lobby', 'created_at@above': '2026-01-01', 'serial@begins_with': 'AB', 'x@has': 'q', empty: '' })).toEqual({
      match: 'match_all',
      rules: [
        { field: 'name', operator: 'equals', value: 'Lobby' },
        { field: 'created_at', operator: 'above', value: '2026-01-01' },
        { field: 'serial', operator: 'begins_with', value: 'AB' },
        { field: 'x', operator: 'has', value: 'q' },
      ],
    });
    expect(toFilters({ 'a@not_equals': 1, 'b@below': 5, _match: 'match_any' })).toEqual({
      match: 'match_any',
      rules: [
        { field: 'a', operator: 'not_equals', value: 1 },
        { field: 'b', operator: 'below', value: 5 },
      ],
    });
    expect(toFilters({ 'email@example.com': 'x' })?.rules[0]).toEqual({ field: 'email@example.com', operator: 'equals', value: 'x' });
    expect(toFilters({})).toBeUndefined();
    expect(filterSource('name', 'begins_with')).toBe('name@begins_with');
  });
  it('maps the sort order', () => {
    expect(toSort({ field: 'name', order: 'ASC' })).toBe('name');
    expect(toSort({ field: 'created_at', order: 'DESC' })).toBe('-created_at');
  });
  it('sends only the changed fields of an update', () => {
    expect(changedFields({ id: 1, name: 'B', tags: [1], same: 's' }, { id: 1, name: 'A', tags: [1], same: 's' })).toEqual({ name: 'B' });
  });
});

describe('data provider', () => {
  it('getList sends page, size, sort, filters JSON and with, and reads meta.total', async () => {
    const { http, calls } = fakeHttp(() => ({ data: [{ id: 1 }], meta: { total: 41, page: 2, size: 20 } }));
    const dp = createDataProvider(http);
    const result = await dp.getList('users', {
      pagination: { page: 2, perPage: 20 },
      sort: { field: 'name', order: 'DESC' },
      filter: { 'name@begins_with': 'Jo' },
      meta: { with: ['role', 'domains'] },
    });
    expect(result).toEqual({ data: [{ id: 1 }], total: 41 });
    expect(calls[0]?.path).toBe('/users');
    expect(calls[0]?.o.query).toEqual({
      page: 2,
      size: 20,
      sort: '-name',
      filters: JSON.stringify({ match: 'match_all', rules: [{ field: 'name', operator: 'begins_with', value: 'Jo' }] }),
      with: 'role,domains',
    });
  });

  it('getOne reads data, with a resource holding slashes', async () => {
    const { http, calls } = fakeHttp(() => ({ data: { id: 5, name: 'x' } }));
    await expect(createDataProvider(http).getOne('devices/alarms', { id: 5 })).resolves.toEqual({ data: { id: 5, name: 'x' } });
    expect(calls[0]?.path).toBe('/devices/alarms/5');
  });

  it('getMany asks for any of the ids', async () => {
    const { http, calls } = fakeHttp(() => ({ data: [{ id: 1 }, { id: 2 }], meta: { total: 2 } }));
    await createDataProvider(http).getMany('roles', { ids: [1, 2] });
    expect(JSON.parse(String(calls[0]?.o.query?.filters))).toEqual({
      match: 'match_any',
      rules: [
        { field: 'id', operator: 'equals', value: 1 },
        { field: 'id', operator: 'equals', value: 2 },
      ],
    });
    expect(calls[0]?.o.query?.size).toBe(2);
  });

  it('getManyReference filters on the target', async () => {
    const { http, calls } = fakeHttp(() => ({ data: [], meta: { total: 0 } }));
    await createDataProvider(http).getManyReference('identifiers', {
      target: 'user_id',
      id: 9,
      pagination: { page: 1, perPage: 10 },
      sort: { field: 'id', order: 'ASC' },
      filter: {},
    });
    expect(JSON.parse(String(calls[0]?.o.query?.filters)).rules).toEqual([{ field: 'user_id', operator: 'equals', value: 9 }]);
  });

  it('create is a PUT and reads the new record from data.data', async () => {
    const { http, calls } = fakeHttp(() => ({ data: { id: 12, name: 'Gate' } }));
    await expect(createDataProvider(http).create('devices', { data: { name: 'Gate' } })).resolves.toEqual({
      data: { id: 12, name: 'Gate' },
    });
    expect(calls[0]).toMatchObject({ path: '/devices', o: { method: 'PUT', body: { name: 'Gate' } } });
  });

  it('create accepts an id alone in data.data', async () => {
    const { http } = fakeHttp(() => ({ data: 13 }));
    await expect(createDataProvider(http).create('devices', { data: { name: 'Gate' } })).resolves.toEqual({
      data: { name: 'Gate', id: 13 },
    });
  });

  it('update is a PATCH of the changed fields', async () => {
    const { http, calls } = fakeHttp(() => ({ data: { id: 3, name: 'New', note: 'n' } }));
    const result = await createDataProvider(http).update('groups', {
      id: 3,
      data: { id: 3, name: 'New', note: 'n' },
      previousData: { id: 3, name: 'Old', note: 'n' },
    });
    expect(calls[0]).toMatchObject({ path: '/groups/3', o: { method: 'PATCH', body: { name: 'New' } } });
    expect(result.data).toEqual({ id: 3, name: 'New', note: 'n' });
  });

  it('delete is a DELETE', async () => {
    const { http, calls } = fakeHttp(() => undefined);
    await expect(createDataProvider(http).delete('roles', { id: 4, previousData: { id: 4, name: 'r' } })).resolves.toEqual({
      data: { id: 4, name: 'r' },
    });
    expect(calls[0]).toMatchObject({ path: '/roles/4', o: { method: 'DELETE' } });
  });

  it('bulk delete posts the items and reports what was not deleted', async () => {
    const { http, calls } = fakeHttp(() => ({
      data: { deleted: [1], not_deleted: [{ id: 2, message: 'role is in use', code: 'role_in_use' }] },
    }));
    const result = await createDataProvider(http).deleteMany('roles', { ids: [1, 2] });
    expect(calls[0]).toMatchObject({ path: '/roles/delete', o: { method: 'POST', body: { items: [1, 2] } } });
    expect(result).toEqual({ data: [1], meta: { notDeleted: [{ id: 2, message: 'role is in use', code: 'role_in_use' }] } });
  });

  it('rethrows API errors with the display text, keeping status and body', async () => {
    const body = { message: 'item not found', code: 'not_found' };
    const http = failingWith(new ApiError(404, body.message, body));
    const error = await createDataProvider(http, { describeError: () => 'Item not found' })
      .getOne('users', { id: 1 })
      .catch((e) => e);
    expect(error).toMatchObject({ status: 404, message: 'Item not found', body });
  });

  it("hands a refused save's field details to the form as react-admin submission errors", async () => {
    const body = { message: 'invalid data sent', code: 'invalid_data', details: [{ field: 'login', message: 'validation.max_length' }] };
    const http = failingWith(new ApiError(400, body.message, body));
    const provider = createDataProvider(http, { describeError: () => 'Invalid data sent', fieldErrors: () => ({ login: 'Too long' }) });
    const error = await provider.create('users', { data: { login: 'x' } }).catch((e) => e);
    expect(error).toMatchObject({ status: 400, message: 'Invalid data sent', body: { ...body, errors: { login: 'Too long' } } });
  });

  it('gives no submission errors for answers other than a refused value or a duplicate', async () => {
    const body = { message: 'action prohibited', code: 'forbidden', details: [{ field: 'name', message: 'x' }] };
    const http = failingWith(new ApiError(403, body.message, body));
    const fieldErrors = vi.fn(() => ({ name: 'x' }));
    const error = await createDataProvider(http, { fieldErrors })
      .update('users', { id: 1, data: {}, previousData: { id: 1 } })
      .catch((e) => e);
    expect(error.body).toEqual(body);
    expect(fieldErrors).not.toHaveBeenCalled();
  });
});
