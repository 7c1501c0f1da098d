import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type BulkDeleteResult,
  type CreateEmergencyAlertBody,
  DEVICE_REALTIME,
  DEVICE_TASK_STATES,
  type DeviceTaskState,
  type DeviceTaskType,
  deviceModel,
  EMERGENCY_DEFAULTS,
  EMERGENCY_REALTIME,
  type EmergencyAlert,
  type EmergencyPlayback,
  type EmergencyPlaybackChanged,
  type EmergencyTone,
  type ListMeta,
  type ListQuery,
  type Lockdown,
  VALIDATION_MESSAGES as M,
  type Muster,
  type MusterEntry,
  type MusterQuery,
  type StartLockdownBody,
  type UpdateEmergencyAlertBody,
} from '@atrium/contract';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { groupScopeCondition, intArray, qualifiedColumns, scopeOf } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows, type Tx } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import type { FileStore } from '../../core/files.js';
import { containsPattern, filtersSql, inPageOrder, type ListSpec, pageOfIds } from '../../core/list-query.js';
import type { ProjectInfo } from '../../core/project-info.js';
import type { RealtimeHub } from '../../core/realtime.js';
import { devicePredicate } from '../devices/devices.repository.js';
import type { DevicesService } from '../devices/devices.service.js';
import { checkAudio, generateTone } from './emergency.audio.js';
import { emergencyAlertDevices, emergencyAlertGroups, emergencyAlerts, emergencyPlaybacks } from './emergency.table.js';

const A = qualifiedColumns(emergencyAlerts);

export const EMERGENCY_LIST: ListSpec = {
  fields: {
    id: { expr: sql`${A.id}`, type: 'number' },
    name: { expr: sql`${A.name}`, type: 'text' },
    device_type: { expr: sql`${A.deviceType}`, type: 'text' },
    playback_duration: { expr: sql`${A.playbackDuration}`, type: 'number' },
    open_locks: { expr: sql`${A.openLocks}`, type: 'boolean' },
    created_at: { expr: sql`${A.createdAt}`, type: 'date' },
    updated_at: { expr: sql`${A.updatedAt}`, type: 'date' },
  },
  defaultSort: 'name',
  tiebreak: sql`${A.id} ASC`,
};

const iso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : (d instanceof Date ? d : new Date(d)).toISOString();
const FINAL: readonly string[] = ['completed', 'error', 'stopped'];
const asState = (s: string): DeviceTaskState => ((DEVICE_TASK_STATES as readonly string[]).includes(s) ? (s as DeviceTaskState) : 'new');

interface AlertRow {
  id: number;
  name: string;
  device_type: string;
  playback_duration: number;
  open_locks: boolean;
  file_key: string | null;
  filename: string | null;
  file_size: number | null;
  file_type: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  domains: number[] | null;
  devices: number[] | null;
  playing: boolean;
  started_at: string | null;
  stopped_at: string | null;
}

interface TargetDevice {
  id: number;
  name: string;
  type: string;
  model: string;
}

export interface EmergencyOptions {
  /** Where devices reach Atrium (the project's server URL, else PUBLIC_URL): the sound's link is made from it. */
  links: Pick<ProjectInfo, 'link'>;
  /** Key of the sound links' tokens (the server's token secret). */
  secret: string;
  /** Live playback for the consoles (EMERGENCY_REALTIME); absent, the console reads on demand only. */
  realtime?: Pick<RealtimeHub, 'publish' | 'follow' | 'hasSubscribers' | 'deliverHere' | 'guardTopics'>;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * Emergency alerts (spec comms §3, §5, §7): CRUD with groups and devices as recipients, the sound
 * file, start and stop through device tasks (play_audio, stop_audio, open_lock); and beyond the
 * spec, the lockdown of a group (lockdown tasks) and the muster list from access events.
 *
 * Scope: an operator works within their devices view scope (all; their groups and below; their
 * groups): an alert is theirs to see when they made it or one of its groups or devices is in that
 * scope, it names only groups and devices in it, and a start reaches only devices in it.
 */
export class EmergencyService {
  constructor(
    private readonly db: Db,
    private readonly devices: DevicesService,
    private readonly files: FileStore,
    private readonly opts: EmergencyOptions,
  ) {
    // A task of a playback changed state on a device (heard by every instance): each instance tells
    // its own consoles showing that alert, and asks the database only when one is showing any.
    // The ids an alert's playback events carry are for those who may read the alert, no one else.
    opts.realtime?.guardTopics(EMERGENCY_REALTIME.topicPrefix, (actor, rest) => this.mayWatch(actor, rest));
    opts.realtime?.follow(DEVICE_REALTIME.events.task, (projectId, _topic, data) => {
      const taskId = Number((data as { id?: unknown } | null)?.id);
      if (!Number.isSafeInteger(taskId) || !opts.realtime?.hasSubscribers(projectId, EMERGENCY_REALTIME.topicPrefix)) return;
      void this.taskChanged(projectId, taskId).catch((err) => opts.log?.warn({ err, taskId }, 'emergency playback update failed'));
    });
  }

  private async taskChanged(projectId: number, taskId: number): Promise<void> {
    const rows = await queryRows<{ alert_id: number; playback_id: number }>(
      this.db,
      sql`SELECT p.alert_id, p.id AS playback_id FROM emergency_tasks et JOIN emergency_playbacks p ON p.id = et.playback_id
        WHERE et.task_id = ${taskId}`,
    );
    for (const r of rows) {
      const data: EmergencyPlaybackChanged = { alert_id: Number(r.alert_id), playback_id: Number(r.playback_id) };
      this.opts.realtime?.deliverHere(projectId, EMERGENCY_REALTIME.topic(data.alert_id), EMERGENCY_REALTIME.events.playback, data);
    }
  }

