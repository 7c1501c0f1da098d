import { z } from 'zod';
import { VALIDATION_MESSAGES } from './validators.js';

/** The dates a filter (or any date field) may hold: years 0001 to 9999, as ISO-8601 text writes them. */
export const DATE_RANGE = { min: '0001-01-01', max: '9999-12-31' } as const;

/** Filter operators of every list (spec core §7). */
export const FILTER_OPERATORS = ['equals', 'not_equals', 'above', 'below', 'has', 'begins_with'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const FilterRuleSchema = z.strictObject({
  field: z.string().min(1).max(64),
  operator: z.enum(FILTER_OPERATORS),
  // No NUL character: PostgreSQL text cannot hold one.
  value: z.union([
    z
      .string()
      .max(1000)
      .refine((v) => !v.includes('\u0000'), VALIDATION_MESSAGES.invalid_value),
    z.number(),
    z.boolean(),
    z.null(),
  ]),
});
export type FilterRule = z.infer<typeof FilterRuleSchema>;

export const FiltersSchema = z.strictObject({
  match: z.enum(['match_all', 'match_any']).default('match_all'),
  rules: z.array(FilterRuleSchema).max(50).default([]),
});
export type Filters = z.infer<typeof FiltersSchema>;

export const LIST_DEFAULT_SIZE = 20;
export const LIST_MAX_SIZE = 1000;

/** Query string of every list: page (1-based), size, sort, filters (JSON), with. */
export const ListQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(LIST_MAX_SIZE).default(LIST_DEFAULT_SIZE),
  sort: z
    .string()
    .max(200)
    .regex(/^-?[a-z_][a-z0-9_.]*(,-?[a-z_][a-z0-9_.]*)*$/i, VALIDATION_MESSAGES.invalid_value)
    .optional(),
  filters: z
    .string()
    .max(20000)
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.invalid_value });
        return z.NEVER;
      }
      const result = FiltersSchema.safeParse(parsed);
      if (!result.success) {
        // Each problem keeps its code and bounds, so the server reports it as it reports any field.
        for (const issue of result.error.issues) ctx.addIssue({ ...issue });
        return z.NEVER;
      }
      return result.data;
    }),
  with: z
    .string()
    .max(200)
    .optional()
    .transform((s) =>
      s
        ? s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : [],
    ),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;
export type ListQueryInput = z.input<typeof ListQuerySchema>;

/** The meta of a list answer. */
export const ListMetaSchema = z.object({
  total: z.number().int(),
  page: z.number().int(),
  size: z.number().int(),
  /** Present and true when the total is an estimate (very large lists). */
  estimated: z.boolean().optional(),
});
export type ListMeta = z.infer<typeof ListMetaSchema>;

export const listResponse = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: ListMetaSchema });
export const dataResponse = <T extends z.ZodType>(item: T) => z.object({ data: item });

/** The largest value of a PostgreSQL `integer` column: every id, and every number stored in one, stays within it. */
export const INT4_MAX = 2_147_483_647;

/** An id in a JSON body: a whole number from 1 to {@link INT4_MAX}. */
export const IdValueSchema = z.number().int().min(1).max(INT4_MAX);
/** An id in a path or a query string: text read as a number, within the bounds of {@link IdValueSchema}. */
export const IdSchema = z.coerce.number().int().min(1).max(INT4_MAX);
export const IdParamsSchema = z.object({ id: IdSchema });

/** Body of every bulk delete: `POST …/delete {items}`. */
export const BulkDeleteBodySchema = z.strictObject({ items: z.array(IdValueSchema).min(1).max(1000) });
export const BulkDeleteResultSchema = z.object({
  deleted: z.array(z.number().int()),
  not_deleted: z.array(z.object({ id: z.number().int(), message: z.string(), code: z.string() })),
});
export type BulkDeleteResult = z.infer<typeof BulkDeleteResultSchema>;
