import type { BulkDeleteResult, FilterOperator, FilterRule, Filters } from '@atrium/contract';
import type { DataProvider, GetListParams, Identifier, RaRecord } from 'ra-core';
import { ApiError, type HttpClient, type RequestOptions } from './http';

/**
 * react-admin's data provider on the API conventions of ARCHITECTURE §3:
 * - getList → GET /<resource>?page&size&sort&filters(JSON)&with, answer {data, meta:{total}}
 * - getOne → GET /<resource>/<id>; create → PUT /<resource> (the new record, or id, in data.data)
 * - update → PATCH /<resource>/<id> with the changed fields; delete → DELETE /<resource>/<id>
 * - deleteMany → POST /<resource>/delete {items}; what was not deleted comes back in `meta.notDeleted`
 *
 * Filters: a filter key `field` means equals; `field@operator` picks one of the six operators
 * (`name@begins_with`, `created_at@above`); `_match: 'match_any'` combines rules with OR. Relations
 * to embed go in `meta.with` (array or comma list). A resource name may hold slashes
 * (`devices/events`), or `meta.path` may give the path outright.
 */

export const FILTER_OPERATOR_SEPARATOR = '@';
const OPERATORS: readonly FilterOperator[] = ['equals', 'not_equals', 'above', 'below', 'has', 'begins_with'];

/** The source name of a filter input for `field` with `operator` (equals needs none). */
export const filterSource = (field: string, operator: FilterOperator = 'equals'): string =>
  operator === 'equals' ? field : `${field}${FILTER_OPERATOR_SEPARATOR}${operator}`;

/** react-admin's filter values → the API's filters, or undefined when there is nothing to filter. */
export function toFilters(filter: Record<string, unknown> | undefined): Filters | undefined {
  const rules: FilterRule[] = [];
  let match: Filters['match'] = 'match_all';
  for (const [key, raw] of Object.entries(filter ?? {})) {
    if (key === '_match') {
      if (raw === 'match_any') match = 'match_any';
      continue;
    }
    if (raw === undefined || raw === '' || (Array.isArray(raw) && raw.length === 0)) continue;
    const at = key.lastIndexOf(FILTER_OPERATOR_SEPARATOR);
    const candidate = at > 0 ? key.slice(at + 1) : '';
    const operator = (OPERATORS as readonly string[]).includes(candidate) ? (candidate as FilterOperator) : 'equals';
    const field = operator === 'equals' && candidate !== 'equals' ? key : key.slice(0, at);
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      const v = value instanceof Date ? value.toISOString() : value;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) rules.push({ field, operator, value: v });
    }
    // Several values for one field can only mean "any of them".
    if (Array.isArray(raw) && raw.length > 1) match = 'match_any';
  }
  return rules.length > 0 ? { match, rules } : undefined;
}

/** react-admin's sort → the API's `sort` (`name`, `-created_at`). */
export function toSort(sort: GetListParams['sort'] | undefined): string | undefined {
  if (!sort?.field) return undefined;
  return sort.order === 'DESC' ? `-${sort.field}` : sort.field;
}

const toWith = (meta: unknown): string | undefined => {
  const w = (meta as { with?: unknown } | undefined)?.with;
  if (Array.isArray(w)) return w.length ? w.join(',') : undefined;
  return typeof w === 'string' && w ? w : undefined;
};

const resourcePath = (resource: string, meta: unknown): string => {
  const path = (meta as { path?: unknown } | undefined)?.path;
  return `/${typeof path === 'string' && path ? path.replace(/^\/+/, '') : resource}`;
};

/** The fields of `data` that differ from `previous` (all of them without a previous record). */
export function changedFields(data: Record<string, unknown>, previous?: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (k === 'id') continue;
    if (!previous || JSON.stringify(v) !== JSON.stringify(previous[k])) out[k] = v;
  }
  return out;
}

interface ListBody<T> {
  data: T[];
  meta?: { total?: number; page?: number; size?: number };
}

/** The data provider with an extra `request` for calls outside CRUD (areas use it with react-query). */
export type AtriumDataProvider = DataProvider & {
  request<T = unknown>(path: string, options?: RequestOptions): Promise<T>;
};

