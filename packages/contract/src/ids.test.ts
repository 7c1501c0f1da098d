import { describe, expect, it } from 'vitest';
import {
  CreateDomainTypeBodySchema,
  CreateGroupBodySchema,
  GenerateGroupsBodySchema,
  GroupListQuerySchema,
  SaveGeneratedBodySchema,
  StructureExportQuerySchema,
  UpdateGroupBodySchema,
} from './groups.js';
import { BulkDeleteBodySchema, IdParamsSchema, INT4_MAX } from './list-query.js';
import { MarkReadQuerySchema } from './notifications.js';
import { CreateRoleBodySchema, UpdateRoleBodySchema } from './roles.js';
import { CreateUserBodySchema, UpdateUserBodySchema, UserListQuerySchema } from './users.js';

/**
 * Every id (and every number stored in an integer column) a client sends: `ID` where it goes as a
 * JSON number, `TEXT` where as text (path, query). Above INT4_MAX the database cannot hold it, so
 * the contract must refuse it first.
 */
const ID = '__id__';
const TEXT = '__text__';
const cases: [string, { safeParse(v: unknown): { success: boolean } }, unknown][] = [
  ['path id', IdParamsSchema, { id: TEXT }],
  ['bulk delete items', BulkDeleteBodySchema, { items: [ID] }],
  ['mark read id', MarkReadQuerySchema, { id: TEXT }],
  ['domain type domain_id', CreateDomainTypeBodySchema, { type: 1, name: 'x', domain_id: ID }],
  ['group parent_id', CreateGroupBodySchema, { name: 'x', parent_id: ID }],
  ['group domain_type_id', CreateGroupBodySchema, { name: 'x', domain_type_id: ID }],
  ['group users', UpdateGroupBodySchema, { users: [ID] }],
  ['group notified user', UpdateGroupBodySchema, { device_status_notify: [{ user_id: ID }] }],
  ['group licence device', UpdateGroupBodySchema, { license_info: { licenses: [{ type: 'sip', device: ID }] } }],
  ['group list ids', GroupListQuerySchema, { id: `1,${TEXT}` }],
  ['generate parent_id', GenerateGroupsBodySchema, { parent_id: ID, domains: [{ id: 1, count: 1 }] }],
  ['generate level type', GenerateGroupsBodySchema, { parent_id: 1, domains: [{ id: ID, count: 1 }] }],
  [
    'save generated parent_id',
    SaveGeneratedBodySchema,
    { parent_id: ID, domains: [{ name: 'a', domain_type_id: 1, logic_address: null, children: [] }] },
  ],
  [
    'save generated type',
    SaveGeneratedBodySchema,
    { parent_id: 1, domains: [{ name: 'a', domain_type_id: ID, logic_address: null, children: [] }] },
  ],
  ['structure export type', StructureExportQuerySchema, { domain_type: TEXT }],
  ['user groups', CreateUserBodySchema, { login: 'a', domains: [ID] }],
  ['user role', UpdateUserBodySchema, { role: ID }],
  ['user sip number', UpdateUserBodySchema, { profile: { sip_number_id: ID } }],
  ['user list branch', UserListQuerySchema, { branch: TEXT }],
  ['role available roles', CreateRoleBodySchema, { name: 'x', available_roles: [ID] }],
  ['role available roles (update)', UpdateRoleBodySchema, { available_roles: [ID] }],
];

/** The case's input with the id put in. */
const withId = (input: unknown, id: number): unknown =>
  JSON.parse(JSON.stringify(input).replaceAll(`"${ID}"`, String(id)).replaceAll(TEXT, String(id)));

describe('ids stay within a PostgreSQL integer', () => {
  it.each(cases)('%s: the largest integer is taken, one more is refused', (_label, schema, input) => {
    expect(schema.safeParse(withId(input, INT4_MAX)).success).toBe(true);
    expect(schema.safeParse(withId(input, INT4_MAX + 1)).success).toBe(false);
    expect(schema.safeParse(withId(input, 3_000_000_000)).success).toBe(false);
    expect(schema.safeParse(withId(input, 0)).success).toBe(false);
  });
});
