import { createHmac, randomBytes } from 'node:crypto';
import {
  type AccessIdentifier,
  type BulkDeleteResult,
  type CreateGuestBody,
  type DeviceType,
  decideAccess,
  deviceModel,
  GUEST_IDENTIFIER_NAME,
  type GuestInfo,
  type Identifier,
  type ScheduleSpec,
  type UpdateGuestBody,
} from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { intArray } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { type FileStore, MAX_IMAGE_BYTES, storableImage } from '../../core/files.js';
import type { ProjectInfo } from '../../core/project-info.js';
import type { DevicesService } from '../devices/devices.service.js';
import type { AccessRepository } from './access.repository.js';
import { identifiers } from './access.table.js';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

const DAY_MS = 86_400_000;
/** A guest's QR value: not guessable, and apart from card numbers. */
const newValue = () => `G${randomBytes(12).toString('hex').toUpperCase()}`;
const newKey = () => randomBytes(18).toString('base64url');
/** A door of a key, as its page names it: opaque, and only valid among the key's own doors. */
const doorToken = (key: string, deviceId: number, lock: number) =>
  createHmac('sha256', key).update(`${deviceId}:${lock}`).digest('base64url').slice(0, 32);

interface GuestRow {
  id: number;
  project_id: number;
  name: string;
  value: string;
  key_message: string | null;
  is_active: boolean;
  revoked: boolean;
  period_restrict_active: boolean;
  period_restrict_from: string | null;
  period_restrict_to: string | null;
  passes_restrict_active: boolean;
  passes_restrict_max_count: number;
  passes_restrict_passes_count: number;
  photo_path: string | null;
}

/** How long a guest's open waits for a door that must first see the guest's face. */
const FACE_WAIT_MS = 10_000;

/**
 * Guest access (spec entities §3, §5, §8): a resident or an operator grants a guest a QR identifier
 * on rules available for guests, within the guest limits of their groups; the guest's public page
 * (by an unguessable key) shows the QR, its validity and passes left, and opens the key's doors.
 * The page reveals nothing of other keys: every failure of a key answers the same "invalid identifier".
 */
export class GuestAccess {
  constructor(
    private readonly db: Db,
    private readonly repo: AccessRepository,
    private readonly devices: DevicesService,
    private readonly hooks: {
      sync: (tx: Tx, ids: number[], devicesBefore: number[]) => Promise<void>;
      get: (actor: Actor, id: number) => Promise<Identifier>;
      /** Where guests and doors reach Atrium: the project's server URL, else PUBLIC_URL (core/project-info.ts). */
      links: Pick<ProjectInfo, 'link'>;
      /** Whether the server's licence has face ID for guests (spec core §3 `face_id.is_enabled_for_guests`). */
      faceIdForGuests?: (projectId: number) => Promise<boolean>;
      /** How long an open with face ID waits for the door's answer (ms; FACE_WAIT_MS when absent). */
      faceWaitMs?: number;
    },
  ) {}

  /** The tightest guest limits of the project and of the groups the actor belongs to and those above them (null: none). */
  private async limits(actor: Actor): Promise<{ maxCount: number | null; maxDays: number | null }> {
    const [r] = await queryRows<{ max_count: number | null; max_days: number | null }>(
      this.db,
      // The project's limits (project settings, general tab) hold for every group; a group's own only tighten them.
      sql`SELECT least(min((g.guest_identifier_limits->>'max_passes_count')::int),
            (SELECT (p.settings->'guest_identifier_limits'->>'max_passes_count')::int FROM projects p WHERE p.id = ${actor.projectId})) AS max_count,
          least(min((g.guest_identifier_limits->>'max_period_days')::int),
            (SELECT (p.settings->'guest_identifier_limits'->>'max_period_days')::int FROM projects p WHERE p.id = ${actor.projectId})) AS max_days
        FROM groups g WHERE g.project_id = ${actor.projectId}
          AND g.id IN (SELECT unnest(m.path) FROM groups m WHERE m.id = ANY(${intArray(actor.groupIds)}))`,
    );
    return { maxCount: r?.max_count ?? null, maxDays: r?.max_days ?? null };
  }