  /** A start or a stop, to every instance's consoles showing the alert. */
  private async playbackChanged(projectId: number, alertId: number, playbackId: number): Promise<void> {
    const data: EmergencyPlaybackChanged = { alert_id: alertId, playback_id: playbackId };
    await this.opts.realtime
      ?.publish(projectId, EMERGENCY_REALTIME.topic(alertId), EMERGENCY_REALTIME.events.playback, data)
      .catch((err) => this.opts.log?.warn({ err, alertId }, 'emergency playback update failed'));
  }

  // --- scope -------------------------------------------------------------------------------------

  /** Groups (aliased `g`) within the actor's devices scope. */
  private groupCond(actor: Actor): SQL {
    const s = scopeOf(actor, 'devices', 'view');
    if (s === 'all') return sql`TRUE`;
    return groupScopeCondition(actor, s === 'descendants' ? 'descendants' : 'domain');
  }

  /** Devices (the `devices` table unaliased) within the actor's devices view scope. */
  private deviceCond(actor: Actor): SQL {
    return devicePredicate(actor, 'view');
  }

  private alertVisible(actor: Actor): SQL {
    return sql`(${A.createdBy} = ${actor.userId}
      OR EXISTS (SELECT 1 FROM emergency_alert_groups ag JOIN groups g ON g.id = ag.group_id WHERE ag.alert_id = ${A.id} AND ${this.groupCond(actor)})
      OR EXISTS (SELECT 1 FROM emergency_alert_devices ad JOIN devices ON devices.id = ad.device_id WHERE ad.alert_id = ${A.id} AND ${this.deviceCond(actor)}))`;
  }

  private assertView(actor: Actor) {
    if (!actor.permissions.has('can_view_emergency_alerts')) throw prohibited([{ permission: 'can_view_emergency_alerts' }]);
  }

  private assertPermission(actor: Actor, permission: string) {
    if (!actor.permissions.has(permission)) throw prohibited([{ permission }]);
  }

