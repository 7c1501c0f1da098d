import { type DomainLicenseInfo, DomainLicenseInfoSchema, GenerateGroupsBodySchema } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { countGenerated, generateStructure, hierarchyError, licenseIssues, nearestLicensed } from './groups.rules.js';

const T = {
  complex: { code: 1, name: 'Complex' },
  building: { code: 2, name: 'Building' },
  entrance: { code: 3, name: 'Entrance' },
  floor: { code: 4, name: 'Floor' },
  service: { code: 5, name: 'Service area' },
  apartment: { code: 6, name: 'Apartment' },
  custom: { code: 77, name: 'Parking' },
};

describe('hierarchyError', () => {
  it.each([
    ['building under complex', T.building, T.complex, false],
    ['building at the root', T.building, null, true],
    ['entrance under building', T.entrance, T.building, false],
    ['floor under entrance', T.floor, T.entrance, false],
    ['apartment under floor', T.apartment, T.floor, false],
    ['custom type anywhere', T.custom, T.apartment, false],
    ['apartment under a custom type', T.apartment, T.custom, false],
    ['untyped group', null, T.apartment, false],
  ])('allows %s', (_n, child, parent, root) => {
    expect(hierarchyError(child, parent, root)).toBeNull();
  });

  it.each([
    ['building under apartment', T.building, T.apartment, false, 'wrong_group_hierarchy'],
    ['floor at the root', T.floor, null, true, 'wrong_group_hierarchy'],
    ['complex under building', T.complex, T.building, false, 'wrong_group_hierarchy'],
    ['entrance under complex', T.entrance, T.complex, false, 'needs_building_parent'],
    ['entrance at the root', T.entrance, null, true, 'needs_building_parent'],
    ['entrance under a custom type', T.entrance, T.custom, false, 'needs_building_parent'],
  ])('refuses %s', (_n, child, parent, root, code) => {
    const err = hierarchyError(child, parent, root);
    expect(err).toBeInstanceOf(AppError);
    expect(err?.code).toBe(code);
    expect(err?.details).toEqual([{ child_type: child.name, parent_type: parent?.name ?? null }]);
  });
});

const info = (licenses: Partial<DomainLicenseInfo['licenses'][number]>[]): DomainLicenseInfo =>
  DomainLicenseInfoSchema.parse({ is_enabled: true, licenses });

describe('licenseIssues', () => {
  const codes = (v: Parameters<typeof licenseIssues>[0]) => licenseIssues(v).map((i) => i.code);
  const base = { siblings: [], children: [], project: null };

  it('accepts a licence within its parent', () => {
    const parent = { id: 1, info: info([{ type: 'sip', quantity: 10, period: { from: 100, to: 1000 } }]) };
    expect(codes({ ...base, info: info([{ type: 'sip', quantity: 5, period: { from: 200, to: 900 } }]), parent })).toEqual([]);
  });

  it('names a type missing in the parent', () => {
    const parent = { id: 1, info: info([{ type: 'sip' }]) };
    expect(codes({ ...base, info: info([{ type: 'ukey2' }]), parent })).toEqual(['license_type_missing_in_parent']);
  });

  it('refuses an unlimited period under a limited parent, and a period outside it', () => {
    const parent = { id: 1, info: info([{ type: 'sip', period: { from: 100, to: 1000 } }]) };
    expect(codes({ ...base, info: info([{ type: 'sip' }]), parent })).toEqual(['license_period_missing']);
    expect(codes({ ...base, info: info([{ type: 'sip', period: { from: 50, to: 500 } }]), parent })).toEqual([
      'license_period_missing_in_period',
    ]);
  });

  it('counts siblings against the parent quantity, in the period when one is set', () => {
    const parent = { id: 1, info: info([{ type: 'sip', quantity: 10 }]) };
    const siblings = [{ id: 3, info: info([{ type: 'sip', quantity: 6 }]) }];
    expect(codes({ ...base, info: info([{ type: 'sip', quantity: 5 }]), parent, siblings })).toEqual(['license_quantity_exceeded']);
    expect(codes({ ...base, info: info([{ type: 'sip', quantity: 4 }]), parent, siblings })).toEqual([]);
    const limited = info([{ type: 'sip', quantity: 5, period: { from: 10, to: 20 } }]);
    expect(codes({ ...base, info: limited, parent, siblings })).toEqual(['license_quantity_exceeded_in_period']);
    // An unlimited quantity under a limited parent exceeds it.
    expect(codes({ ...base, info: info([{ type: 'sip' }]), parent })).toEqual(['license_quantity_exceeded']);
  });

  it('checks a root group against the project count', () => {
    const project = { sip: { license_count: 3 } } as never;
    expect(codes({ ...base, parent: null, project, info: info([{ type: 'sip', quantity: 4 }]) })).toEqual([
      'license_quantity_exceeded_in_project',
    ]);
    expect(codes({ ...base, parent: null, project, info: info([{ type: 'sip', quantity: 3 }]) })).toEqual([]);
  });

  it('checks children: sum, periods and types they use', () => {
    const children = [
      { id: 5, info: info([{ type: 'sip', quantity: 3, period: { from: 0, to: 50 } }]) },
      { id: 6, info: info([{ type: 'sip', quantity: 3 }, { type: 'ukey2' }]) },
    ];
    expect(codes({ ...base, parent: null, children, info: info([{ type: 'sip', quantity: 5, period: { from: 0, to: 100 } }]) })).toEqual([
      'license_period_shorter_than_children',
      'license_less_than_children',
      'license_type_used_by_children',
    ]);
  });

  it('ignores disabled licence info and inactive licences', () => {
    const parent = { id: 1, info: info([]) };
    expect(codes({ ...base, parent, info: { ...info([{ type: 'sip' }]), is_enabled: false } })).toEqual([]);
    expect(codes({ ...base, parent, info: info([{ type: 'sip', is_active: false }]) })).toEqual([]);
  });

  it('carries the spec message of each problem', () => {
    const [issue] = licenseIssues({ ...base, info: info([{ type: 'ukey2' }]), parent: { id: 1, info: info([]) } });
    expect(issue).toMatchObject({ message: 'license type is missing in the parent group', type: 'ukey2', parent_id: 1 });
  });
});

