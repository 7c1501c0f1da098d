import { describe, expect, it } from 'vitest';
import { BulkDeleteBodySchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES } from './validators.js';

describe('ListQuerySchema', () => {
  it('applies defaults', () => {
    expect(ListQuerySchema.parse({})).toEqual({ page: 1, size: 20, with: [] });
  });

  it('parses filters JSON and with', () => {
    const q = ListQuerySchema.parse({
      page: '2',
      size: '50',
      sort: '-created_at,name',
      with: 'role, groups',
      filters: JSON.stringify({ match: 'match_any', rules: [{ field: 'name', operator: 'has', value: 'a' }] }),
    });
    expect(q).toMatchObject({ page: 2, size: 50, sort: '-created_at,name', with: ['role', 'groups'] });
    expect(q.filters).toEqual({ match: 'match_any', rules: [{ field: 'name', operator: 'has', value: 'a' }] });
  });

  it('defaults match to match_all', () => {
    expect(ListQuerySchema.parse({ filters: '{"rules":[]}' }).filters).toEqual({ match: 'match_all', rules: [] });
  });

  it.each([
    { page: '0' },
    { page: '1.5' },
    { size: '0' },
    { size: '1001' },
    { sort: 'name desc' },
    { sort: 'a,a,a,' },
    { filters: 'nope' },
    { filters: '{"match":"match_some","rules":[]}' },
    { filters: '{"rules":[{"field":"name","operator":"contains","value":"x"}]}' },
    { filters: '{"rules":[{"field":"name","operator":"equals","value":{"x":1}}]}' },
    { filters: '{"rules":[{"field":"name","operator":"equals"}]}' },
    { filters: '{"rules":[{"field":"","operator":"equals","value":1}]}' },
    { filters: '{"rules":[],"extra":1}' },
  ])('refuses %j', (raw) => {
    expect(ListQuerySchema.safeParse(raw).success).toBe(false);
  });

  it('reports a bad filter rule by its own code and place, so the server can name the catalogue message', () => {
    const long = JSON.stringify({ rules: [{ field: 'name', operator: 'like', value: 'x'.repeat(1001) }] });
    const issues = ListQuerySchema.safeParse({ filters: long }).error?.issues ?? [];
    expect(issues.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['invalid_value', 'filters.rules.0.operator'],
      ['too_big', 'filters.rules.0.value'],
    ]);
    expect(ListQuerySchema.safeParse({ filters: '{not json' }).error?.issues[0]?.message).toBe(VALIDATION_MESSAGES.invalid_value);
    expect(ListQuerySchema.safeParse({ sort: 'a b' }).error?.issues[0]?.message).toBe(VALIDATION_MESSAGES.invalid_value);
  });

  it('bulk delete needs a non-empty list of ids', () => {
    expect(BulkDeleteBodySchema.safeParse({ items: [1, 2] }).success).toBe(true);
    expect(BulkDeleteBodySchema.safeParse({ items: [] }).success).toBe(false);
    expect(BulkDeleteBodySchema.safeParse({ items: ['1'] }).success).toBe(false);
    expect(BulkDeleteBodySchema.safeParse({}).success).toBe(false);
  });
});
