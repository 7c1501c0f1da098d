import { describe, expect, it, vi } from 'vitest';
import type { AtriumDataProvider } from '../../app/dataProvider';
import {
  formatTotal,
  MAX_PAGE,
  matrixFilterQuery,
  matrixListQuery,
  matrixProvider,
  matrixRowId,
  matrixSort,
  pageableTotal,
} from './matrix';
import { en, ru } from './messages';

describe('access matrix list → API query', () => {
  it('sends the filters as plain query parameters, ids as numbers, empty ones left out', () => {
    expect(matrixFilterQuery({ user_id: '7', device_id: 3, identifier_id: '', rule_id: null, search: '  lobby  ', other: 'x' })).toEqual({
      user_id: 7,
      device_id: 3,
      search: 'lobby',
    });
    expect(matrixFilterQuery({ search: '   ', user_id: 'abc', rule_id: 0 })).toEqual({});
    expect(matrixFilterQuery(undefined)).toEqual({});
  });

  it('sorts by the columns the API sorts by, falling back to the person', () => {
    expect(matrixSort({ field: 'device_name', order: 'DESC' })).toBe('-device_name');
    expect(matrixSort({ field: 'rule_name', order: 'ASC' })).toBe('rule_name');
    expect(matrixSort({ field: 'lock_number', order: 'DESC' })).toBe('-user_name');
    expect(matrixSort(undefined)).toBe('user_name');
  });

  it('pages within the API limits', () => {
    expect(
      matrixListQuery({ pagination: { page: 3, perPage: 50 }, sort: { field: 'device_name', order: 'ASC' }, filter: { rule_id: 2 } }),
    ).toEqual({
      page: 3,
      size: 50,
      sort: 'device_name',
      rule_id: 2,
    });
    expect(matrixListQuery({ pagination: { page: MAX_PAGE + 5, perPage: 1000 } })).toMatchObject({ page: MAX_PAGE, size: 500 });
    expect(matrixListQuery({})).toMatchObject({ page: 1, size: 20, sort: 'user_name' });
  });

  it('names each row by identifier, device, lock and rule', () => {
    expect(matrixRowId({ identifier_id: 4, device_id: 9, lock_number: 2, rule_id: 11 })).toBe('4-9-2-11');
    expect(matrixRowId({ identifier_id: 4, device_id: 9, lock_number: 1, rule_id: 11 })).not.toBe('4-9-2-11');
  });

  it('keeps the pager within the last page the API serves, and shows large totals formatted', () => {
    expect(pageableTotal(55, 20)).toBe(55);
    expect(pageableTotal(10_000_000, 20)).toBe(MAX_PAGE * 20);
    expect(formatTotal(10_000_000, 'en')).toBe('10,000,000');
    expect(formatTotal(10_000_000, 'ru').replace(/\s/g, ' ')).toBe('10 000 000');
    expect(formatTotal(10_001, 'en', true)).toBe('≈ 10,001');
  });
});

describe('access matrix texts', () => {
  const keys = (o: object, prefix = ''): string[] =>
    Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' && v ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
  it('has every English text in Russian, none empty', () => {
    expect(keys(ru).sort()).toEqual(keys(en).sort());
    for (const k of keys(ru))
      expect(
        k.split('.').reduce((o: never, p) => o[p], ru as never),
        k,
      ).not.toBe('');
  });
  it('labels every column the API answers', () => {
    for (const c of [
      'user_name',
      'identifier_name',
      'identifier_type',
      'device_name',
      'lock_number',
      'rule_name',
      'prohibition',
      'schedules',
    ])
      expect(en.resources['access-matrix'].fields).toHaveProperty(c);
  });
});

describe('access matrix data provider', () => {
  const row = {
    user_id: 5,
    user_name: 'Ann',
    identifier_id: 7,
    identifier_name: 'Card',
    identifier_type: 'card',
    device_id: 3,
    device_name: 'Gate',
    lock_number: 1,
    rule_id: 2,
    rule_name: 'Staff',
    prohibition: false,
    schedules: [],
  };
  const base = (meta: object) => {
    const request = vi.fn(async (_path: string, _opts: unknown) => ({ data: [row], meta }));
    const getList = vi.fn(async () => ({ data: [], total: 0 }));
    return { request, getList, dp: matrixProvider({ request, getList } as unknown as AtriumDataProvider) };
  };

  it('asks GET /access-matrix with plain parameters and names the rows', async () => {
    const { request, dp } = base({ total: 1, page: 2, size: 50 });
    const answer = await dp.getList('access-matrix', {
      pagination: { page: 2, perPage: 50 },
      sort: { field: 'rule_name', order: 'DESC' },
      filter: { device_id: 3, search: ' gate ' },
    });
    expect(request).toHaveBeenCalledWith('/access-matrix', {
      query: { page: 2, size: 50, sort: '-rule_name', device_id: 3, search: 'gate' },
      signal: undefined,
    });
    expect(answer.data).toEqual([{ ...row, id: '7-3-1-2' }]);
    expect(answer.total).toBe(1);
  });

  it('keeps a huge total for the label but pages only as far as the API serves', async () => {
    const { dp } = base({ total: 10_000_000, page: 1, size: 20, estimated: true });
    const answer = await dp.getList('access-matrix', {
      pagination: { page: 1, perPage: 20 },
      sort: { field: 'user_name', order: 'ASC' },
      filter: {},
    });
    expect(answer.total).toBe(MAX_PAGE * 20);
    expect(answer.meta).toEqual({ total: 10_000_000, estimated: true });
  });

  it('leaves other resources (the filters’ pickers) to the base provider', async () => {
    const { request, getList, dp } = base({ total: 0 });
    await dp.getList('devices', { pagination: { page: 1, perPage: 25 }, sort: { field: 'name', order: 'ASC' }, filter: {} });
    expect(getList).toHaveBeenCalledOnce();
    expect(request).not.toHaveBeenCalled();
  });
});
