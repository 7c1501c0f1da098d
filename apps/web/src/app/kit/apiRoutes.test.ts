import { describe, expect, it, vi } from 'vitest';
import type { AtriumDataProvider } from '../dataProvider';
import { routeDataProvider, splitFilter } from './apiRoutes';

describe('api routes of the kit', () => {
  it('splits plain query parameters from filter rules, dropping blanks and too-short searches', () => {
    expect(splitFilter({ search: ' ab ', branch: 4, 'name@has': 'x', other: '' }, ['search', 'branch', 'other'], { search: 2 })).toEqual({
      filter: { 'name@has': 'x' },
      query: { search: 'ab', branch: 4 },
    });
    expect(splitFilter({ search: 'a' }, ['search'], { search: 2 }).query).toEqual({});
  });

  const base = () => {
    const dp = {
      getList: vi.fn(async () => ({ data: [], total: 0 })),
      getOne: vi.fn(async () => ({ data: { id: 1 } })),
      request: vi.fn(async () => ({ data: [{ id: 2 }], meta: { total: 7 } })),
    };
    return dp;
  };

  it('gives a resource its API path', async () => {
    const dp = base();
    const routed = routeDataProvider(dp as unknown as AtriumDataProvider, { groups: { path: 'domains' } });
    await routed.getOne('groups', { id: 1 });
    expect(dp.getOne).toHaveBeenCalledWith('groups', { id: 1, meta: { path: 'domains' } });
    await routed.getOne('users', { id: 1 });
    expect(dp.getOne).toHaveBeenLastCalledWith('users', { id: 1 });
  });

  it('sends query parameters with the list query', async () => {
    const dp = base();
    const routed = routeDataProvider(dp as unknown as AtriumDataProvider, { groups: { path: 'domains', queryParams: ['search'] } });
    const answer = await routed.getList('groups', {
      pagination: { page: 2, perPage: 20 },
      sort: { field: 'name', order: 'DESC' },
      filter: { search: 'lobby', depth: 2 },
    });
    expect(answer).toEqual({ data: [{ id: 2 }], total: 7 });
    expect(dp.request).toHaveBeenCalledWith('/domains', {
      query: {
        page: 2,
        size: 20,
        sort: '-name',
        filters: JSON.stringify({ match: 'match_all', rules: [{ field: 'depth', operator: 'equals', value: 2 }] }),
        with: undefined,
        search: 'lobby',
      },
      signal: undefined,
    });
    await routed.getList('groups', { pagination: { page: 1, perPage: 20 }, filter: {} });
    expect(dp.getList).toHaveBeenCalledTimes(1);
  });
});