export interface DataProviderOptions {
  /** The text react-admin notifies for a failed call. */
  describeError?: (error: unknown) => string;
  /** The per-field complaints of a refused save, for the form (react-admin's `body.errors`). */
  fieldErrors?: (error: unknown) => Record<string, unknown> | undefined;
}

export function createDataProvider(http: HttpClient, options: DataProviderOptions = {}): AtriumDataProvider {
  // react-admin shows `error.message` as its notification: give it the translated text of the
  // error display rule, keeping status and body for the auth provider and the forms.
  const call = async <T>(path: string, o?: RequestOptions): Promise<T> => {
    try {
      return await http.request<T>(path, o);
    } catch (error) {
      if (!(error instanceof ApiError) || (!options.describeError && !options.fieldErrors)) throw error;
      const message = options.describeError ? options.describeError(error) : error.message;
      // A refused value (400) or a duplicate (409) belongs to a field of the form.
      const errors = error.status === 400 || error.status === 409 ? options.fieldErrors?.(error) : undefined;
      const body = errors && error.body && typeof error.body === 'object' ? { ...error.body, errors } : error.body;
      throw new ApiError(error.status, message, body);
    }
  };

  const getList = async (resource: string, params: Partial<GetListParams>) => {
    const filters = toFilters(params.filter);
    const body = await call<ListBody<RaRecord>>(resourcePath(resource, params.meta), {
      query: {
        page: params.pagination?.page,
        size: params.pagination?.perPage,
        sort: toSort(params.sort),
        filters: filters ? JSON.stringify(filters) : undefined,
        with: toWith(params.meta),
      },
      signal: params.signal,
    });
    return { data: body.data ?? [], total: body.meta?.total ?? body.data?.length ?? 0 };
  };

  const recordOf = (body: unknown, fallback: Record<string, unknown>): RaRecord => {
    const data = (body as { data?: unknown } | undefined)?.data;
    if (data && typeof data === 'object' && 'id' in data) return data as RaRecord;
    if (typeof data === 'number' || typeof data === 'string') return { ...fallback, id: data };
    return fallback as RaRecord;
  };

  return {
    getList: (resource, params) => getList(resource, params) as never,

    async getOne(resource, params) {
      const body = await call<{ data: RaRecord }>(`${resourcePath(resource, params.meta)}/${encodeURIComponent(String(params.id))}`, {
        query: { with: toWith(params.meta) },
        signal: params.signal,
      });
      return { data: body.data } as never;
    },

    async getMany(resource, params) {
      if (params.ids.length === 0) return { data: [] };
      const { data } = await getList(resource, {
        pagination: { page: 1, perPage: params.ids.length },
        filter: { id: params.ids, _match: 'match_any' },
        meta: params.meta,
        signal: params.signal,
      });
      return { data } as never;
    },

    getManyReference: (resource, params) =>
      getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } }) as never,

    async create(resource, params) {
      const body = await call<unknown>(resourcePath(resource, params.meta), { method: 'PUT', body: params.data });
      return { data: recordOf(body, params.data as Record<string, unknown>) } as never;
    },

    async update(resource, params) {
      const data = params.data as Record<string, unknown>;
      const body = await call<unknown>(`${resourcePath(resource, params.meta)}/${encodeURIComponent(String(params.id))}`, {
        method: 'PATCH',
        body: changedFields(data, params.previousData as Record<string, unknown> | undefined),
      });
      return { data: recordOf(body, { ...(params.previousData as object), ...data, id: params.id }) } as never;
    },

    async updateMany(resource, params) {
      await Promise.all(
        params.ids.map((id) =>
          call(`${resourcePath(resource, params.meta)}/${encodeURIComponent(String(id))}`, { method: 'PATCH', body: params.data }),
        ),
      );
      return { data: params.ids };
    },

    async delete(resource, params) {
      await call(`${resourcePath(resource, params.meta)}/${encodeURIComponent(String(params.id))}`, { method: 'DELETE' });
      return { data: (params.previousData ?? { id: params.id }) as never };
    },

    async deleteMany(resource, params) {
      const body = await call<{ data?: BulkDeleteResult }>(`${resourcePath(resource, params.meta)}/delete`, {
        method: 'POST',
        body: { items: params.ids },
      });
      const result = body?.data;
      const deleted: Identifier[] = result?.deleted ?? params.ids;
      return { data: deleted, meta: { notDeleted: result?.not_deleted ?? [] } };
    },

    request: call,
  };
}
