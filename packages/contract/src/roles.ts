import { z } from 'zod';
import { BulkDeleteResultSchema, IdValueSchema, ListQuerySchema } from './list-query.js';
import { isPermissionCode } from './permissions.js';
import { VALIDATION_MESSAGES } from './validators.js';

const RoleRef = z.object({ id: z.number().int(), name: z.string() });

export const RoleSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  created_by_user: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  permissions: z.array(z.string()),
  /** Roles a holder of this role may assign to users. */
  available_roles: z.array(RoleRef),
  is_builtin: z.boolean(),
  /** Holders sign in with a second step (TOTP); those without one enrol at their next sign-in (issue 14). */
  two_factor_required: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  /** With `with=users_count`. */
  users_count: z.number().int().optional(),
  /**
   * May the caller change this role (own, available, users' or all roles)? Name and description;
   * permissions and available roles too, except of the built-in role.
   */
  can_edit: z.boolean(),
  /**
   * May the caller delete this role (own, available or all roles)? Never the built-in role nor the
   * caller's own; a role still held by users is deleted only with `gently=false`.
   */
  can_delete: z.boolean(),
});
export type Role = z.infer<typeof RoleSchema>;

const permissionCode = z.string().refine(isPermissionCode, VALIDATION_MESSAGES.invalid_value);

export const CreateRoleBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  description: z.string().trim().max(1000).nullable().optional(),
  permissions: z.array(permissionCode).max(1000).default([]),
  available_roles: z.array(IdValueSchema).max(1000).default([]),
  two_factor_required: z.boolean().default(false),
});
export type CreateRoleBody = z.infer<typeof CreateRoleBodySchema>;

export const UpdateRoleBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  description: z.string().trim().max(1000).nullable().optional(),
  permissions: z.array(permissionCode).max(1000).optional(),
  available_roles: z.array(IdValueSchema).max(1000).optional(),
  two_factor_required: z.boolean().optional(),
});
export type UpdateRoleBody = z.infer<typeof UpdateRoleBodySchema>;

export const RoleListQuerySchema = ListQuerySchema;

const boolFlag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

/** `gently=true` (default) refuses to delete a role in use and lists who uses it. */
export const RoleDeleteQuerySchema = z.object({ gently: boolFlag.default(true) });

export const RoleDependencySchema = z.object({
  id: z.number().int(),
  users_count: z.number().int(),
  users: z.array(z.object({ id: z.number().int(), login: z.string(), name: z.string() })),
});
export const RoleBulkDeleteResultSchema = BulkDeleteResultSchema.extend({ dependencies: z.array(RoleDependencySchema) });
export type RoleBulkDeleteResult = z.infer<typeof RoleBulkDeleteResultSchema>;

export const AvailableRoleSchema = RoleRef;
