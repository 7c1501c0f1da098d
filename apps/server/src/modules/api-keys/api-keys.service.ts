import { randomBytes } from 'node:crypto';
import {
  API_KEY_PATTERN,
  API_KEY_PREFIX,
  API_KEY_VISIBLE_CHARS,
  type ApiKey,
  type ApiKeyListQuery,
  type CreateApiKeyBody,
  type CreatedApiKey,
  type ListMeta,
  PERMISSION_CODES,
} from '@atrium/contract';
import { and, eq, sql } from 'drizzle-orm';
import { intArray, qualifiedColumns } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { hashToken } from '../../core/auth/tokens.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import { ACTOR_TABLES, type ReadCache } from '../../core/read-cache.js';
import { apiKeys, apiKeyUsage } from './api-keys.table.js';

/** Who may manage keys: the project settings administrator. Keys give API access to the whole project. */
export const API_KEYS_PERMISSION = 'can_change_project_settings';

/**
 * What a key may not call: keys themselves (a key cannot mint or revoke keys), and everything that
 * belongs to the person behind a console sign-in (the creator's profile, password, account, sign-out,
 * realtime socket). Paths under /api/v0.
 */
const KEY_DENIED = [/^\/api-keys(\/|$)/, /^\/profile(\/|$)/, /^\/account(\/|$)/, /^\/logout$/, /^\/refresh$/, /^\/ws$/];
export const keyMayCall = (routeUrl: string | undefined): boolean => {
  const path = (routeUrl ?? '').replace(/^\/api\/v0/, '');
  return !KEY_DENIED.some((re) => re.test(path));
};

/** A use of a key is written at most this often per key and instance (the list shows "last used"). */
const USAGE_WRITE_INTERVAL_MS = 60_000;
/** A key's actor is re-read at least this often even when nothing changed (an expiry, a creator's role). */
const ACTOR_CACHE_MS = 5 * 60_000;

const K = qualifiedColumns(apiKeys);

