import {
  DOMAIN_HIERARCHY,
  DOMAIN_TYPE_CODES,
  type DomainLicense,
  type DomainLicenseInfo,
  ERRORS,
  type ErrorCode,
  type GeneratedGroup,
  type GenerateGroupsBody,
  LICENSE_FEATURES,
  type LicenseInfo,
  UNLIMITED_PERIOD,
} from '@atrium/contract';
import { AppError } from '../../core/errors.js';

/** Which self-domain permission lets a member of a group change each field without an edit-groups permission. */
export const SELF_DOMAIN_FIELD: Readonly<Record<string, string>> = {
  name: 'general',
  description: 'general',
  domain_type_id: 'general',
  logic_address: 'general',
  apple_wallet_settings: 'general',
  is_resident_phonebook_enabled: 'general',
  internal_subnetworks: 'general',
  whitelabel_settings: 'white_label',
  device_status_notify: 'notifications',
  guest_identifier_limits: 'guest_access',
  users: 'users',
};
/** The self-domain permission codes (`can_manage_self_domain_<section>`) that open some field of one's own group. */
export const SELF_DOMAIN_CODES: readonly string[] = [...new Set(Object.values(SELF_DOMAIN_FIELD))].map(
  (s) => `can_manage_self_domain_${s}`,
);

export interface TypeRef {
  code: number;
  name: string;
}

/**
 * May a group of `child` type sit under a group of `parent` type (null parent: a root group)?
 * Answers the spec's error, with the child and parent type names in its details.
 */
export function hierarchyError(child: TypeRef | null, parent: TypeRef | null, isRoot: boolean): AppError | null {
  if (!child) return null;
  const allowed = DOMAIN_HIERARCHY[child.code];
  if (!allowed) return null;
  if (isRoot ? allowed.includes(null) : parent === null || DOMAIN_HIERARCHY[parent.code] === undefined || allowed.includes(parent.code)) {
    // An untyped or custom-typed parent accepts any child except an entrance, which needs a building.
    if (!isRoot && child.code === DOMAIN_TYPE_CODES.entrance && parent?.code !== DOMAIN_TYPE_CODES.building) {
      return new AppError('needs_building_parent', [{ child_type: child.name, parent_type: parent?.name ?? null }]);
    }
    return null;
  }
  if (child.code === DOMAIN_TYPE_CODES.entrance) {
    return new AppError('needs_building_parent', [{ child_type: child.name, parent_type: parent?.name ?? null }]);
  }
  return new AppError('wrong_group_hierarchy', [{ child_type: child.name, parent_type: parent?.name ?? null }]);
}

// --- licence consistency (spec entities §8) ----------------------------------------------------

export interface LicensedGroup {
  id: number;
  info: DomainLicenseInfo;
}

export interface LicenseIssue {
  code: ErrorCode;
  message: string;
  type: string;
  [key: string]: unknown;
}

const issue = (code: ErrorCode, type: string, params: Record<string, unknown> = {}): LicenseIssue => ({
  code,
  message: ERRORS[code].message,
  type,
  ...params,
});

const active = (info: DomainLicenseInfo | null | undefined): DomainLicense[] =>
  info?.is_enabled ? info.licenses.filter((l) => l.is_active) : [];

/** The period a licence really covers: its restriction when active, else its period. */
export function effectivePeriod(l: DomainLicense): { from: number; to: number } {
  return l.restrict_period.is_active ? { from: l.restrict_period.from, to: l.restrict_period.to } : l.period;
}
const isUnlimited = (p: { from: number; to: number }) => p.from <= UNLIMITED_PERIOD.from && p.to >= UNLIMITED_PERIOD.to;
const within = (inner: { from: number; to: number }, outer: { from: number; to: number }) =>
  inner.from >= outer.from && inner.to <= outer.to;
const overlaps = (a: { from: number; to: number }, b: { from: number; to: number }) => a.from <= b.to && b.from <= a.to;

/**
 * Checks a group's licences against its nearest licensed ancestor (or the project when it has none),
 * that ancestor's other licensed children, and its own licensed children. Answers every problem found.
 */
