import { z } from 'zod';
import { IdValueSchema, ListQuerySchema } from './list-query.js';
import { VALIDATION_MESSAGES as M } from './validators.js';

// Markers (spec entities §3): a name and a colour put on users, managed from the general settings.

/** A colour as `#rrggbb`. */
export const MarkerColorSchema = z
  .string()
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, M.invalid_value)
  .transform((v) => v.toLowerCase());

export const CreateMarkerBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(64),
  color: MarkerColorSchema,
  domain_id: IdValueSchema,
});
export type CreateMarkerBody = z.infer<typeof CreateMarkerBodySchema>;
export const UpdateMarkerBodySchema = CreateMarkerBodySchema.partial().strict();
export type UpdateMarkerBody = z.infer<typeof UpdateMarkerBodySchema>;

export const MarkerSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.string(),
  domain_id: z.number().nullable(),
  users_count: z.number(),
  created_by: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  can_edit: z.boolean(),
  can_delete: z.boolean(),
});
export type Marker = z.infer<typeof MarkerSchema>;

export const MarkerListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });
