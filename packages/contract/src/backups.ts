import { z } from 'zod';
import { ListQuerySchema } from './list-query.js';

// Backups (spec entities §3, §4, §7; issue 14): a zip of chosen entities of a project, made, listed,
// downloaded, applied from the stored copy or from an uploaded file, deleted.

/**
 * What a backup may hold, in the order they are restored. Each is one or more tables of the project
 * (see docs/decisions.md, "Backups"); links between two entities travel with the later one.
 */
export const BACKUP_ENTITIES = [
  'groups',
  'roles',
  'users',
  'markers',
  'devices',
  'identifiers',
  'time_rules',
  'access_rules',
  'elevators',
  'elevator_rules',
  'forward_rules',
  'sip_numbers',
  'sip_trunks',
  'mail_templates',
  'amenities',
  'emergency_alerts',
] as const;
export const BackupEntitySchema = z.enum(BACKUP_ENTITIES);
export type BackupEntity = z.infer<typeof BackupEntitySchema>;

/** The name of the format inside `manifest.json`; anything else is not an Atrium backup. */
export const BACKUP_FORMAT = 'atrium-backup';
/** The version of the format this server writes and reads. */
export const BACKUP_FORMAT_VERSION = 1;

/** Bounds of a backup file read by the server (an upload or a stored copy): a zip bomb is refused while read. */
export const BACKUP_LIMITS = {
  /** The zip itself. */
  maxFileBytes: 64 * 1024 * 1024,
  /**
   * Every entry together, expanded (counted as inflated, never trusted from the archive). A backup
   * that would be larger is refused when made, so every stored backup can be applied.
   */
  maxExpandedBytes: 256 * 1024 * 1024,
  /** Entries of the archive (a manifest, one per table, one per file). */
  maxEntries: 20_000,
} as const;

export const MakeBackupBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  entities: z
    .array(BackupEntitySchema)
    .min(1)
    .max(BACKUP_ENTITIES.length)
    .refine((v) => new Set(v).size === v.length, 'entities must not repeat'),
});
export type MakeBackupBody = z.infer<typeof MakeBackupBodySchema>;

export const BackupSchema = z.object({
  id: z.number(),
  name: z.string(),
  entities: z.array(BackupEntitySchema),
  /** Size of the zip in bytes. */
  size: z.number(),
  /** Rows per entity at the time it was made. */
  counts: z.record(z.string(), z.number()),
  created_by: z.number().nullable(),
  created_at: z.string(),
  /** When it was last applied (from the stored copy). */
  applied_at: z.string().nullable(),
});
export type Backup = z.infer<typeof BackupSchema>;

export const BackupListQuerySchema = ListQuerySchema.extend({ search: z.string().trim().min(1).max(100).optional() });
export type BackupListQuery = z.infer<typeof BackupListQuerySchema>;

/** What an apply did: rows written per entity and rows removed because they were not in the backup. */
export const BackupApplyResultSchema = z.object({
  name: z.string(),
  entities: z.array(BackupEntitySchema),
  created_at: z.string(),
  restored: z.record(z.string(), z.number()),
  removed: z.record(z.string(), z.number()),
  /** `verified`: signed by this server; `unverified`: accepted on purpose without a valid signature. */
  signature: z.enum(['verified', 'unverified']),
});
export type BackupApplyResult = z.infer<typeof BackupApplyResultSchema>;

/** One table inside the zip: its data file, row count, columns and SHA-256 (hex) of the data file. */
export const BackupManifestTableSchema = z.strictObject({
  file: z.string().regex(/^data\/[a-z_]{1,64}\.json$/),
  rows: z.number().int().min(0),
  columns: z
    .array(z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/))
    .min(1)
    .max(100),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** A file store key as Atrium makes them: folders, a uuid, an extension. */
export const BACKUP_FILE_KEY = /^[a-z0-9_-]{1,40}(\/[a-z0-9_-]{1,40}){0,3}\/[0-9a-f-]{36}\.[a-z0-9]{1,8}$/;

/** `manifest.json` of a backup zip. */
export const BackupManifestSchema = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  version: z.number().int(),
  project_uid: z.string().min(1).max(200),
  name: z.string().max(100),
  entities: z.array(BackupEntitySchema).min(1).max(BACKUP_ENTITIES.length),
  created_at: z.string().max(40),
  tables: z.record(z.string().regex(/^[a-z_]{1,64}$/), BackupManifestTableSchema),
  /** Files the rows name (avatars, logos, images, audio), by their file store key. */
  files: z
    .record(
      z.string().regex(BACKUP_FILE_KEY),
      z.strictObject({ file: z.string().regex(/^files\/\d{1,6}$/), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    )
    .optional(),
});
export type BackupManifest = z.infer<typeof BackupManifestSchema>;
