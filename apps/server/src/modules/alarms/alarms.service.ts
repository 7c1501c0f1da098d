import {
  ALARM_REALTIME,
  type AlarmStatus,
  type BulkDeleteResult,
  type CallHistoryItem,
  type DeviceAlarm,
  type DeviceAlarmChanged,
  type DeviceAlarmLog,
  type ListMeta,
  type ListQuery,
  type ProcessAlarmBody,
} from '@atrium/contract';
import type { SQL } from 'drizzle-orm';
import type { Audience } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import type { NewEvent } from '../devices/devices.repository.js';
import type { NewNotification } from '../notifications/notifications.service.js';
import { type AlarmDevice, type AlarmRow, type AlarmsRepository, type LogRow, numberReach } from './alarms.repository.js';

/** Where SOS calls come from: telephony's call history (CallsService.sosHistory). */
export interface SosCallSource {
  sosHistory(actor: Actor, q: ListQuery, reach: (number: SQL) => SQL): Promise<{ data: CallHistoryItem[]; meta: ListMeta }>;
}

export interface AlarmsOptions {
  publish?: (projectId: number, topic: string, event: string, data: unknown, audience: Audience) => Promise<void>;
  notify?: (projectId: number, userId: number, n: NewNotification) => Promise<unknown>;
  /** Telephony's calls, looked up when first asked (telephony is built with the routes). */
  sosCalls?: () => SosCallSource;
}

/** The device events that raise and clear alarms (docs/device-protocol.md). */
const ALARM_EVENTS = new Set(['alarm_on', 'alarm_off', 'tamper']);

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));
/** A device's words, trimmed to what the columns hold; null when it said nothing usable. */
const word = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : null);

const statusOf = (r: Pick<AlarmRow, 'processed_at' | 'is_active'>): AlarmStatus =>
  r.processed_at !== null ? 'processed' : r.is_active ? 'active' : 'cleared';

/**
 * Device alarms (spec comms §2–§7 "Device alarms"): devices raise them (alarm_on, tamper) and
 * clear them (alarm_off) through their events; a person processes one with a comment, then may
 * delete it. Users who may view an alarm's device and its alarms hear of each step. Also the SOS
 * call history, read from telephony.
 */
export class AlarmsService {
  constructor(
    private readonly db: Db,
    private readonly repo: AlarmsRepository,
    private readonly opts: AlarmsOptions = {},
  ) {}

  // --- reading ------------------------------------------------------------------------------------

  private assertView(actor: Actor) {
    if (!actor.permissions.has('can_view_device_alarms')) throw prohibited([{ permission: 'can_view_device_alarms' }]);
  }