export function licenseIssues(v: {
  info: DomainLicenseInfo | null;
  parent: LicensedGroup | null;
  siblings: LicensedGroup[];
  children: LicensedGroup[];
  project: LicenseInfo | null;
}): LicenseIssue[] {
  const out: LicenseIssue[] = [];
  const mine = active(v.info);
  for (const l of mine) {
    const period = effectivePeriod(l);
    if (v.parent) {
      const pl = active(v.parent.info).find((p) => p.type === l.type);
      if (!pl) {
        out.push(issue('license_type_missing_in_parent', l.type, { parent_id: v.parent.id }));
      } else {
        const pp = effectivePeriod(pl);
        if (!isUnlimited(pp) && isUnlimited(period)) out.push(issue('license_period_missing', l.type, { parent_period: pp }));
        else if (!within(period, pp)) out.push(issue('license_period_missing_in_period', l.type, { period, parent_period: pp }));
        if (pl.quantity !== null) {
          const others = v.siblings
            .flatMap((s) => active(s.info).filter((x) => x.type === l.type))
            .filter((x) => overlaps(effectivePeriod(x), period));
          const used = [l, ...others].reduce((sum, x) => sum + (x.quantity ?? Number.POSITIVE_INFINITY), 0);
          if (used > pl.quantity) {
            const code = isUnlimited(period) ? 'license_quantity_exceeded' : 'license_quantity_exceeded_in_period';
            out.push(issue(code, l.type, { quantity: l.quantity, parent_quantity: pl.quantity }));
          }
        }
      }
    } else if (v.project) {
      const block = LICENSE_FEATURES[l.type as keyof typeof LICENSE_FEATURES]?.[0];
      const count = block ? ((v.project[block] as { license_count?: number | null }).license_count ?? null) : null;
      if (count !== null && count !== undefined) {
        const others = v.siblings.flatMap((s) => active(s.info).filter((x) => x.type === l.type));
        const used = [l, ...others].reduce((sum, x) => sum + (x.quantity ?? Number.POSITIVE_INFINITY), 0);
        if (used > count)
          out.push(issue('license_quantity_exceeded_in_project', l.type, { quantity: l.quantity, project_quantity: count }));
      }
    }
    const childLicenses = v.children.flatMap((c) =>
      active(c.info)
        .filter((x) => x.type === l.type)
        .map((x) => ({ id: c.id, l: x })),
    );
    for (const c of childLicenses) {
      if (!within(effectivePeriod(c.l), period)) out.push(issue('license_period_shorter_than_children', l.type, { child_id: c.id }));
    }
    if (l.quantity !== null) {
      const sum = childLicenses.reduce((s, c) => s + (c.l.quantity ?? Number.POSITIVE_INFINITY), 0);
      if (sum > l.quantity) out.push(issue('license_less_than_children', l.type, { quantity: l.quantity, children_quantity: sum }));
    }
  }
  const myTypes = new Set(mine.map((l) => l.type));
  for (const c of v.children) {
    for (const cl of active(c.info)) {
      if (!myTypes.has(cl.type) && v.info?.is_enabled) out.push(issue('license_type_used_by_children', cl.type, { child_id: c.id }));
    }
  }
  return out;
}

/** Of licensed groups below `rootId` (each with its path), those whose nearest licensed ancestor is `rootId`. */
export function nearestLicensed<T extends { id: number; path: number[] }>(rootId: number, rows: T[]): T[] {
  const licensed = new Set(rows.map((r) => r.id));
  return rows.filter((r) => {
    const i = r.path.indexOf(rootId);
    return i >= 0 && r.id !== rootId && !r.path.slice(i + 1, -1).some((a) => licensed.has(a));
  });
}

// --- generate ----------------------------------------------------------------------------------

function numbers(count: number, from: number, except: readonly number[], start: number): number[] {
  const skip = new Set(except);
  const out: number[] = [];
  for (let n = Math.max(from, start); out.length < count; n++) if (!skip.has(n)) out.push(n);
  return out;
}

/**
 * Builds the structure a generate call describes, without saving it: every level makes `count`
 * groups under each group of the level above, named prefix + number.
 */
export function generateStructure(body: GenerateGroupsBody, noAddressTypes: ReadonlySet<number>): GeneratedGroup[] {
  const levels = body.root_level_only ? body.domains.slice(0, 1) : body.domains;
  const build = (depth: number, parentNumber: number | null, counter: { next: number }): GeneratedGroup[] => {
    const level = levels[depth];
    if (!level) return [];
    const { from, except, is_in_youngest_num: continuous, is_start_youngest_num: prefixed } = level.numeration;
    const nums = numbers(level.count, from, except, continuous ? counter.next : from);
    if (continuous) counter.next = (nums[nums.length - 1] ?? from) + 1;
    const childCounter = { next: levels[depth + 1]?.numeration.from ?? 1 };
    return nums.map((n) => {
      const width = Math.max(2, String(level.count + from).length);
      const number = prefixed && parentNumber !== null ? parentNumber * 10 ** width + n : n;
      return {
        name: `${level.prefix}${number}`.trim() || String(number),
        domain_type_id: level.id,
        logic_address: level.logic_number && !noAddressTypes.has(level.id) ? number : null,
        children: build(depth + 1, number, levels[depth + 1]?.numeration.is_in_youngest_num ? childCounter : { next: 0 }),
      };
    });
  };
  return build(0, null, { next: 0 });
}

export const countGenerated = (tree: readonly GeneratedGroup[]): number => tree.reduce((n, g) => n + 1 + countGenerated(g.children), 0);
