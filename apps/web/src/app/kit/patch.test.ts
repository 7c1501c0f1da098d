import { describe, expect, it } from 'vitest';
import { patchOf, patchTransform } from './patch';

describe('patch of an edit form', () => {
  it('keeps only what differs', () => {
    expect(patchOf({ a: 1, b: [1, 2], c: { x: 1 } }, { a: 1, b: [1, 2], c: { x: 2 } })).toEqual({ c: { x: 1 } });
    expect(patchOf({ a: 1 }, undefined)).toEqual({ a: 1 });
  });
  it('compares the record in the same API form as the values', () => {
    const toBody = (v: Record<string, unknown>) => ({
      roles: (v.roles as ({ id: number } | number)[]).map((r) => (typeof r === 'number' ? r : r.id)),
    });
    const transform = patchTransform(toBody);
    expect(transform({ roles: [1, 2] }, { previousData: { roles: [{ id: 1 }, { id: 2 }] } })).toEqual({});
    expect(transform({ roles: [1] }, { previousData: { roles: [{ id: 1 }, { id: 2 }] } })).toEqual({ roles: [1] });
  });
});