  private toAlarm(actor: Actor, r: AlarmRow): DeviceAlarm {
    const processed = r.processed_at !== null;
    return {
      id: Number(r.id),
      kind: r.kind,
      zone: r.zone || null,
      status: statusOf(r),
      is_active: r.is_active,
      device_id: Number(r.device_id),
      device_name: r.device_name,
      domain_id: r.domain_id === null ? null : Number(r.domain_id),
      domain_name: r.domain_name,
      raised_at: iso(r.raised_at),
      cleared_at: isoOrNull(r.cleared_at),
      processed_at: isoOrNull(r.processed_at),
      processed_by: processed ? { id: r.processed_by === null ? null : Number(r.processed_by), name: r.processed_by_name ?? '' } : null,
      comment: r.comment,
      created_at: iso(r.created_at),
      updated_at: iso(r.updated_at),
      can_process: !processed && actor.permissions.has('can_process_device_alarms'),
      can_delete: processed && actor.permissions.has('can_delete_device_alarms'),
    };
  }

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: DeviceAlarm[]; meta: ListMeta }> {
    this.assertView(actor);
    const { rows, total, estimated } = await this.repo.list(actor, q);
    return {
      data: rows.map((r) => this.toAlarm(actor, r)),
      meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated: true } : {}) },
    };
  }

  /** An alarm the actor may see (404 otherwise, as if it did not exist), after the permission `also`. */
  private async visible(actor: Actor, id: number, also?: string): Promise<AlarmRow> {
    this.assertView(actor);
    const r = await this.repo.byId(actor, id);
    if (!r?.visible) throw notFound();
    if (also && !actor.permissions.has(also)) throw prohibited([{ permission: also }]);
    return r;
  }

  async get(actor: Actor, id: number): Promise<DeviceAlarm> {
    return this.toAlarm(actor, await this.visible(actor, id));
  }

  async logs(actor: Actor, id: number): Promise<DeviceAlarmLog[]> {
    await this.visible(actor, id);
    return (await this.repo.logs(id)).map(toLog);
  }

  /** SOS calls of the numbers within the actor's device scope (and their own). */
  async sosCalls(actor: Actor, q: ListQuery): Promise<{ data: CallHistoryItem[]; meta: ListMeta }> {
    this.assertView(actor);
    const source = this.opts.sosCalls?.();
    if (!source) return { data: [], meta: { total: 0, page: q.page, size: q.size } };
    return source.sosHistory(actor, q, (number) => numberReach(actor, number));
  }

  // --- processing and deleting ----------------------------------------------------------------------

  async process(ctx: RequestContext, id: number, body: ProcessAlarmBody): Promise<DeviceAlarm> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'can_process_device_alarms');
    if (before.processed_at !== null) throw new AppError('alarm_already_processed');
    const name = await this.repo.userName(actor.userId);
    await this.db.transaction(async (tx) => {
      // Two people processing at once: the second one is told it is done already.
      if (!(await this.repo.process(tx, id, { userId: actor.userId, name, comment: body.comment })))
        throw new AppError('alarm_already_processed');
      await recordAudit(tx, ctx, { entity: 'device_alarm', entityId: id, action: 'process', after: body });
    });
    const [device] = await this.repo.devices([Number(before.device_id)]);
    if (device) {
      await this.announce(device, { id, device_id: device.id, status: 'processed' });
      await this.notifyAll(device, actor.userId, {
        type: 'device_alarm_processed',
        data: { ...this.words(device, before), user: name, comment: body.comment },
      });
    }
    return this.get(actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id, 'can_delete_device_alarms');
    // Only a processed alarm may go (spec comms §4): an alarm nobody looked at stays.
    if (before.processed_at === null) throw new AppError('alarm_not_processed');
    await this.db.transaction(async (tx) => {
      if (!(await this.repo.deleteProcessed(tx, id))) throw notFound();
      await recordAudit(tx, ctx, { entity: 'device_alarm', entityId: id, action: 'delete', before: this.toAlarm(ctx.actor, before) });
    });
    const [device] = await this.repo.devices([Number(before.device_id)]);
    if (device) await this.announce(device, { id, device_id: device.id, status: null });
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  // --- from the devices -----------------------------------------------------------------------------

  /**
   * Stored device events (DevicesService.onEvents), in the order they arrived: alarm_on and tamper
   * raise an alarm, alarm_off clears one; each step is logged, announced and notified.
   */
  /** Whether a batch of stored events of these types holds any alarm (devices.onEvents). */
  wantsDeviceEvents(types: readonly string[]): boolean {
    return types.some((t) => ALARM_EVENTS.has(t));
  }

  async onDeviceEvents(events: readonly NewEvent[]): Promise<void> {
    const mine = events.filter((e) => ALARM_EVENTS.has(e.type));
    if (!mine.length) return;
    const devices = new Map((await this.repo.devices([...new Set(mine.map((e) => e.deviceId))])).map((d) => [Number(d.id), d]));
    for (const e of mine) {
      const device = devices.get(e.deviceId);
      if (!device) continue;
      const info = e.data;
      if (e.type === 'alarm_off') {
        const cleared = await this.db.transaction((tx) =>
          this.repo.clear(tx, {
            deviceId: e.deviceId,
            kind: word(e.data.kind, 32),
            zone: word(e.data.zone, 64),
            at: e.occurredAt,
            info,
          }),
        );
        for (const c of cleared) {
          await this.announce(device, { id: c.id, device_id: device.id, status: c.processed ? 'processed' : 'cleared' });
          await this.notifyAll(device, null, { type: 'device_alarm_disabled', data: this.words(device, c) });
        }
        continue;
      }
      const kind = e.type === 'tamper' ? 'tamper' : (word(e.data.kind, 32) ?? 'device');
      const zone = (e.type === 'tamper' ? word(e.data.part, 64) : word(e.data.zone, 64)) ?? '';
      const raised = await this.db.transaction((tx) =>
        this.repo.raise(tx, { projectId: e.projectId, deviceId: e.deviceId, kind, zone, at: e.occurredAt, info }),
      );
      await this.announce(device, { id: raised.id, device_id: device.id, status: 'active' });
      // A device repeating an alarm still open adds to its log, without a new notification.
      if (raised.event === 'enabled') {
        await this.notifyAll(device, null, {
          type: 'device_alarm_enabled',
          significance: 'important',
          data: this.words(device, { id: raised.id, kind, zone }),
        });
      }
    }
  }

  /** What a notification says of an alarm (the console's texts use device, group and sensors). */
  private words(device: AlarmDevice, a: { id: number; kind: string; zone: string }) {
    return {
      alarm_id: Number(a.id),
      device: device.name,
      device_id: Number(device.id),
      group: device.group_name ?? '',
      kind: a.kind,
      zone: a.zone || null,
      sensors: a.zone ? `${a.kind}: ${a.zone}` : a.kind,
    };
  }

  private async notifyAll(device: AlarmDevice, except: number | null, n: Omit<NewNotification, 'popupAction'>): Promise<void> {
    if (!this.opts.notify) return;
    const alarmId = Number((n.data as { alarm_id: number }).alarm_id);
    for (const userId of await this.repo.notifyTargets(Number(device.id))) {
      if (userId === except) continue;
      await this.opts
        .notify(Number(device.project_id), userId, {
          ...n,
          popupAction: { code: 'goto:page', params: { page: `/devices/alarms/${alarmId}/edit` } },
        })
        .catch(() => undefined);
    }
  }

  private async announce(device: AlarmDevice, change: DeviceAlarmChanged): Promise<void> {
    // Consoles are told on a best-effort basis: the database already holds the truth.
    await this.opts
      .publish?.(Number(device.project_id), ALARM_REALTIME.topic, ALARM_REALTIME.events.changed, change, {
        resource: 'devices',
        action: 'view',
        groupId: device.group_id === null ? null : Number(device.group_id),
        groupPath: (device.group_path ?? []).map(Number),
        createdBy: device.created_by === null ? null : Number(device.created_by),
        permission: 'can_view_device_alarms',
      })
      .catch(() => undefined);
  }
}

function toLog(r: LogRow): DeviceAlarmLog {
  return {
    id: Number(r.id),
    alarm_id: Number(r.alarm_id),
    event: r.event as DeviceAlarmLog['event'],
    user:
      r.user_name !== null || r.user_id !== null ? { id: r.user_id === null ? null : Number(r.user_id), name: r.user_name ?? '' } : null,
    comment: r.comment,
    info: r.info ?? {},
    created_at: iso(r.created_at),
  };
}
