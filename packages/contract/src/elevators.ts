import { z } from 'zod';
import { IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Elevators, their lift controllers with floor maps, calling a lift, and elevator access rules
// (spec entities §3, §5, §7, §8): /elevators, /elevators/{id}/floors, /elevators/{id}/call,
// /elevators/events, /elevators/access-rules.

export const ElevatorFloorSchema = z.object({
  floor: z.number().int().min(-20).max(300),
  name: z.string().trim().max(64).nullable().optional(),
  /** Apartments served from this floor (their numbers as people write them). */
  apartments: z.array(z.string().trim().min(1).max(16)).max(500).default([]),
  /** Anyone may ride to a public floor. */
  is_public: z.boolean().default(false),
  /** The floor where the call panel is installed. */
  is_panel_floor: z.boolean().default(false),
  /** Relay ports of the controller that serve this floor. */
  ports: z.array(z.number().int().min(1).max(64)).min(1, M.required).max(8),
});
export type ElevatorFloor = z.infer<typeof ElevatorFloorSchema>;

export const LiftSettingsSchema = z.object({
  device_mode: z.enum(['call-up', 'call-down', 'access']).default('call-up'),
  relay_mode: z.enum(['COM-NC', 'COM-NO']).default('COM-NC'),
  invert_all_relays: z.boolean().default(false),
  relay_open_time: z.number().int().min(1).max(600).default(10),
  lift_release_time: z
    .object({ card: z.number().int().min(0).max(600).default(0), api: z.number().int().min(0).max(600).default(0) })
    .prefault({}),
});

export const ElevatorControllerSchema = z.object({
  device_id: IdValueSchema,
  enabled: z.boolean().default(true),
  /** A controller must have a floor mapping (spec entities §5). */
  floor_map: z.array(ElevatorFloorSchema).min(1, M.required).max(300),
  settings: LiftSettingsSchema.prefault({}),
});

const elevatorFields = {
  name: z.string().trim().min(1).max(255),
  domain_id: IdValueSchema,
  has_access_mode_controller: z.boolean().optional(),
  /** An elevator must have a controller (spec entities §5). */
  controllers: z.array(ElevatorControllerSchema).min(1, M.required).max(16),
};
export const CreateElevatorBodySchema = z.strictObject(elevatorFields);
export type CreateElevatorBody = z.infer<typeof CreateElevatorBodySchema>;
export const UpdateElevatorBodySchema = z.strictObject({
  name: elevatorFields.name.optional(),
  domain_id: elevatorFields.domain_id.optional(),
  has_access_mode_controller: elevatorFields.has_access_mode_controller,
  controllers: elevatorFields.controllers.optional(),
});
export type UpdateElevatorBody = z.infer<typeof UpdateElevatorBodySchema>;

export const ElevatorSchema = z.object({
  id: z.number(),
  name: z.string(),
  domain_id: z.number().nullable(),
  has_access_mode_controller: z.boolean(),
  controllers: z.array(
    z.object({
      device_id: z.number(),
      device_name: z.string().nullable(),
      enabled: z.boolean(),
      floor_map: z.array(ElevatorFloorSchema),
      settings: LiftSettingsSchema,
    }),
  ),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type Elevator = z.infer<typeof ElevatorSchema>;

export const ElevatorListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });
export const FloorsQuerySchema = z.object({ mode: z.enum(['all', 'access']).default('all') });
export const FloorInfoSchema = z.object({
  floor: z.number(),
  name: z.string().nullable(),
  is_public: z.boolean(),
  is_panel_floor: z.boolean(),
  apartments: z.array(z.string()),
});

export const CallElevatorBodySchema = z.strictObject({
  floor: z.number().int().min(-20).max(300),
  apartment: z.string().trim().min(1).max(16).optional(),
  direction: z.enum(['up', 'down']).default('up'),
});

const elevatorRuleFields = {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(1000).nullable().optional(),
  /** At least one user (spec entities §5). */
  users: z.array(IdValueSchema).min(1, M.required).max(10_000),
  /** Elevators with the floors allowed; an elevator with no floors is dropped on save, at least one must remain. */
  elevators: z
    .array(z.object({ id: IdValueSchema, floors: z.array(z.number().int().min(-20).max(300)).max(300).default([]) }))
    .max(100)
    .transform((list) => list.filter((e) => e.floors.length > 0))
    .refine((list) => list.length > 0, { message: M.required }),
};
export const CreateElevatorRuleBodySchema = z.strictObject(elevatorRuleFields);
export type CreateElevatorRuleBody = z.infer<typeof CreateElevatorRuleBodySchema>;
export const UpdateElevatorRuleBodySchema = z.strictObject({
  name: elevatorRuleFields.name.optional(),
  description: elevatorRuleFields.description,
  users: elevatorRuleFields.users.optional(),
  elevators: elevatorRuleFields.elevators.optional(),
});
export type UpdateElevatorRuleBody = z.infer<typeof UpdateElevatorRuleBodySchema>;

export const ElevatorRuleSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  users: z.array(z.number()),
  elevators: z.array(z.object({ id: z.number(), floors: z.array(z.number()) })),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type ElevatorRule = z.infer<typeof ElevatorRuleSchema>;
