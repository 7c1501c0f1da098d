import { describe, expect, it } from 'vitest';
import { buildTree, pathOf, searchTree, subtreeIds, type TreeItem, visibleRows } from './tree';

const item = (id: number, name: string, parent_id: number | null, logic_address: number | null = null): TreeItem => ({
  id,
  name,
  parent_id,
  domain_type_id: null,
  logic_address,
});

// Complex 1 > Building 2 > Entrance 3 > Floor 10, Floor 2 (numeric sort); Building 5; a group under an invisible parent.
const items = [
  item(1, 'Complex', null),
  item(2, 'Building A', 1, 1),
  item(3, 'Entrance 1', 2, 1),
  item(4, 'Floor 10', 3, 10),
  item(6, 'Floor 2', 3, 2),
  item(5, 'Building B', 1, 2),
  item(9, 'Orphan', 99),
];

describe('group tree', () => {
  const roots = buildTree(items);

  it('roots are groups without a visible parent; siblings sorted with numbers as numbers', () => {
    expect(roots.map((r) => r.name)).toEqual(['Complex', 'Orphan']);
    const entrance = roots[0]?.children[0]?.children[0];
    expect(entrance?.children.map((c) => c.name)).toEqual(['Floor 2', 'Floor 10']);
    expect(entrance?.depth).toBe(2);
  });

  it('shows children only under expanded nodes, depth first', () => {
    expect(visibleRows(roots, new Set()).map((r) => r.id)).toEqual([1, 9]);
    expect(visibleRows(roots, new Set([1, 2])).map((r) => r.id)).toEqual([1, 2, 3, 5, 9]);
  });

  it('search keeps matches with their ancestors and opens the way to them', () => {
    const found = searchTree(roots, 'floor 2');
    expect(found.matches).toBe(1);
    expect(visibleRows(found.roots, found.expand).map((r) => r.id)).toEqual([1, 2, 3, 6]);
  });

  it('search by logical address is exact', () => {
    const found = searchTree(roots, '10');
    expect(visibleRows(found.roots, found.expand).map((r) => r.id)).toEqual([1, 2, 3, 4]);
  });

  it('a matching group keeps its subtree, collapsed unless more matches lie below', () => {
    const found = searchTree(roots, 'building');
    expect(found.matches).toBe(2);
    expect(visibleRows(found.roots, found.expand).map((r) => r.id)).toEqual([1, 2, 5]);
    expect(found.roots[0]?.children[0]?.children.length).toBe(1);
  });

  it('a cycle in the data does not loop forever', () => {
    const cyclic = buildTree([item(1, 'A', 2), item(2, 'B', 1)]);
    expect(cyclic).toEqual([]);
  });

  it('subtree ids of a node', () => {
    expect([...subtreeIds(roots, 2)].sort()).toEqual([2, 3, 4, 6]);
  });

  it('pathOf walks the visible ancestors down to the group, and stops at a loop', () => {
    const parents = new Map<number, number | null>([
      [1, null],
      [2, 1],
      [3, 2],
      [7, 99],
      [8, 9],
      [9, 8],
    ]);
    expect(pathOf(3, parents)).toEqual([1, 2, 3]);
    expect(pathOf(1, parents)).toEqual([1]);
    expect(pathOf(7, parents)).toEqual([99, 7]);
    expect(pathOf(8, parents)).toEqual([9, 8]);
  });
});
