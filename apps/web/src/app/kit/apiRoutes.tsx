import type { ReactNode } from 'react';
import { useContext, useMemo } from 'react';
import { DataProviderContext } from 'react-admin';
import { type AtriumDataProvider, toFilters, toSort } from '../dataProvider';

/**
 * How one resource reaches the API when the console's name differs from the server's, or when a
 * list takes plain query parameters besides `filters`:
 * - `path`: the API path of the resource (`groups` → `domains`);
 * - `queryParams`: filter sources sent as query parameters as they are (`search`, `branch`), not as filter rules.
 */
export interface ApiRoute {
  path?: string;
  queryParams?: readonly string[];
  /** Query parameters shorter than this are not sent yet (a search with a minimum length). */
  minLength?: Readonly<Record<string, number>>;
}

type Params = { meta?: Record<string, unknown>; filter?: Record<string, unknown> } & Record<string, unknown>;

const withPath = (route: ApiRoute | undefined, params: Params): Params =>
  route?.path && !params.meta?.path ? { ...params, meta: { ...params.meta, path: route.path } } : params;

/** Splits a react-admin filter into filter rules and plain query parameters. */
export function splitFilter(
  filter: Record<string, unknown> | undefined,
  queryParams: readonly string[] = [],
  minLength: Readonly<Record<string, number>> = {},
): { filter: Record<string, unknown>; query: Record<string, string | number | boolean> } {
  const rest: Record<string, unknown> = {};
  const query: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(filter ?? {})) {
    if (!queryParams.includes(k)) rest[k] = v;
    else if (typeof v === 'string' ? v.trim().length >= Math.max(1, minLength[k] ?? 1) : typeof v === 'number' || typeof v === 'boolean')
      query[k] = typeof v === 'string' ? v.trim() : (v as number | boolean);
  }
  return { filter: rest, query };
}

/** The data provider with `routes` applied to the resources they name. */
export function routeDataProvider(base: AtriumDataProvider, routes: Record<string, ApiRoute>): AtriumDataProvider {
  const wrapped = { ...base } as Record<string, unknown>;
  for (const [name, fn] of Object.entries(base)) {
    if (typeof fn !== 'function' || name === 'request') continue;
    wrapped[name] = (resource: string, params: Params = {}) => {
      const route = routes[resource];
      const p = withPath(route, params);
      if (name === 'getList' && route?.queryParams?.length) {
        const { filter, query } = splitFilter(params.filter, route.queryParams, route.minLength);
        if (Object.keys(query).length > 0) return listWithQuery(base, resource, { ...p, filter }, query);
        return base.getList(resource, { ...p, filter } as never);
      }
      return (fn as (r: string, p: Params) => unknown)(resource, p);
    };
  }
  return wrapped as AtriumDataProvider;
}

async function listWithQuery(base: AtriumDataProvider, resource: string, params: Params, extra: Record<string, string | number | boolean>) {
  const pagination = params.pagination as { page?: number; perPage?: number } | undefined;
  const filters = toFilters(params.filter);
  const w = params.meta?.with;
  const body = await base.request<{ data?: unknown[]; meta?: { total?: number } }>(`/${String(params.meta?.path ?? resource)}`, {
    query: {
      page: pagination?.page,
      size: pagination?.perPage,
      sort: toSort(params.sort as never),
      filters: filters ? JSON.stringify(filters) : undefined,
      with: Array.isArray(w) ? w.join(',') : typeof w === 'string' ? w : undefined,
      ...extra,
    },
    signal: params.signal as AbortSignal | undefined,
  });
  return { data: body.data ?? [], total: body.meta?.total ?? body.data?.length ?? 0 };
}

/** Gives the pages below it a data provider with `routes` applied (e.g. `{ groups: { path: 'domains' } }`). */
export function ApiRoutes({ routes, children }: { routes: Record<string, ApiRoute>; children: ReactNode }) {
  const base = useContext(DataProviderContext) as AtriumDataProvider | null;
  const value = useMemo(() => (base ? routeDataProvider(base, routes) : base), [base, routes]);
  return <DataProviderContext.Provider value={value}>{children}</DataProviderContext.Provider>;
}