  private async assertWithinLimits(
    actor: Actor,
    v: { restrictPeriod: boolean; from: string | null; to: string | null; restrictCount: boolean; limit: number },
  ) {
    const { maxCount, maxDays } = await this.limits(actor);
    const tooManyPasses = maxCount !== null && (!v.restrictCount || v.limit > maxCount);
    const days = v.restrictPeriod && v.from && v.to ? (Date.parse(v.to) - Date.parse(v.from)) / DAY_MS : Number.POSITIVE_INFINITY;
    const tooLong = maxDays !== null && days > maxDays;
    if (tooManyPasses || tooLong) {
      throw new AppError('guest_limits', [
        {
          field: tooManyPasses ? 'pass_limit' : 'valid_to',
          message: 'maximum passes count and maximum period limits reached',
          params: { max_count: maxCount, max_days: maxDays },
        },
      ]);
    }
  }

  /** Rules the actor may give a guest (access.repository guestRulePredicate). */
  private async assertGuestRules(actor: Actor, ruleIds: number[]) {
    const allowed = await this.repo.visibleIds(actor, 'guest_rules', ruleIds);
    const bad = ruleIds.filter((id) => !allowed.has(id));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'access_rules', entity: 'access_rules', ids: bad }]);
  }

  async create(ctx: RequestContext, body: CreateGuestBody): Promise<{ identifier: Identifier; key: string; url: string }> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_guest_identifiers')) throw prohibited([{ permission: 'can_create_guest_identifiers' }]);
    await this.assertGuestRules(actor, body.access_rules);
    const from = body.restrict_period ? (body.valid_from ?? null) : null;
    const to = body.restrict_period ? (body.valid_to ?? null) : null;
    await this.assertWithinLimits(actor, {
      restrictPeriod: body.restrict_period,
      from,
      to,
      restrictCount: body.restrict_pass_count,
      limit: body.pass_limit,
    });
    const key = newKey();
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(identifiers)
        .values({
          projectId: actor.projectId,
          name: body.name ?? GUEST_IDENTIFIER_NAME,
          type: 'qr',
          value: newValue(),
          // A guest's key is not its grantor's: it opens only the rules given here.
          ownerId: null,
          periodRestrictActive: body.restrict_period,
          periodFrom: from ? new Date(from) : null,
          periodTo: to ? new Date(to) : null,
          passesRestrictActive: body.restrict_pass_count,
          passesMax: body.restrict_pass_count ? body.pass_limit : 0,
          passesSince: body.restrict_pass_count ? new Date() : null,
          guestType: body.guest_type,
          guestKey: key,
          keyMessage: body.key_message ?? null,
          createdBy: actor.userId,
        })
        .returning({ id: identifiers.id });
      const identifierId = row!.id;
      await this.repo.setRulesOf(tx, 'identifier', identifierId, body.access_rules);
      await this.hooks.sync(tx, [identifierId], []);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: identifierId, action: 'create_guest', after: { ...body } });
      return identifierId;
    });
    await this.devices.dispatch();
    return { identifier: await this.hooks.get(actor, id), key, url: await this.hooks.links.link(actor.projectId, `/guest-access/${key}`) };
  }

  /**
   * A guest key the caller may change: one they granted, or any with "view all" and `also` (the
   * edit or delete permission of identifiers). Anything else is not found, so ids reveal nothing.
   */
  private async ownGuest(actor: Actor, id: number, also: 'can_edit_identifiers' | 'can_delete_identifiers') {
    if (!actor.permissions.has('can_create_guest_identifiers') && !actor.permissions.has(also)) {
      throw prohibited([{ permission: 'can_create_guest_identifiers' }]);
    }
    const [g] = await queryRows<GuestRow & { created_by: number | null; guest_type: string | null; revoked_at: string | null }>(
      this.db,
      sql`SELECT id, project_id, created_by, guest_type, period_restrict_active, period_restrict_from, period_restrict_to,
          passes_restrict_active, passes_restrict_max_count, revoked_at FROM identifiers WHERE id = ${id} AND project_id = ${actor.projectId}`,
    );
    const mine =
      (g?.created_by === actor.userId && actor.permissions.has('can_create_guest_identifiers')) ||
      (actor.permissions.has('can_view_all_identifiers') && actor.permissions.has(also));
    if (!g?.guest_type || !mine) throw notFound();
    return g;
  }

  /** Revokes a guest key: its page then says it is invalid and no door opens for it. */
  async revoke(ctx: RequestContext, id: number): Promise<Identifier> {
    const g = await this.ownGuest(ctx.actor, id, 'can_edit_identifiers');
    if (!g.revoked_at) {
      await this.db.transaction(async (tx) => {
        await tx.update(identifiers).set({ revokedAt: new Date(), updatedAt: new Date() }).where(sql`${identifiers.id} = ${id}`);
        await this.hooks.sync(tx, [id], []);
        await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'revoke_guest' });
      });
      await this.devices.dispatch();
    }
    return this.hooks.get(ctx.actor, id);
  }

  /** Deletes a guest key, and tells its doors to forget it. */
  async remove(ctx: RequestContext, id: number): Promise<void> {
    await this.ownGuest(ctx.actor, id, 'can_delete_identifiers');
    await this.db.transaction(async (tx) => {
      const devicesBefore = await this.repo.devicesOfIdentifiers(tx, [id]);
      await tx.delete(identifiers).where(sql`${identifiers.id} = ${id}`);
      await this.hooks.sync(tx, [id], devicesBefore);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'delete_guest' });
    });
    await this.devices.dispatch();
  }

  async removeMany(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.remove(ctx, id));
  }

  async update(ctx: RequestContext, id: number, body: UpdateGuestBody): Promise<Identifier> {
    const { actor } = ctx;
    if (!actor.permissions.has('can_create_guest_identifiers')) throw prohibited([{ permission: 'can_create_guest_identifiers' }]);
    const g = await this.ownGuest(actor, id, 'can_edit_identifiers');
    if (body.access_rules) await this.assertGuestRules(actor, body.access_rules);
    const restrictPeriod = body.restrict_period ?? g.period_restrict_active;
    const from = restrictPeriod
      ? body.valid_from !== undefined
        ? body.valid_from
        : g.period_restrict_from && new Date(g.period_restrict_from).toISOString()
      : null;
    const to = restrictPeriod
      ? body.valid_to !== undefined
        ? body.valid_to
        : g.period_restrict_to && new Date(g.period_restrict_to).toISOString()
      : null;
    if (restrictPeriod && (!from || !to || Date.parse(from) >= Date.parse(to))) throw invalidField('valid_to', 'validation.invalid_value');
    const restrictCount = body.restrict_pass_count ?? g.passes_restrict_active;
    const limit = restrictCount ? (body.pass_limit ?? g.passes_restrict_max_count) : 0;
    await this.assertWithinLimits(actor, { restrictPeriod, from: from ?? null, to: to ?? null, restrictCount, limit });
    await this.db.transaction(async (tx) => {
      const devicesBefore = await this.repo.devicesOfIdentifiers(tx, [id]);
      await tx
        .update(identifiers)
        .set({
          periodRestrictActive: restrictPeriod,
          periodFrom: from ? new Date(from) : null,
          periodTo: to ? new Date(to) : null,
          passesRestrictActive: restrictCount,
          passesMax: limit,
          ...(body.key_message !== undefined ? { keyMessage: body.key_message } : {}),
          ...(body.guest_type !== undefined ? { guestType: body.guest_type } : {}),
          ...(body.name !== undefined ? { name: body.name } : {}),
          updatedAt: new Date(),
        })
        .where(sql`${identifiers.id} = ${id}`);
      if (body.access_rules) await this.repo.setRulesOf(tx, 'identifier', id, body.access_rules);
      await this.hooks.sync(tx, [id], devicesBefore);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'update_guest', after: { ...body } });
    });
    await this.devices.dispatch();
    return this.hooks.get(actor, id);
  }

  // --- the public page -----------------------------------------------------------------------------

  /** The project of a guest's key, whatever the key's state (the licence guard reads that project's licence); null when no key is so. */
  async projectOfKey(key: string): Promise<number | null> {
    const [g] = await queryRows<{ project_id: number }>(this.db, sql`SELECT project_id FROM identifiers WHERE guest_key = ${key}`);
    return g ? Number(g.project_id) : null;
  }

  private async byKey(key: string): Promise<GuestRow> {
    const [g] = await queryRows<GuestRow>(
      this.db,
      sql`SELECT id, project_id, name, value, key_message, is_active, revoked_at IS NOT NULL AS revoked,
          period_restrict_active, period_restrict_from, period_restrict_to,
          passes_restrict_active, passes_restrict_max_count, passes_restrict_passes_count, photo_path
        FROM identifiers WHERE guest_key = ${key}`,
    );
    if (!g?.is_active || g.revoked) throw new AppError('guest_invalid');
    if (g.period_restrict_active && g.period_restrict_to && new Date(g.period_restrict_to) <= new Date())
      throw new AppError('guest_expired');
    return g;
  }

  private async doors(g: GuestRow, key: string) {
    const rows = await queryRows<{
      device_id: number;
      name: string;
      lock_number: number;
      online: boolean;
      type: DeviceType;
      model: string;
      face_enabled: boolean;
    }>(
      this.db,
      sql`SELECT DISTINCT rd.device_id, d.name, rd.lock_number, coalesce(s.online, FALSE) AS online, d.type, d.model,
          coalesce((d.device_settings->'face_recognition'->>'enabled')::boolean, FALSE) AS face_enabled
        FROM access_rule_identifiers x JOIN access_rules r ON r.id = x.rule_id AND NOT r.prohibition
        JOIN access_rule_devices rd ON rd.rule_id = r.id JOIN devices d ON d.id = rd.device_id
        LEFT JOIN device_status s ON s.device_id = d.id
        WHERE x.identifier_id = ${g.id} ORDER BY d.name, rd.lock_number`,
    );
    return rows.map((r) => ({
      ...r,
      device_id: Number(r.device_id),
      lock_number: Number(r.lock_number),
      token: doorToken(key, Number(r.device_id), Number(r.lock_number)),
    }));
  }

  async info(key: string): Promise<GuestInfo> {
    const g = await this.byKey(key);
    const iso = (v: string | null) => (v ? new Date(v).toISOString() : null);
    return {
      name: g.name,
      qr: g.value,
      key_message: g.key_message,
      valid_from: g.period_restrict_active ? iso(g.period_restrict_from) : null,
      valid_to: g.period_restrict_active ? iso(g.period_restrict_to) : null,
      passes_left: g.passes_restrict_active ? Math.max(0, g.passes_restrict_max_count - g.passes_restrict_passes_count) : null,
      doors: (await this.doors(g, key)).map((d) => ({ token: d.token, name: d.name, lock: d.lock_number })),
    };
  }

  /**
   * Opens one of the key's doors (an open-lock task), as the door itself would decide, and counts the pass.
   * With face ID for guests (licensed, a door that recognises faces, a guest with a photo) the door opens
   * only once it sees the guest's face: the open waits for the door's answer (FACE_WAIT_MS) and says
   * "face not recognized" or "device problem" when the door stays shut, without counting the pass.
   */
  async open(key: string, token: string, ip: string, requestId: string): Promise<{ opened: true; passes_left: number | null }> {
    const g = await this.byKey(key);
    if (g.passes_restrict_active && g.passes_restrict_passes_count >= g.passes_restrict_max_count) throw new AppError('guest_pass_limit');
    const door = (await this.doors(g, key)).find((d) => d.token === token);
    if (!door) throw new AppError('guest_device_not_found');
    // The same decision the door makes: schedules and validity included.
    const part = (await this.repo.syncParts(this.db, [door.device_id], [g.id])).get(door.device_id);
    const synced = part?.identifiers.find((i) => i.id === g.id) as AccessIdentifier | undefined;
    const specs = new Map((await this.repo.syncSchedules(this.db, part?.scheduleIds ?? [])).map((s) => [s.id, s as ScheduleSpec]));
    const decision = decideAccess(synced, (id) => specs.get(id), door.lock_number, new Date());
    if (!decision.granted) {
      if (decision.reason === 'passes') throw new AppError('guest_pass_limit');
      if (decision.reason === 'expired' || decision.reason === 'not_yet_valid') throw new AppError('guest_expired');
      throw new AppError('guest_invalid');
    }
    if (!door.online) throw new AppError('guest_device_problem');
    const ctx = { actor: null, ip, requestId };
    const face = await this.faceOf(g, door);
    if (face) return this.openWithFace(g, door, face, ctx);
    let left: number | null = null;
    await this.db.transaction(async (tx) => {
      const counted = await queryRows<{ left: number; exhausted: boolean }>(
        tx,
        sql`UPDATE identifiers SET passes_restrict_passes_count = passes_restrict_passes_count + 1, updated_at = now()
          WHERE id = ${g.id} AND passes_restrict_active AND passes_restrict_passes_count < passes_restrict_max_count
          RETURNING passes_restrict_max_count - passes_restrict_passes_count AS left,
            passes_restrict_passes_count >= passes_restrict_max_count AS exhausted`,
      );
      if (g.passes_restrict_active) {
        // Two opens racing for the last pass: one wins.
        if (!counted[0]) throw new AppError('guest_pass_limit');
        left = Number(counted[0].left);
        if (counted[0].exhausted) await this.hooks.sync(tx, [g.id], []);
      }
      await this.devices.queueInTx(tx, [{ deviceId: door.device_id, type: 'open_lock', payload: { lock: door.lock_number } }], null);
      await recordAudit(tx, ctx, {
        entity: 'identifier',
        entityId: g.id,
        action: 'guest_open',
        after: { device_id: door.device_id, lock: door.lock_number },
      });
    });
    await this.devices.dispatch();
    return { opened: true, passes_left: left };
  }

  /** The face a door must see before it opens for this guest, or null when face ID does not apply. */
  private async faceOf(
    g: GuestRow,
    door: { type: DeviceType; model: string; face_enabled: boolean },
  ): Promise<{ identifier_id: number; photo_url: string } | null> {
    if (!g.photo_path || !door.face_enabled) return null;
    if (!deviceModel(door.type, door.model)?.capabilities.face_recognition) return null;
    if (!(await this.hooks.faceIdForGuests?.(g.project_id))) return null;
    return { identifier_id: Number(g.id), photo_url: await this.hooks.links.link(g.project_id, `/api/v0/files/${g.photo_path}`) };
  }

  /**
   * An open the door performs only on seeing the guest's face: the pass is taken (so two opens racing
   * for the last one cannot both go), the task committed, then its outcome awaited; a door that stays
   * shut gives the pass back.
   */
  private async openWithFace(
    g: GuestRow,
    door: { device_id: number; lock_number: number },
    face: { identifier_id: number; photo_url: string },
    ctx: { actor: null; ip: string; requestId: string },
  ): Promise<{ opened: true; passes_left: number | null }> {
    let left: number | null = null;
    let exhausted = false;
    const taskId = await this.db.transaction(async (tx) => {
      if (g.passes_restrict_active) {
        const [counted] = await queryRows<{ left: number; exhausted: boolean }>(
          tx,
          sql`UPDATE identifiers SET passes_restrict_passes_count = passes_restrict_passes_count + 1, updated_at = now()
            WHERE id = ${g.id} AND passes_restrict_active AND passes_restrict_passes_count < passes_restrict_max_count
            RETURNING passes_restrict_max_count - passes_restrict_passes_count AS left,
              passes_restrict_passes_count >= passes_restrict_max_count AS exhausted`,
        );
        if (!counted) throw new AppError('guest_pass_limit');
        left = Number(counted.left);
        exhausted = counted.exhausted;
      }
      const id = await this.devices.queueOneInTx(
        tx,
        { deviceId: door.device_id, type: 'open_lock', payload: { lock: door.lock_number, face } },
        null,
      );
      if (id === null) throw new AppError('guest_device_problem');
      await recordAudit(tx, ctx, {
        entity: 'identifier',
        entityId: g.id,
        action: 'guest_open',
        after: { device_id: door.device_id, lock: door.lock_number, face: true, task_id: id },
      });
      return id;
    });
    await this.devices.dispatch();
    const outcome = await this.devices.awaitTask(taskId, { timeoutMs: this.hooks.faceWaitMs ?? FACE_WAIT_MS });
    if (outcome.state === 'completed') {
      if (exhausted) {
        // The last pass is used: the doors hear it now that it really was.
        await this.db.transaction((tx) => this.hooks.sync(tx, [g.id], []));
        await this.devices.dispatch();
      }
      return { opened: true, passes_left: left };
    }
    // The door stayed shut (it said so, or the task was stopped before it ran): the pass is given back.
    // A task a door started but did not answer in time may still open it; its pass stays taken.
    if (outcome.state !== 'timeout') {
      await this.db.transaction(async (tx) => {
        if (g.passes_restrict_active) {
          await tx.execute(
            sql`UPDATE identifiers SET passes_restrict_passes_count = passes_restrict_passes_count - 1, updated_at = now()
              WHERE id = ${g.id} AND passes_restrict_active AND passes_restrict_passes_count > 0`,
          );
        }
        await recordAudit(tx, ctx, {
          entity: 'identifier',
          entityId: g.id,
          action: 'guest_open_failed',
          after: { device_id: door.device_id, lock: door.lock_number, task_id: taskId, error: outcome.error ?? outcome.state },
        });
      });
    }
    if (outcome.state === 'error' && outcome.error === 'face_not_recognized') throw new AppError('guest_face_not_recognized');
    throw new AppError('guest_device_problem');
  }

  // --- the guest's photo (face ID) -------------------------------------------------------------------

  /**
   * Sets a guest's photo, for the grantor (or whoever may edit any guest key): the face a door with
   * face ID must see before it opens for the guest. A JPEG, PNG or WebP of at most 5 MB.
   */
  async setPhoto(ctx: RequestContext, id: number, image: Buffer, files: FileStore): Promise<Identifier> {
    await this.ownGuest(ctx.actor, id, 'can_edit_identifiers');
    if (image.length > MAX_IMAGE_BYTES) throw new AppError('payload_too_large');
    const { ext, data } = await storableImage(image);
    const [before] = await queryRows<{ photo_path: string | null }>(this.db, sql`SELECT photo_path FROM identifiers WHERE id = ${id}`);
    const key = await files.put('identifiers', ext, data);
    await this.db.transaction(async (tx) => {
      await tx.update(identifiers).set({ photoPath: key, updatedAt: new Date() }).where(sql`${identifiers.id} = ${id}`);
      await recordAudit(tx, ctx, { entity: 'identifier', entityId: id, action: 'guest_photo', after: { photo: key } });
    });
    await files.remove(before?.photo_path ?? null);
    return this.hooks.get(ctx.actor, id);
  }
}