describe('nearestLicensed', () => {
  it('keeps only the licensed groups whose nearest licensed ancestor is the root', () => {
    const rows = [
      { id: 2, path: [1, 2] },
      { id: 4, path: [1, 3, 4] },
      { id: 5, path: [1, 2, 5] },
    ];
    expect(nearestLicensed(1, rows).map((r) => r.id)).toEqual([2, 4]);
    expect(nearestLicensed(2, rows).map((r) => r.id)).toEqual([5]);
  });
});

describe('generateStructure', () => {
  const parse = (v: unknown) => GenerateGroupsBodySchema.parse(v);

  it('builds floors of apartments, numbering each level', () => {
    const tree = generateStructure(
      parse({
        parent_id: 1,
        domains: [
          { id: 4, count: 3, prefix: 'Floor ' },
          { id: 6, count: 4, prefix: 'Apt ', numeration: { from: 1 } },
        ],
      }),
      new Set(),
    );
    expect(countGenerated(tree)).toBe(15);
    expect(tree.map((f) => f.name)).toEqual(['Floor 1', 'Floor 2', 'Floor 3']);
    expect(tree[1]?.children.map((a) => [a.name, a.logic_address])).toEqual([
      ['Apt 1', 1],
      ['Apt 2', 2],
      ['Apt 3', 3],
      ['Apt 4', 4],
    ]);
  });

  it('numbers through the level, skips exceptions and prefixes with the parent number', () => {
    const through = generateStructure(
      parse({
        parent_id: 1,
        domains: [
          { id: 4, count: 2 },
          { id: 6, count: 3, numeration: { from: 1, except: [4], is_in_youngest_num: true } },
        ],
      }),
      new Set(),
    );
    expect(through.flatMap((f) => f.children.map((a) => a.logic_address))).toEqual([1, 2, 3, 5, 6, 7]);
    const prefixed = generateStructure(
      parse({
        parent_id: 1,
        domains: [
          { id: 4, count: 2, numeration: { from: 12 } },
          { id: 6, count: 2, numeration: { is_start_youngest_num: true } },
        ],
      }),
      new Set(),
    );
    expect(prefixed.flatMap((f) => f.children.map((a) => a.name))).toEqual(['1201', '1202', '1301', '1302']);
  });

  it('leaves no address for types without one, and only the first level with root_level_only', () => {
    const tree = generateStructure(
      parse({
        parent_id: null,
        root_level_only: true,
        domains: [
          { id: 5, count: 2, prefix: 'Zone ' },
          { id: 6, count: 9 },
        ],
      }),
      new Set([5]),
    );
    expect(tree).toEqual([
      { name: 'Zone 1', domain_type_id: 5, logic_address: null, children: [] },
      { name: 'Zone 2', domain_type_id: 5, logic_address: null, children: [] },
    ]);
  });
});
