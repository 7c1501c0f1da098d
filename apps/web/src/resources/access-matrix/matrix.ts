import type { AccessMatrixRow } from '@atrium/contract';
import type { AtriumDataProvider } from '../../app/dataProvider';

/** The API's page limit (`page` ≤ 100 000): the pager never offers a page past it, however many rows there are. */
export const MAX_PAGE = 100_000;

/** The matrix's filters, each a plain query parameter of `GET /access-matrix`. */
export const MATRIX_FILTERS = ['user_id', 'device_id', 'identifier_id', 'rule_id', 'search'] as const;
/** The columns the API sorts by. */
export const MATRIX_SORTS = ['user_name', 'device_name', 'rule_name'] as const;

type Query = Record<string, string | number>;

/** The matrix's filter values as query parameters: ids as numbers, the search trimmed; empty ones left out. */
export function matrixFilterQuery(filter: Record<string, unknown> | undefined): Query {
  const q: Query = {};
  for (const key of MATRIX_FILTERS) {
    const v = filter?.[key];
    if (key === 'search') {
      if (typeof v === 'string' && v.trim()) q.search = v.trim().slice(0, 100);
    } else if (v !== undefined && v !== null && v !== '' && Number.isInteger(Number(v)) && Number(v) >= 1) q[key] = Number(v);
  }
  return q;
}

/** The sort parameter (`user_name`, `-device_name`); a column the API does not sort by falls back to the person. */
export function matrixSort(sort: { field?: string; order?: string } | undefined): string {
  const field = (MATRIX_SORTS as readonly string[]).includes(sort?.field ?? '') ? (sort?.field as string) : 'user_name';
  return sort?.order === 'DESC' ? `-${field}` : field;
}

/** The query of one page of the list. */
export function matrixListQuery(params: {
  pagination?: { page?: number; perPage?: number };
  sort?: { field?: string; order?: string };
  filter?: Record<string, unknown>;
}): Query {
  const page = Math.min(Math.max(1, params.pagination?.page ?? 1), MAX_PAGE);
  const size = Math.min(Math.max(1, params.pagination?.perPage ?? 20), 500);
  return { page, size, sort: matrixSort(params.sort), ...matrixFilterQuery(params.filter) };
}

/** A row has no id of its own: the identifier, lock and rule make it one (a rule may reach one lock once per identifier). */
export const matrixRowId = (r: Pick<AccessMatrixRow, 'identifier_id' | 'device_id' | 'lock_number' | 'rule_id'>): string =>
  `${r.identifier_id}-${r.device_id}-${r.lock_number}-${r.rule_id}`;

/**
 * The total the pager may page through: the real one, but no more than the API's last page holds
 * (the label still shows the real total).
 */
export const pageableTotal = (total: number, perPage: number): number => Math.min(total, MAX_PAGE * perPage);

/** A row count in the reader's language (10 000 000 → "10,000,000" / "10 000 000"), "≈" before an estimate. */
export function formatTotal(total: number, locale: string, estimated = false): string {
  const text = new Intl.NumberFormat(locale).format(total);
  return estimated ? `≈ ${text}` : text;
}

export const ACCESS_MATRIX = 'access-matrix';

export type Row = AccessMatrixRow & { id: string };

/**
 * `GET /access-matrix` takes its filters as plain query parameters and answers rows without ids:
 * the list reaches it through this provider, which names each row and keeps the pager within the API's pages.
 */
export function matrixProvider(base: AtriumDataProvider): AtriumDataProvider {
  return {
    ...base,
    getList: (async (resource: string, params: Parameters<AtriumDataProvider['getList']>[1]) => {
      if (resource !== ACCESS_MATRIX) return base.getList(resource, params);
      const body = await base.request<{ data?: AccessMatrixRow[]; meta?: { total?: number; estimated?: boolean } }>('/access-matrix', {
        query: matrixListQuery(params),
        signal: params.signal,
      });
      const data: Row[] = (body.data ?? []).map((r) => ({ ...r, id: matrixRowId(r) }));
      const total = body.meta?.total ?? data.length;
      return {
        data,
        total: pageableTotal(total, params.pagination?.perPage ?? 20),
        meta: { total, estimated: body.meta?.estimated === true },
      };
    }) as AtriumDataProvider['getList'],
  };
}
