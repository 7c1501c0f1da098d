/** A row of the complete group list (`GET /domains/completely`). */
export interface TreeItem {
  id: number;
  name: string;
  parent_id: number | null;
  domain_type_id: number | null;
  logic_address: number | null;
}

export interface TreeNode extends TreeItem {
  children: TreeNode[];
  depth: number;
}

const byName = (a: TreeItem, b: TreeItem) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' }) || a.id - b.id;

/**
 * The ids from the top visible ancestor down to `id` (the group's path as far as the user sees it),
 * from a map of id → parent_id. Enough for the action rules: groups below mine have mine in it.
 */
export function pathOf(id: number, parents: ReadonlyMap<number, number | null>): number[] {
  const path = [id];
  let parent = parents.get(id);
  while (parent !== null && parent !== undefined && !path.includes(parent)) {
    path.unshift(parent);
    parent = parents.get(parent);
  }
  return path;
}

/**
 * The forest of the groups a user sees. A group whose parent is not among them (not visible to
 * this user) is a root. Siblings are sorted by name, numbers in names compared as numbers.
 */
export function buildTree(items: readonly TreeItem[]): TreeNode[] {
  const nodes = new Map<number, TreeNode>();
  for (const it of items) nodes.set(it.id, { ...it, children: [], depth: 0 });
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent_id === null ? undefined : nodes.get(node.parent_id);
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const visit = (list: TreeNode[], depth: number, seen: Set<number>) => {
    list.sort(byName);
    for (const n of list) {
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      n.depth = depth;
      visit(n.children, depth + 1, seen);
    }
  };
  visit(roots, 0, new Set());
  return roots;
}

/** Whether a node's text matches the search (name, or the logical address exactly). */
export function nodeMatches(node: TreeItem, search: string): boolean {
  const q = search.trim().toLowerCase();
  if (!q) return true;
  return node.name.toLowerCase().includes(q) || (node.logic_address !== null && String(node.logic_address) === q);
}

/**
 * The tree cut to the groups that match `search`, with their ancestors (to show where they are)
 * and, collapsed, their descendants. Answers the ids to expand so every match is visible.
 */
export function searchTree(roots: readonly TreeNode[], search: string): { roots: TreeNode[]; expand: Set<number>; matches: number } {
  const expand = new Set<number>();
  let matches = 0;
  const walk = (node: TreeNode): TreeNode | null => {
    if (nodeMatches(node, search)) {
      matches++;
      // A match keeps its whole subtree, and matches below it are still counted and opened.
      const kept = node.children.map(walk);
      if (kept.some((k) => k !== null)) expand.add(node.id);
      return node;
    }
    const children = node.children.map(walk).filter((n): n is TreeNode => n !== null);
    if (children.length === 0) return null;
    expand.add(node.id);
    return { ...node, children };
  };
  if (!search.trim()) return { roots: [...roots], expand, matches: 0 };
  return { roots: roots.map(walk).filter((n): n is TreeNode => n !== null), expand, matches };
}

/** The rows on screen: depth-first, children only under expanded nodes. */
export function visibleRows(roots: readonly TreeNode[], expanded: ReadonlySet<number>): TreeNode[] {
  const out: TreeNode[] = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const n = stack.pop() as TreeNode;
    out.push(n);
    if (expanded.has(n.id)) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as TreeNode);
  }
  return out;
}

/** Ids of a node and everything below it (a group cannot be moved under itself or its descendants). */
export function subtreeIds(roots: readonly TreeNode[], id: number): Set<number> {
  const out = new Set<number>();
  const find = (list: readonly TreeNode[]): TreeNode | null => {
    for (const n of list) {
      if (n.id === id) return n;
      const f = find(n.children);
      if (f) return f;
    }
    return null;
  };
  const start = find(roots);
  const stack = start ? [start] : [];
  while (stack.length) {
    const n = stack.pop() as TreeNode;
    out.add(n.id);
    stack.push(...n.children);
  }
  return out;
}