export const API_KEY_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${K.id}`, type: 'number' },
    name: { expr: sql`${K.name}`, type: 'text' },
    prefix: { expr: sql`${K.prefix}`, type: 'text' },
    role: { expr: sql`${K.roleId}`, type: 'number' },
    expires_at: { expr: sql`${K.expiresAt}`, type: 'date' },
    created_at: { expr: sql`${K.createdAt}`, type: 'date' },
  },
  defaultSort: '-created_at',
  tiebreak: sql`${K.id} DESC`,
};

interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  roleId: number | null;
  roleName: string | null;
  groupIds: number[];
  createdBy: number;
  expiresAt: Date | string | null;
  revokedAt: Date | string | null;
  lastUsedAt: Date | string | null;
  createdAt: Date | string;
}

interface ActorRow {
  id: number;
  project_id: number;
  created_by: number;
  login: string;
  role_id: number | null;
  group_ids: number[];
  expires_at: Date | string | null;
  key_builtin: boolean | null;
  key_permissions: string[] | null;
  creator_builtin: boolean | null;
  creator_permissions: string[] | null;
  creator_groups: number[];
}

const iso = (d: Date | string | null): string | null => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());
const ALL = new Set(PERMISSION_CODES);

/** The part of the roles service keys need: the same rule users management applies to a role given to a user. */
export interface RoleGuard {
  assertAssignable(actor: Actor, roleId: number): Promise<void>;
}

/**
 * API keys (issue 14): made by a project administrator with a name, a role and groups, shown once,
 * revoked or deleted. A key acts as its creator with at most the key's role and groups: what it may
 * do is the intersection of the key's role and the creator's current role, and its groups those of
 * the creator it still has, so a key never holds more than the person who made it.
 */
export class ApiKeysService {
  /** Per key: when this instance last wrote its use. */
  private readonly usageWritten = new Map<number, number>();

  constructor(
    private readonly db: Db,
    private readonly roles: RoleGuard,
    private readonly cache: ReadCache,
  ) {}

  private assertManager(actor: Actor): void {
    if (actor.apiKeyId !== undefined) throw prohibited([{ message: 'api keys cannot manage api keys' }]);
    if (!actor.permissions.has(API_KEYS_PERMISSION)) throw prohibited([{ permission: API_KEYS_PERMISSION }]);
  }

  private select() {
    return this.db
      .select({
        id: apiKeys.id,
        name: apiKeys.name,
        prefix: apiKeys.prefix,
        roleId: apiKeys.roleId,
        roleName: sql<string | null>`(SELECT r.name FROM roles r WHERE r.id = ${K.roleId})`,
        groupIds: apiKeys.groupIds,
        createdBy: apiKeys.createdBy,
        expiresAt: apiKeys.expiresAt,
        revokedAt: apiKeys.revokedAt,
        lastUsedAt: sql<string | null>`(SELECT u.last_used_at FROM api_key_usage u WHERE u.key_id = ${K.id})`,
        createdAt: apiKeys.createdAt,
      })
      .from(apiKeys);
  }

  private toApiKey(r: KeyRow): ApiKey {
    const expired = r.expiresAt !== null && new Date(r.expiresAt).getTime() <= Date.now();
    return {
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      role: r.roleId,
      role_info: r.roleId !== null && r.roleName !== null ? { id: r.roleId, name: r.roleName } : null,
      domains: r.groupIds,
      status: r.revokedAt !== null ? 'revoked' : expired ? 'expired' : 'active',
      expires_at: iso(r.expiresAt),
      last_used_at: iso(r.lastUsedAt),
      revoked_at: iso(r.revokedAt),
      created_by: r.createdBy,
      created_at: iso(r.createdAt) as string,
    };
  }

  async list(actor: Actor, q: ApiKeyListQuery): Promise<{ data: ApiKey[]; meta: ListMeta }> {
    this.assertManager(actor);
    const where = and(
      eq(apiKeys.projectId, actor.projectId),
      filtersSql(API_KEY_LIST, q),
      q.search ? sql`(${K.name} ILIKE ${containsPattern(q.search)} OR ${K.prefix} ILIKE ${containsPattern(q.search)})` : undefined,
    );
    const page = await pageOfIds(this.db, { table: apiKeys, id: sql`${K.id}`, where, spec: API_KEY_LIST, query: q });
    const rows = page.ids.length ? await this.select().where(sql`${K.id} = ANY(${intArray(page.ids)})`) : [];
    return {
      data: inPageOrder(page.ids, rows as KeyRow[]).map((r) => this.toApiKey(r)),
      meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) },
    };
  }

  private async find(actor: Actor, id: number): Promise<KeyRow> {
    const [r] = await this.select().where(and(eq(apiKeys.id, id), eq(apiKeys.projectId, actor.projectId)));
    if (!r) throw notFound();
    return r as KeyRow;
  }

  async get(actor: Actor, id: number): Promise<ApiKey> {
    this.assertManager(actor);
    return this.toApiKey(await this.find(actor, id));
  }

  /** Groups a key may be given: the creator's own (any of the project for the built-in role). */
  private async checkGroups(actor: Actor, ids: readonly number[]): Promise<number[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [...actor.groupIds];
    const everyGroup = actor.permissions.size === ALL.size && PERMISSION_CODES.every((c) => actor.permissions.has(c));
    const found = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT g.id FROM groups g WHERE g.project_id = ${actor.projectId} AND g.id = ANY(${intArray(unique)})
        AND (${everyGroup} OR g.id = ANY(${intArray(actor.groupIds)}))`,
    );
    const ok = new Set(found.map((g) => g.id));
    const bad = unique.filter((id) => !ok.has(id));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
    return unique;
  }

  async create(ctx: RequestContext, body: CreateApiKeyBody): Promise<CreatedApiKey> {
    const { actor } = ctx;
    this.assertManager(actor);
    // The rule users management applies to the role of a new user: one the creator may assign, granting nothing they lack.
    await this.roles.assertAssignable(actor, body.role);
    const groupIds = await this.checkGroups(actor, body.domains);
    // 32 random bytes: a key cannot be guessed, so one fast SHA-256 is enough to store it (a slow
    // password hash guards low-entropy secrets against offline guessing, and would cost every call).
    const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const prefix = key.slice(0, API_KEY_PREFIX.length + API_KEY_VISIBLE_CHARS);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(apiKeys)
        .values({
          projectId: actor.projectId,
          name: body.name,
          prefix,
          keyHash: hashToken(key),
          roleId: body.role,
          groupIds,
          createdBy: actor.userId,
          expiresAt: body.expires_at ? new Date(body.expires_at) : null,
        })
        .returning({ id: apiKeys.id });
      await recordAudit(tx, ctx, {
        entity: 'api_key',
        entityId: r!.id,
        action: 'create',
        after: { name: body.name, prefix, role: body.role, domains: groupIds, expires_at: body.expires_at ?? null },
      });
      return r!.id;
    });
    return { ...(await this.get(actor, id)), key };
  }

  /** Stops a key at once on every instance (the read cache hears of the change), keeping it listed. */
  async revoke(ctx: RequestContext, id: number): Promise<ApiKey> {
    this.assertManager(ctx.actor);
    const before = await this.find(ctx.actor, id);
    if (before.revokedAt === null) {
      await this.db.transaction(async (tx) => {
        await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, id));
        await recordAudit(tx, ctx, {
          entity: 'api_key',
          entityId: id,
          action: 'revoke',
          before: { name: before.name, prefix: before.prefix },
        });
      });
    }
    return this.get(ctx.actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    this.assertManager(ctx.actor);
    const before = await this.find(ctx.actor, id);
    await this.db.transaction(async (tx) => {
      await tx.delete(apiKeys).where(eq(apiKeys.id, id));
      await recordAudit(tx, ctx, {
        entity: 'api_key',
        entityId: id,
        action: 'delete',
        before: { name: before.name, prefix: before.prefix },
      });
    });
  }

  /**
   * The actor of a request made with a key, or null when the key is unknown, revoked, expired or
   * its creator is gone. Kept in the read cache like a session's actor, so a known key costs no
   * query; a revocation moves the cache on every instance (api_keys is watched).
   */
  async actorFromKey(key: string): Promise<Actor | null> {
    if (!API_KEY_PATTERN.test(key)) return null;
    const hash = hashToken(key);
    const cacheKey = `api-key:${hash}`;
    const cached = this.cache.actor(cacheKey);
    if (cached) {
      this.noteUse(cached.apiKeyId as number);
      return cached;
    }
    const generation = this.cache.stamp(ACTOR_TABLES);
    const [row] = await queryRows<ActorRow>(
      this.db,
      sql`SELECT k.id, k.project_id, k.created_by, u.login, k.role_id, k.group_ids, k.expires_at,
          kr.is_builtin AS key_builtin, kr.permissions AS key_permissions,
          cr.is_builtin AS creator_builtin, cr.permissions AS creator_permissions,
          coalesce((SELECT array_agg(ug.group_id ORDER BY ug.group_id) FROM user_groups ug WHERE ug.user_id = u.id), '{}') AS creator_groups
        FROM api_keys k
        JOIN users u ON u.id = k.created_by AND u.project_id = k.project_id
        LEFT JOIN roles kr ON kr.id = k.role_id
        LEFT JOIN roles cr ON cr.id = u.role_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
    );
    if (!row) return null;
    const keyCodes = row.key_builtin ? ALL : new Set(row.key_permissions ?? []);
    const creatorCodes = row.creator_builtin ? ALL : new Set(row.creator_permissions ?? []);
    const permissions = new Set([...keyCodes].filter((c) => creatorCodes.has(c)));
    const creatorGroups = new Set(row.creator_groups.map(Number));
    const groupIds = row.creator_builtin ? row.group_ids.map(Number) : row.group_ids.map(Number).filter((g) => creatorGroups.has(g));
    const actor: Actor = {
      userId: row.created_by,
      projectId: row.project_id,
      login: row.login,
      roleId: row.role_id,
      permissions,
      groupIds,
      apiKeyId: row.id,
    };
    const until = Math.min(
      Date.now() + ACTOR_CACHE_MS,
      row.expires_at === null ? Number.POSITIVE_INFINITY : new Date(row.expires_at).getTime(),
    );
    this.cache.keepActor(generation, cacheKey, actor, until);
    this.noteUse(row.id);
    return actor;
  }

  /** Notes a key's use off the request path, at most once a minute per key and instance. */
  private noteUse(keyId: number): void {
    const now = Date.now();
    if (now - (this.usageWritten.get(keyId) ?? 0) < USAGE_WRITE_INTERVAL_MS) return;
    this.usageWritten.set(keyId, now);
    const at = new Date(now);
    this.db
      .insert(apiKeyUsage)
      .values({ keyId, lastUsedAt: at })
      .onConflictDoUpdate({ target: apiKeyUsage.keyId, set: { lastUsedAt: at } })
      .catch(() => this.usageWritten.delete(keyId));
  }
}