  /** The groups and devices named must be within the actor's scope. */
  private async assertRecipients(actor: Actor, domains: readonly number[], devices: readonly number[]) {
    const g = new Set(domains);
    const d = new Set(devices);
    if (g.size) {
      const ok = await queryRows<{ id: number }>(
        this.db,
        sql`SELECT g.id FROM groups g WHERE g.project_id = ${actor.projectId} AND g.id = ANY(${intArray([...g])}) AND ${this.groupCond(actor)}`,
      );
      const okIds = new Set(ok.map((r) => Number(r.id)));
      const bad = [...g].filter((id) => !okIds.has(id));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
    }
    if (d.size) {
      const ok = await queryRows<{ id: number }>(
        this.db,
        sql`SELECT devices.id FROM devices WHERE devices.project_id = ${actor.projectId} AND devices.id = ANY(${intArray([...d])}) AND ${this.deviceCond(actor)}`,
      );
      const okIds = new Set(ok.map((r) => Number(r.id)));
      const bad = [...d].filter((id) => !okIds.has(id));
      if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'devices', entity: 'devices', ids: bad }]);
    }
  }

  // --- reading -----------------------------------------------------------------------------------

  private async rows(actor: Actor, ids: readonly number[]): Promise<AlertRow[]> {
    if (!ids.length) return [];
    // Only the groups and devices the caller may see are named (ids included): nothing reaches outside the scope.
    return queryRows<AlertRow>(
      this.db,
      sql`SELECT ${A.id} AS id, ${A.name} AS name, ${A.deviceType} AS device_type, ${A.playbackDuration} AS playback_duration,
          ${A.openLocks} AS open_locks, ${A.fileKey} AS file_key, ${A.filename} AS filename, ${A.fileSize} AS file_size,
          ${A.fileType} AS file_type, ${A.createdBy} AS created_by, ${A.createdAt} AS created_at, ${A.updatedAt} AS updated_at,
          (SELECT array_agg(g.id ORDER BY g.id) FROM emergency_alert_groups ag JOIN groups g ON g.id = ag.group_id
            WHERE ag.alert_id = ${A.id} AND ${this.groupCond(actor)}) AS domains,
          (SELECT array_agg(devices.id ORDER BY devices.id) FROM emergency_alert_devices ad JOIN devices ON devices.id = ad.device_id
            WHERE ad.alert_id = ${A.id} AND ${this.deviceCond(actor)}) AS devices,
          coalesce(p.stopped_at IS NULL AND p.ends_at > now(), FALSE) AS playing, p.started_at, coalesce(p.stopped_at, CASE WHEN p.ends_at <= now() THEN p.ends_at END) AS stopped_at
        FROM emergency_alerts
        LEFT JOIN LATERAL (SELECT * FROM emergency_playbacks pb WHERE pb.alert_id = ${A.id} ORDER BY pb.id DESC LIMIT 1) p ON TRUE
        WHERE ${A.id} = ANY(${intArray(ids)})`,
    );
  }

  private audioToken(id: number, fileKey: string): string {
    return createHmac('sha256', this.opts.secret).update(`emergency-audio:${id}:${fileKey}`).digest('base64url').slice(0, 32);
  }

  private audioPath(id: number, fileKey: string): string {
    return `/api/v0/emergency/${id}/audio?token=${this.audioToken(id, fileKey)}`;
  }

  private async toAlert(actor: Actor, r: AlertRow, withRel: ReadonlySet<string>): Promise<EmergencyAlert> {
    const domains = (r.domains ?? []).map(Number);
    const devices = (r.devices ?? []).map(Number);
    const alert: EmergencyAlert = {
      id: Number(r.id),
      name: r.name,
      device_type: r.device_type as EmergencyAlert['device_type'],
      playback_duration: Number(r.playback_duration),
      open_locks: Boolean(r.open_locks),
      domains,
      devices,
      filename: r.filename,
      file_size: r.file_size === null ? null : Number(r.file_size),
      file_type: r.file_type,
      audio_url: r.file_key ? this.audioPath(Number(r.id), r.file_key) : null,
      status: r.playing ? 'playing' : 'idle',
      started_at: iso(r.started_at),
      stopped_at: iso(r.stopped_at),
      created_by: r.created_by === null ? null : Number(r.created_by),
      created_at: iso(r.created_at) as string,
      updated_at: iso(r.updated_at) as string,
      can_edit: actor.permissions.has('can_edit_emergency_alerts'),
      can_delete: actor.permissions.has('can_delete_emergency_alerts'),
      can_play: actor.permissions.has('can_playback_emergency_alerts'),
    };
    if (withRel.has('domains')) {
      alert.domains_info = domains.length
        ? (
            await queryRows<{ id: number; name: string }>(
              this.db,
              sql`SELECT id, name FROM groups WHERE id = ANY(${intArray(domains)}) ORDER BY name, id`,
            )
          ).map((g) => ({ id: Number(g.id), name: g.name }))
        : [];
    }
    if (withRel.has('devices')) {
      alert.devices_info = devices.length
        ? (
            await queryRows<{ id: number; name: string; type: string }>(
              this.db,
              sql`SELECT id, name, type FROM devices WHERE id = ANY(${intArray(devices)}) ORDER BY name, id`,
            )
          ).map((d) => ({ id: Number(d.id), name: d.name, type: d.type }))
        : [];
    }
    return alert;
  }

  private withSet(requested: readonly string[]): Set<string> {
    const bad = requested.filter((w) => w !== 'domains' && w !== 'devices');
    if (bad.length) throw invalidField('with', M.invalid_value, { value: bad[0] });
    return new Set(requested);
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: EmergencyAlert[]; meta: ListMeta }> {
    this.assertView(actor);
    const withRel = this.withSet(q.with);
    const where = and(
      eq(emergencyAlerts.projectId, actor.projectId),
      filtersSql(EMERGENCY_LIST, q),
      this.alertVisible(actor),
      q.search ? sql`${A.name} ILIKE ${containsPattern(q.search)}` : undefined,
    );
    const page = await pageOfIds(this.db, { table: emergencyAlerts, id: sql`${A.id}`, where, spec: EMERGENCY_LIST, query: q });
    const rows = await this.rows(actor, page.ids);
    const data: EmergencyAlert[] = [];
    for (const r of inPageOrder(
      page.ids,
      rows.map((x) => ({ ...x, id: Number(x.id) })),
    ))
      data.push(await this.toAlert(actor, r, withRel));
    return { data, meta: { total: page.total, page: q.page, size: q.size, ...(page.estimated ? { estimated: true } : {}) } };
  }

  private async visible(actor: Actor, id: number, permission?: string): Promise<AlertRow> {
    this.assertView(actor);
    const [hit] = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT ${A.id} AS id FROM emergency_alerts WHERE ${A.id} = ${id} AND ${A.projectId} = ${actor.projectId} AND ${this.alertVisible(actor)}`,
    );
    if (!hit) throw notFound();
    if (permission) this.assertPermission(actor, permission);
    const [r] = await this.rows(actor, [id]);
    if (!r) throw notFound();
    return r;
  }

  /** Whether the actor may watch an alert's playback live: the same rule as reading the alert. */
  async mayWatch(actor: Actor, alertId: string): Promise<boolean> {
    const id = Number(alertId);
    if (!Number.isSafeInteger(id) || id <= 0) return false;
    return this.visible(actor, id).then(
      () => true,
      () => false,
    );
  }

  async get(actor: Actor, id: number, withRel: readonly string[] = []): Promise<EmergencyAlert> {
    return this.toAlert(actor, await this.visible(actor, id), this.withSet(withRel));
  }

  // --- writing -----------------------------------------------------------------------------------

  private async setRecipients(tx: Tx, alertId: number, domains: readonly number[], devices: readonly number[]) {
    await tx.delete(emergencyAlertGroups).where(eq(emergencyAlertGroups.alertId, alertId));
    await tx.delete(emergencyAlertDevices).where(eq(emergencyAlertDevices.alertId, alertId));
    const g = [...new Set(domains)];
    const d = [...new Set(devices)];
    if (g.length) await tx.insert(emergencyAlertGroups).values(g.map((groupId) => ({ alertId, groupId })));
    if (d.length) await tx.insert(emergencyAlertDevices).values(d.map((deviceId) => ({ alertId, deviceId })));
  }

  async create(ctx: RequestContext, body: CreateEmergencyAlertBody): Promise<EmergencyAlert> {
    this.assertPermission(ctx.actor, 'can_create_emergency_alerts');
    await this.assertRecipients(ctx.actor, body.domains, body.devices);
    const id = await this.db.transaction(async (tx) => {
      const [r] = await tx
        .insert(emergencyAlerts)
        .values({
          projectId: ctx.actor.projectId,
          name: body.name,
          deviceType: body.device_type,
          playbackDuration: body.playback_duration,
          openLocks: body.open_locks,
          createdBy: ctx.actor.userId,
        })
        .returning({ id: emergencyAlerts.id });
      await this.setRecipients(tx, r!.id, body.domains, body.devices);
      await recordAudit(tx, ctx, { entity: 'emergency_alert', entityId: r!.id, action: 'create', after: body });
      return r!.id;
    });
    return this.get(ctx.actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateEmergencyAlertBody): Promise<EmergencyAlert> {
    const before = await this.visible(ctx.actor, id, 'can_edit_emergency_alerts');
    await this.assertRecipients(ctx.actor, body.domains ?? [], body.devices ?? []);
    // Recipients outside the caller's scope are kept as they are: the caller neither sees nor changes them.
    const [stored] = await queryRows<{ domains: number[] | null; devices: number[] | null }>(
      this.db,
      sql`SELECT (SELECT array_agg(group_id) FROM emergency_alert_groups WHERE alert_id = ${id}) AS domains,
        (SELECT array_agg(device_id) FROM emergency_alert_devices WHERE alert_id = ${id}) AS devices`,
    );
    const seenDomains = new Set(before.domains ?? []);
    const seenDevices = new Set(before.devices ?? []);
    const domains = body.domains
      ? [...(stored?.domains ?? []).map(Number).filter((g) => !seenDomains.has(g)), ...body.domains]
      : (stored?.domains ?? []).map(Number);
    const devices = body.devices
      ? [...(stored?.devices ?? []).map(Number).filter((d) => !seenDevices.has(d)), ...body.devices]
      : (stored?.devices ?? []).map(Number);
    if (!domains.length && !devices.length) {
      throw invalidField('domains', M.required);
    }
    await this.db.transaction(async (tx) => {
      await tx
        .update(emergencyAlerts)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.device_type !== undefined ? { deviceType: body.device_type } : {}),
          ...(body.playback_duration !== undefined ? { playbackDuration: body.playback_duration } : {}),
          ...(body.open_locks !== undefined ? { openLocks: body.open_locks } : {}),
          updatedAt: new Date(),
        })
        .where(eq(emergencyAlerts.id, id));
      if (body.domains || body.devices) await this.setRecipients(tx, id, domains, devices);
      await recordAudit(tx, ctx, { entity: 'emergency_alert', entityId: id, action: 'update', before, after: body });
    });
    return this.get(ctx.actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id, 'can_delete_emergency_alerts');
    if (before.playing) throw new AppError('emergency_playing');
    await this.db.transaction(async (tx) => {
      await tx.delete(emergencyAlerts).where(eq(emergencyAlerts.id, id));
      await recordAudit(tx, ctx, { entity: 'emergency_alert', entityId: id, action: 'delete', before });
    });
    await this.files.remove(before.file_key);
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  /** The alert's sound (POST /emergency/{id}/file): checked to be a sound within the bounds, then stored. */
  async setFile(ctx: RequestContext, id: number, data: Buffer, filename: string): Promise<EmergencyAlert> {
    const before = await this.visible(ctx.actor, id, 'can_edit_emergency_alerts');
    const kind = checkAudio(data);
    return this.storeFile(ctx, before, data, kind.type, kind.ext, filename.trim().slice(0, 255) || `alert-${id}.${kind.ext}`);
  }

  /** POST /emergency/generate: a warning tone the server makes, stored as the alert's sound. */
  async generate(ctx: RequestContext, id: number, tone: EmergencyTone, seconds: number): Promise<EmergencyAlert> {
    const before = await this.visible(ctx.actor, id, 'can_edit_emergency_alerts');
    return this.storeFile(ctx, before, generateTone(tone, seconds), 'audio/wav', 'wav', `${tone}-${seconds}s.wav`);
  }

  private async storeFile(ctx: RequestContext, before: AlertRow, data: Buffer, type: string, ext: string, filename: string) {
    const key = await this.files.put('emergency', ext, data);
    try {
      await this.db.transaction(async (tx) => {
        await tx
          .update(emergencyAlerts)
          .set({ fileKey: key, filename, fileSize: data.length, fileType: type, updatedAt: new Date() })
          .where(eq(emergencyAlerts.id, before.id));
        await recordAudit(tx, ctx, {
          entity: 'emergency_alert',
          entityId: before.id,
          action: 'file',
          before: { filename: before.filename, file_size: before.file_size },
          after: { filename, file_size: data.length, file_type: type },
        });
      });
    } catch (e) {
      await this.files.remove(key);
      throw e;
    }
    await this.files.remove(before.file_key);
    return this.get(ctx.actor, Number(before.id));
  }

  /** The sound by its link (devices and the console's player): the token must be the alert's current file's. */
  async audio(id: number, token: string): Promise<{ data: Buffer; type: string; filename: string }> {
    const [r] = await queryRows<{ file_key: string | null; file_type: string | null; filename: string | null }>(
      this.db,
      sql`SELECT file_key, file_type, filename FROM emergency_alerts WHERE id = ${id}`,
    );
    if (!r?.file_key) throw notFound();
    const want = Buffer.from(this.audioToken(id, r.file_key));
    const got = Buffer.from(token);
    if (want.length !== got.length || !timingSafeEqual(want, got)) throw notFound();
    return { data: await this.files.get(r.file_key), type: r.file_type ?? 'application/octet-stream', filename: r.filename ?? 'alert' };
  }

  // --- start and stop ----------------------------------------------------------------------------

  /** Devices of the alert's groups (and below) and its own devices, within the caller's scope, speaking a protocol. */
  private async alertDevices(actor: Actor, alertId: number): Promise<TargetDevice[]> {
    return queryRows<TargetDevice>(
      this.db,
      sql`SELECT devices.id, devices.name, devices.type, devices.model FROM devices
        WHERE devices.project_id = ${actor.projectId} AND devices.protocol <> 'none' AND ${this.deviceCond(actor)}
          AND (devices.id IN (SELECT device_id FROM emergency_alert_devices WHERE alert_id = ${alertId})
            OR EXISTS (SELECT 1 FROM groups g JOIN emergency_alert_groups ag ON ag.alert_id = ${alertId} AND ag.group_id = ANY(g.path)
              WHERE g.id = devices.group_id))
        ORDER BY devices.name, devices.id`,
    );
  }

  /**
   * Starts an alert: every device of its type among its recipients (within the caller's scope) gets a
   * play_audio task for the playback duration; with `open_locks`, every lock of every device with
   * locks among them gets an open_lock task for as long (at most the protocol's 600 s).
   */
  async start(ctx: RequestContext, id: number): Promise<EmergencyPlayback> {
    const alert = await this.visible(ctx.actor, id, 'can_playback_emergency_alerts');
    if (!alert.file_key) throw new AppError('emergency_no_audio');
    if (alert.playing) throw new AppError('emergency_playing');
    const all = await this.alertDevices(ctx.actor, id);
    const players = all.filter((d) => d.type === alert.device_type);
    const doors = alert.open_locks
      ? all.flatMap((d) => {
          const locks = deviceModel(d.type, d.model)?.capabilities.locks ?? 0;
          return Array.from({ length: locks }, (_, i) => ({ device: d, lock: i + 1 }));
        })
      : [];
    if (!players.length && !doors.length) throw new AppError('emergency_no_devices');
    const seconds = Number(alert.playback_duration);
    const url = await this.opts.links.link(ctx.actor.projectId, this.audioPath(id, alert.file_key));
    const playbackId = await this.db.transaction(async (tx) => {
      const [p] = await tx
        .insert(emergencyPlaybacks)
        .values({ projectId: ctx.actor.projectId, alertId: id, startedBy: ctx.actor.userId, endsAt: new Date(Date.now() + seconds * 1000) })
        .returning({ id: emergencyPlaybacks.id });
      const pid = p!.id;
      for (const d of players) {
        await this.queue(
          tx,
          ctx,
          { deviceId: d.id, type: 'play_audio', payload: { url, seconds, alert_id: id } },
          { playbackId: pid, kind: 'play' },
        );
      }
      const openFor = Math.min(seconds, EMERGENCY_DEFAULTS.open_lock_seconds_max);
      for (const { device, lock } of doors) {
        await this.queue(
          tx,
          ctx,
          { deviceId: device.id, type: 'open_lock', payload: { lock, seconds: openFor } },
          { playbackId: pid, kind: 'open', lock },
        );
      }
      await recordAudit(tx, ctx, {
        entity: 'emergency_alert',
        entityId: id,
        action: 'start',
        after: { playback_id: pid, devices: players.map((d) => d.id), doors: doors.map((x) => ({ device_id: x.device.id, lock: x.lock })) },
      });
      return pid;
    });
    await this.devices.dispatch();
    await this.playbackChanged(ctx.actor.projectId, id, playbackId);
    return this.playbackOf(ctx.actor, id, playbackId);
  }

  private async queue(
    tx: Tx,
    ctx: RequestContext,
    task: { deviceId: number; type: DeviceTaskType; payload: Record<string, unknown> },
    link: { playbackId?: number; lockdownId?: number; kind: string; lock?: number },
  ): Promise<void> {
    const taskId = await this.devices.queueOneInTx(tx, task, ctx.actor.userId);
    if (taskId === null) return;
    await tx.execute(
      sql`INSERT INTO emergency_tasks (task_id, playback_id, lockdown_id, device_id, kind, lock_number)
        VALUES (${taskId}, ${link.playbackId ?? null}, ${link.lockdownId ?? null}, ${task.deviceId}, ${link.kind}, ${link.lock ?? null})`,
    );
  }

  /** Stops a playing alert: stop_audio to every device it was sent to; a play task no device took yet never runs. */
  async stop(ctx: RequestContext, id: number): Promise<EmergencyPlayback> {
    const alert = await this.visible(ctx.actor, id, 'can_playback_emergency_alerts');
    if (!alert.playing) throw new AppError('emergency_not_playing');
    const [p] = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT id FROM emergency_playbacks WHERE alert_id = ${id} ORDER BY id DESC LIMIT 1`,
    );
    const playbackId = Number(p!.id);
    const plays = await queryRows<{ task_id: number; device_id: number; state: string }>(
      this.db,
      sql`SELECT et.task_id, et.device_id, t.state FROM emergency_tasks et JOIN device_tasks t ON t.id = et.task_id
        WHERE et.playback_id = ${playbackId} AND et.kind = 'play'`,
    );
    await this.db.transaction(async (tx) => {
      const updated = await queryRows<{ id: number }>(
        tx,
        sql`UPDATE emergency_playbacks SET stopped_at = now(), stopped_by = ${ctx.actor.userId}
          WHERE id = ${playbackId} AND stopped_at IS NULL RETURNING id`,
      );
      if (!updated.length) throw new AppError('emergency_not_playing');
      const unsent = plays.filter((t) => t.state === 'new' || t.state === 'waiting').map((t) => Number(t.task_id));
      if (unsent.length) {
        await tx.execute(
          sql`UPDATE device_tasks SET state = 'stopped', error = 'alert stopped', finished_at = now(), updated_at = now()
            WHERE id = ANY(${intArray(unsent)}) AND state IN ('new', 'waiting')`,
        );
      }
      for (const t of plays.filter((x) => x.state !== 'new' && x.state !== 'waiting' && x.state !== 'error' && x.state !== 'stopped')) {
        await this.queue(
          tx,
          ctx,
          { deviceId: Number(t.device_id), type: 'stop_audio', payload: { alert_id: id } },
          { playbackId, kind: 'stop' },
        );
      }
      await recordAudit(tx, ctx, { entity: 'emergency_alert', entityId: id, action: 'stop', after: { playback_id: playbackId } });
    });
    await this.devices.dispatch();
    await this.playbackChanged(ctx.actor.projectId, id, playbackId);
    return this.playbackOf(ctx.actor, id, playbackId);
  }

  /** The latest playback of an alert, device by device (the console reads it again on each EMERGENCY_REALTIME event). */
  async playback(actor: Actor, id: number): Promise<EmergencyPlayback | null> {
    await this.visible(actor, id);
    const [p] = await queryRows<{ id: number }>(
      this.db,
      sql`SELECT id FROM emergency_playbacks WHERE alert_id = ${id} ORDER BY id DESC LIMIT 1`,
    );
    return p ? this.playbackOf(actor, id, Number(p.id)) : null;
  }

  private async playbackOf(actor: Actor, alertId: number, playbackId: number): Promise<EmergencyPlayback> {
    const [p] = await queryRows<{
      id: number;
      started_at: string;
      started_by: number | null;
      stopped_at: string | null;
      stopped_by: number | null;
      ends_at: string;
    }>(this.db, sql`SELECT id, started_at, started_by, stopped_at, stopped_by, ends_at FROM emergency_playbacks WHERE id = ${playbackId}`);
    // Only devices the caller may see are listed.
    const tasks = await queryRows<{
      task_id: number;
      device_id: number;
      kind: string;
      lock_number: number | null;
      state: string;
      error: string | null;
      name: string;
      type: string;
      online: boolean | null;
    }>(
      this.db,
      sql`SELECT et.task_id, et.device_id, et.kind, et.lock_number, t.state, t.error, devices.name, devices.type, s.online
        FROM emergency_tasks et JOIN device_tasks t ON t.id = et.task_id JOIN devices ON devices.id = et.device_id
        LEFT JOIN device_status s ON s.device_id = devices.id
        WHERE et.playback_id = ${playbackId} AND ${this.deviceCond(actor)}
        ORDER BY devices.name, devices.id, et.kind, et.lock_number, et.task_id`,
    );
    const byDevice = new Map<number, EmergencyPlayback['devices'][number]>();
    for (const t of tasks) {
      const deviceId = Number(t.device_id);
      const d = byDevice.get(deviceId) ?? {
        device_id: deviceId,
        device_name: t.name,
        device_type: t.type,
        online: Boolean(t.online),
        play: null,
        stop: null,
        locks: [],
      };
      const state = { task_id: Number(t.task_id), state: asState(t.state), error: t.error };
      if (t.kind === 'play') d.play = state;
      else if (t.kind === 'stop') d.stop = state;
      else d.locks.push({ lock: Number(t.lock_number ?? 1), ...state });
      byDevice.set(deviceId, d);
    }
    const devices = [...byDevice.values()];
    const played = devices.filter((d) => d.play?.state === 'completed').length;
    const failed = devices.filter((d) => d.play && (d.play.state === 'error' || d.play.state === 'stopped')).length;
    const pending = devices.filter((d) => d.play && !FINAL.includes(d.play.state)).length;
    const stoppedAt = p!.stopped_at ?? (new Date(p!.ends_at).getTime() <= Date.now() ? p!.ends_at : null);
    return {
      id: Number(p!.id),
      alert_id: alertId,
      started_at: iso(p!.started_at) as string,
      started_by: p!.started_by === null ? null : Number(p!.started_by),
      stopped_at: iso(stoppedAt),
      stopped_by: p!.stopped_by === null ? null : Number(p!.stopped_by),
      devices,
      summary: {
        devices: devices.filter((d) => d.play).length,
        played,
        failed,
        pending,
        locks_opened: devices.flatMap((d) => d.locks).filter((l) => l.state === 'completed').length,
      },
    };
  }

  // --- lockdown ----------------------------------------------------------------------------------

  private assertLockdown(actor: Actor) {
    this.assertPermission(actor, 'can_playback_emergency_alerts');
  }

  private async groupInScope(actor: Actor, groupId: number, field = 'domain_id'): Promise<{ id: number; name: string }> {
    const [g] = await queryRows<{ id: number; name: string }>(
      this.db,
      sql`SELECT g.id, g.name FROM groups g WHERE g.id = ${groupId} AND g.project_id = ${actor.projectId} AND ${this.groupCond(actor)}`,
    );
    if (!g) throw new AppError('invalid_related_entity', [{ field, entity: 'domains', ids: [groupId] }]);
    return { id: Number(g.id), name: g.name };
  }

  /** Devices with locks in a group and below, within the caller's scope. */
  private async doorsOf(actor: Actor, groupId: number): Promise<TargetDevice[]> {
    const rows = await queryRows<TargetDevice>(
      this.db,
      sql`SELECT devices.id, devices.name, devices.type, devices.model FROM devices JOIN groups g ON g.id = devices.group_id
        WHERE devices.project_id = ${actor.projectId} AND devices.protocol <> 'none' AND ${groupId} = ANY(g.path) AND ${this.deviceCond(actor)}
        ORDER BY devices.name, devices.id`,
    );
    return rows.filter((d) => (deviceModel(d.type, d.model)?.capabilities.locks ?? 0) > 0);
  }

  /** Locks every door of a group (and below) at once, overriding every rule, until lifted. */
  async startLockdown(ctx: RequestContext, body: StartLockdownBody): Promise<Lockdown> {
    this.assertLockdown(ctx.actor);
    const group = await this.groupInScope(ctx.actor, body.domain_id);
    const doors = await this.doorsOf(ctx.actor, group.id);
    if (!doors.length) throw new AppError('emergency_no_devices');
    const id = await this.db.transaction(async (tx) => {
      const inserted = await queryRows<{ id: number }>(
        tx,
        sql`INSERT INTO emergency_lockdowns (project_id, group_id, reason, started_by)
          VALUES (${ctx.actor.projectId}, ${group.id}, ${body.reason || null}, ${ctx.actor.userId})
          ON CONFLICT DO NOTHING RETURNING id`,
      );
      if (!inserted.length) throw new AppError('lockdown_active');
      const lid = Number(inserted[0]!.id);
      for (const d of doors) {
        await this.queue(
          tx,
          ctx,
          { deviceId: d.id, type: 'lockdown', payload: { active: true, locks: [], lockdown_id: lid } },
          { lockdownId: lid, kind: 'lock' },
        );
      }
      await recordAudit(tx, ctx, {
        entity: 'emergency_lockdown',
        entityId: lid,
        action: 'start',
        after: { domain_id: group.id, reason: body.reason ?? null, devices: doors.map((d) => d.id) },
      });
      return lid;
    });
    await this.devices.dispatch();
    return this.getLockdown(ctx.actor, id);
  }

  /** Lifts a lockdown: the doors decide by their rules again, except those another lockdown still holds. */
  async liftLockdown(ctx: RequestContext, id: number): Promise<Lockdown> {
    this.assertLockdown(ctx.actor);
    const l = await this.visibleLockdown(ctx.actor, id);
    if (l.ended_at) throw new AppError('lockdown_lifted');
    const held = await queryRows<{ device_id: number }>(
      this.db,
      sql`SELECT DISTINCT et.device_id FROM emergency_tasks et JOIN emergency_lockdowns l ON l.id = et.lockdown_id
        WHERE et.lockdown_id <> ${id} AND et.kind = 'lock' AND l.ended_at IS NULL AND l.project_id = ${ctx.actor.projectId}`,
    );
    const stillHeld = new Set(held.map((h) => Number(h.device_id)));
    const locked = await queryRows<{ device_id: number }>(
      this.db,
      sql`SELECT DISTINCT device_id FROM emergency_tasks WHERE lockdown_id = ${id} AND kind = 'lock'`,
    );
    await this.db.transaction(async (tx) => {
      const ended = await queryRows<{ id: number }>(
        tx,
        sql`UPDATE emergency_lockdowns SET ended_at = now(), ended_by = ${ctx.actor.userId} WHERE id = ${id} AND ended_at IS NULL RETURNING id`,
      );
      if (!ended.length) throw new AppError('lockdown_lifted');
      for (const d of locked.map((x) => Number(x.device_id)).filter((x) => !stillHeld.has(x))) {
        await this.queue(
          tx,
          ctx,
          { deviceId: d, type: 'lockdown', payload: { active: false, lockdown_id: id } },
          { lockdownId: id, kind: 'release' },
        );
      }
      await recordAudit(tx, ctx, { entity: 'emergency_lockdown', entityId: id, action: 'lift', before: { domain_id: l.domain_id } });
    });
    await this.devices.dispatch();
    return this.getLockdown(ctx.actor, id);
  }

  private async visibleLockdown(actor: Actor, id: number) {
    const [l] = await queryRows<{ id: number; domain_id: number; ended_at: string | null }>(
      this.db,
      sql`SELECT l.id, l.group_id AS domain_id, l.ended_at FROM emergency_lockdowns l JOIN groups g ON g.id = l.group_id
        WHERE l.id = ${id} AND l.project_id = ${actor.projectId} AND ${this.groupCond(actor)}`,
    );
    if (!l) throw notFound();
    return l;
  }

  async getLockdown(actor: Actor, id: number): Promise<Lockdown> {
    this.assertView(actor);
    await this.visibleLockdown(actor, id);
    const [l] = await this.lockdownRows(actor, sql`l.id = ${id}`, 1, 0);
    if (!l) throw notFound();
    return l;
  }

  async listLockdowns(
    actor: Actor,
    q: ListQuery & { active?: 'true' | 'false' | undefined },
  ): Promise<{ data: Lockdown[]; meta: ListMeta }> {
    this.assertView(actor);
    const where = q.active === undefined ? sql`TRUE` : q.active === 'true' ? sql`l.ended_at IS NULL` : sql`l.ended_at IS NOT NULL`;
    const [c] = await queryRows<{ n: number }>(
      this.db,
      sql`SELECT count(*)::int AS n FROM emergency_lockdowns l JOIN groups g ON g.id = l.group_id
        WHERE l.project_id = ${actor.projectId} AND ${this.groupCond(actor)} AND ${where}`,
    );
    const data = await this.lockdownRows(actor, where, q.size, (q.page - 1) * q.size);
    return { data, meta: { total: Number(c?.n ?? 0), page: q.page, size: q.size } };
  }

  private async lockdownRows(actor: Actor, where: SQL, limit: number, offset: number): Promise<Lockdown[]> {
    const rows = await queryRows<{
      id: number;
      domain_id: number;
      domain_name: string;
      reason: string | null;
      started_at: string;
      started_by: number | null;
      started_by_name: string | null;
      ended_at: string | null;
      ended_by: number | null;
      ended_by_name: string | null;
    }>(
      this.db,
      sql`SELECT l.id, l.group_id AS domain_id, g.name AS domain_name, l.reason, l.started_at, l.started_by,
          (SELECT name FROM users WHERE id = l.started_by) AS started_by_name, l.ended_at, l.ended_by,
          (SELECT name FROM users WHERE id = l.ended_by) AS ended_by_name
        FROM emergency_lockdowns l JOIN groups g ON g.id = l.group_id
        WHERE l.project_id = ${actor.projectId} AND ${this.groupCond(actor)} AND ${where}
        ORDER BY (l.ended_at IS NULL) DESC, l.id DESC LIMIT ${limit} OFFSET ${offset}`,
    );
    if (!rows.length) return [];
    const tasks = await queryRows<{
      lockdown_id: number;
      device_id: number;
      kind: string;
      task_id: number;
      state: string;
      error: string | null;
      name: string;
      online: boolean | null;
    }>(
      this.db,
      sql`SELECT et.lockdown_id, et.device_id, et.kind, et.task_id, t.state, t.error, devices.name, s.online
        FROM emergency_tasks et JOIN device_tasks t ON t.id = et.task_id JOIN devices ON devices.id = et.device_id
        LEFT JOIN device_status s ON s.device_id = devices.id
        WHERE et.lockdown_id = ANY(${intArray(rows.map((r) => Number(r.id)))}) AND ${this.deviceCond(actor)}
        ORDER BY devices.name, devices.id, et.task_id`,
    );
    return rows.map((r) => {
      const byDevice = new Map<number, Lockdown['devices'][number]>();
      for (const t of tasks.filter((x) => Number(x.lockdown_id) === Number(r.id))) {
        const d = byDevice.get(Number(t.device_id)) ?? {
          device_id: Number(t.device_id),
          device_name: t.name,
          online: Boolean(t.online),
          lock: null,
          release: null,
        };
        const state = { task_id: Number(t.task_id), state: asState(t.state), error: t.error };
        if (t.kind === 'lock') d.lock = state;
        else d.release = state;
        byDevice.set(d.device_id, d);
      }
      return {
        id: Number(r.id),
        domain_id: Number(r.domain_id),
        domain_name: r.domain_name,
        reason: r.reason,
        active: r.ended_at === null,
        started_at: iso(r.started_at) as string,
        started_by: r.started_by === null ? null : Number(r.started_by),
        started_by_name: r.started_by_name,
        ended_at: iso(r.ended_at),
        ended_by: r.ended_by === null ? null : Number(r.ended_by),
        ended_by_name: r.ended_by_name,
        devices: [...byDevice.values()],
      };
    });
  }

  // --- muster ------------------------------------------------------------------------------------

  /**
   * Who is inside a group's buildings, for an evacuation, from access events of the last `hours`:
   * each person (a user, else an identifier, else the value presented) whose latest granted pass
   * anywhere in the project was at a door of the group and not on the way out. A reader that reports
   * `direction` tells entries (`in`) from exits (`out`); a pass without one counts as an entry, since
   * readers mostly guard the way in and people leave by exit buttons that name nobody. A later pass
   * at another building's door means the person left.
   */
  async muster(actor: Actor, q: MusterQuery): Promise<Muster> {
    this.assertView(actor);
    this.assertPermission(actor, 'can_view_access_control_events');
    const group = await this.groupInScope(actor, q.domain_id);
    const since = new Date(Date.now() - q.hours * 3600_000);
    const rows = await queryRows<{
      user_id: number | null;
      user_name: string | null;
      identifier_id: number | null;
      identifier_name: string | null;
      value: string | null;
      device_id: number;
      device_name: string | null;
      occurred_at: string;
      direction: string | null;
    }>(
      this.db,
      sql`WITH latest AS (
          SELECT DISTINCT ON (coalesce('u' || e.user_id, 'i' || e.identifier_id, 'v' || e.value))
            e.user_id, e.identifier_id, e.value, e.device_id, e.occurred_at, e.direction
          FROM access_events e
          WHERE e.project_id = ${actor.projectId} AND e.granted AND e.occurred_at >= ${since.toISOString()}
            AND coalesce(e.user_id::text, e.identifier_id::text, e.value) IS NOT NULL
          ORDER BY coalesce('u' || e.user_id, 'i' || e.identifier_id, 'v' || e.value), e.occurred_at DESC, e.id DESC
        )
        SELECT l.user_id, u.name AS user_name, l.identifier_id, i.name AS identifier_name, l.value, l.device_id,
          devices.name AS device_name, l.occurred_at, l.direction
        FROM latest l JOIN devices ON devices.id = l.device_id JOIN groups g ON g.id = devices.group_id
        LEFT JOIN users u ON u.id = l.user_id LEFT JOIN identifiers i ON i.id = l.identifier_id
        WHERE ${group.id} = ANY(g.path) AND coalesce(lower(l.direction), 'in') NOT IN ('out', 'exit')
        ORDER BY coalesce(u.name, i.name, l.value), l.occurred_at`,
    );
    const entries: MusterEntry[] = rows.map((r) => ({
      user_id: r.user_id === null ? null : Number(r.user_id),
      user_name: r.user_name,
      identifier_id: r.identifier_id === null ? null : Number(r.identifier_id),
      identifier_name: r.identifier_name,
      value: r.value,
      device_id: Number(r.device_id),
      device_name: r.device_name,
      entered_at: iso(r.occurred_at) as string,
      direction: r.direction,
    }));
    return {
      domain_id: group.id,
      domain_name: group.name,
      since: since.toISOString(),
      generated_at: new Date().toISOString(),
      total: entries.length,
      entries,
    };
  }
}
