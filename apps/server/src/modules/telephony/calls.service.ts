import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type CallHistoryItem,
  type CallRecord,
  type ConciergeDevice,
  type DialerCredentials,
  type Interception,
  type InterceptionBody,
  type ListMeta,
  type ListQuery,
  VALIDATION_MESSAGES as M,
  type NotificationType,
  type SipStatus,
  TELEPHONY_DEFAULTS,
} from '@atrium/contract';
import { type SQL, sql } from 'drizzle-orm';
import { aclPredicate, intArray } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { type Db, queryRows } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { filtersSql, type ListSpec, sortSql } from '../../core/list-query.js';
import type { DevicesService } from '../devices/devices.service.js';
import type { SipLicense } from './sip-license.js';
import type { SipNumbersService } from './sip-numbers.service.js';

/** What the SIP server offers the API (wired in main.ts; absent, the service answers "not running"). */
export interface SipControl {
  status(): SipStatus;
  reinit(): Promise<void>;
  restartInstance(type: string, ipAddress: string): Promise<void>;
  /** Ends a call in progress (BYE or CANCEL to every leg). False when the call is not known to the proxy. */
  stopCall(callId: string): Promise<boolean>;
  /** The SIP domain and secure WebSocket URL browsers register with. */
  endpoint?(): { domain: string; wsUrl: string };
  /** What the edge refused since start: malformed messages, sends to unusable addresses, and SIP worker crashes. */
  edge?(): SipEdgeCounters;
}

export interface SipEdgeCounters {
  malformed: number;
  send_failures: number;
  worker_crashes: number;
}

export interface CallRow {
  id: string;
  project_id: number;
  sip_call_id: string;
  status: CallRecord['status'];
  type: CallRecord['type'];
  caller: string;
  callee: string;
  answered_by: string | null;
  sos: boolean;
  info: CallRecord['info'];
  numbers: string[];
  created_at: Date | string;
  answered_at: Date | string | null;
}

export const toCallRecord = (r: CallRow): CallRecord => ({
  id: r.id,
  status: r.status,
  type: r.type,
  caller: r.caller,
  callee: r.callee,
  answered_by: r.answered_by,
  sos: r.sos,
  created_at: Math.floor(new Date(r.created_at).getTime() / 1000),
  answered_at: r.answered_at === null ? null : Math.floor(new Date(r.answered_at).getTime() / 1000),
  info: r.info,
});

const HISTORY_LIST: ListSpec = {
  fields: {
    id: { expr: sql`h.id`, type: 'number' },
    created_at: { expr: sql`h.created_at`, type: 'date' },
    from_number: { expr: sql`h.from_number`, type: 'text' },
    to_number: { expr: sql`h.to_number`, type: 'text' },
    status: { expr: sql`h.status`, type: 'text' },
    type: { expr: sql`h.type`, type: 'text' },
    sos: { expr: sql`h.sos`, type: 'boolean' },
    duration: { expr: sql`h.duration`, type: 'number' },
  },
  defaultSort: '-created_at',
  tiebreak: sql`h.id DESC`,
};

interface HistoryRow {
  id: number;
  call_id: string;
  created_at: Date | string;
  status: CallHistoryItem['status'];
  duration: number;
  from_number: string;
  from_user_id: number | null;
  from_name: string | null;
  to_number: string;
  to_user_id: number | null;
  to_name: string | null;
  type: CallHistoryItem['type'];
  sos: boolean;
  answered_by: string | null;
  /** The viewer's side in the general lists (see toHistory); null where the perspective is a number of the request. */
  mine: 'outgoing' | 'incoming' | null;
}
const toHistory = (r: HistoryRow, perspective: string | null): CallHistoryItem => ({
  id: Number(r.id),
  call_id: r.call_id,
  created_at: new Date(r.created_at).toISOString(),
  status: r.status,
  duration: Number(r.duration),
  from: {
    number: r.from_number,
    user: r.from_name !== null ? { id: r.from_user_id === null ? null : Number(r.from_user_id), name: r.from_name } : null,
  },
  to: {
    number: r.to_number,
    user: r.to_name !== null ? { id: r.to_user_id === null ? null : Number(r.to_user_id), name: r.to_name } : null,
  },
  // From the number the history is asked for. In the general lists from the viewer's side: their own
  // number called (outgoing) or was called (incoming); else the numbers they look after: the caller is
  // one of them (outgoing, also when both are), or only the callee is (incoming, as a call from outside is).
  direction: perspective !== null ? (r.from_number === perspective ? 'outgoing' : 'incoming') : r.mine,
  type: r.type,
  sos: r.sos,
  answered_by: r.answered_by,
});

const NOT_RUNNING: SipStatus = { is_running: false, started_at: null, instances: [] };

/**
 * Calls in progress, concierge doors, interception, call history and the SIP service
 * (spec comms §3, §4, §7 "Dialer and calls", "SIP service").
 */
export class CallsService {
  private control: SipControl | null = null;

  constructor(
    private readonly db: Db,
    private readonly license: SipLicense,
    private readonly numbers: SipNumbersService,
    private readonly devices: DevicesService,
    private readonly secret: () => Promise<string>,
    private readonly publicUrl: string,
    private readonly notify: (
      projectId: number,
      userId: number,
      n: { type: NotificationType; data: Record<string, unknown> },
    ) => Promise<unknown>,
  ) {}

  /** Kamailio at the edge: ends a call's dialog (both legs get a BYE); false when no Kamailio holds it. */
  private edgeStop: ((callId: string) => Promise<boolean>) | null = null;
  /** At the edge, where the console's dialer registers: Kamailio's WebSocket (SIP_EDGE_WS_URL). */
  private edgeEndpoint: { domain: string; wsUrl: string } | null = null;

  attachEdge(stop: (callId: string) => Promise<boolean>, endpoint?: { domain: string; wsUrl: string }): void {
    this.edgeStop = stop;
    this.edgeEndpoint = endpoint ?? null;
  }

  /** The running SIP server hands itself over here (main.ts). */
  attachSip(control: SipControl | null): void {
    this.control = control;
  }

  /** Numbers of the actor: their own numbers (any purpose). */
  private async myNumbers(actor: Actor): Promise<string[]> {
    const rows = await queryRows<{ number: string }>(
      this.db,
      sql`SELECT number FROM sip_numbers WHERE user_id = ${actor.userId} AND project_id = ${actor.projectId}`,
    );
    return rows.map((r) => r.number);
  }

  /** The actor's active interception groups and below, as a predicate on a number row `n` (the callee). */
  private async interceptedGroups(actor: Actor): Promise<number[]> {
    if (!actor.permissions.has('can_intercept_calls')) return [];
    const [r] = await queryRows<{ group_ids: number[] }>(
      this.db,
      sql`SELECT group_ids FROM call_interceptions WHERE user_id = ${actor.userId} AND is_active`,
    );
    return (r?.group_ids ?? []).map(Number);
  }

  // --- calls in progress ----------------------------------------------------------------------

  /** Active and waiting calls of the actor's numbers, and of the groups they intercept. */
  async activeCalls(actor: Actor): Promise<CallRecord[]> {
    await this.license.require(this.db, actor);
    const mine = await this.myNumbers(actor);
    const intercepted = await this.interceptedGroups(actor);
    const rows = await queryRows<CallRow>(
      this.db,
      sql`SELECT c.* FROM call_records c WHERE c.project_id = ${actor.projectId} AND c.status <> 'destroyed'
        AND (c.numbers && ${`{${mine.join(',')}}`}::text[] OR c.caller = ANY(${`{${mine.join(',')}}`}::text[])
          OR EXISTS (SELECT 1 FROM sip_numbers n JOIN groups g ON g.id = n.group_id
            WHERE n.number = c.callee AND g.path && ${intArray(intercepted)}))
        ORDER BY c.created_at DESC LIMIT 200`,
    );
    return rows.map(toCallRecord);
  }

  /** Ends a call: through the SIP server when it runs (its 'ended' event records it), else in the record. */
  async stopCall(ctx: RequestContext, id: string): Promise<void> {
    const { actor } = ctx;
    const call = (await this.activeCalls(actor)).find((c) => c.id === id);
    if (!call) throw notFound();
    const [row] = await queryRows<{ sip_call_id: string }>(this.db, sql`SELECT sip_call_id FROM call_records WHERE id = ${id}`);
    const control = this.control;
    const stop = control ? (callId: string) => control.stopCall(callId) : this.edgeStop;
    const stopped = row && stop ? await stop(row.sip_call_id) : false;
    if (!stopped) {
      await this.db.execute(sql`UPDATE call_records SET status = 'destroyed', ended_at = now() WHERE id = ${id} AND status <> 'destroyed'`);
    }
    await recordAudit(this.db, ctx, { entity: 'call', entityId: id, action: 'stop' });
  }

  // --- concierge devices ----------------------------------------------------------------------

  private async token(projectId: number, deviceId: number): Promise<string> {
    const mac = createHmac('sha256', await this.secret())
      .update(`concierge-door:${projectId}:${deviceId}`)
      .digest('base64url')
      .slice(0, 24);
    return `${deviceId}.${mac}`;
  }

  private assertConcierge(actor: Actor) {
    const codes = ['can_receive_calls_as_concierge', 'can_call_panel'];
    if (!codes.some((c) => actor.permissions.has(c))) throw prohibited([{ permission: codes[0] }]);
  }

  /** Panels whose doors the actor may open: panels of their groups and below (every panel with call all). */
  private async doorRows(actor: Actor, deviceId?: number) {
    const reach: SQL = actor.permissions.has('can_call_all')
      ? sql`TRUE`
      : sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = d.group_id AND g.path && ${intArray(actor.groupIds)})`;
    return queryRows<{ id: number; name: string; number: string | null; online: boolean | null; protocol: string }>(
      this.db,
      sql`SELECT d.id, d.name, n.number, s.online, d.protocol FROM devices d
        LEFT JOIN sip_numbers n ON n.device_id = d.id LEFT JOIN device_status s ON s.device_id = d.id
        WHERE d.project_id = ${actor.projectId} AND d.type = 'panel' AND ${reach}
          ${deviceId === undefined ? sql`` : sql`AND d.id = ${deviceId}`}
        ORDER BY d.name, d.id LIMIT 1000`,
    );
  }

  async conciergeDevices(actor: Actor): Promise<ConciergeDevice[]> {
    this.assertConcierge(actor);
    await this.license.require(this.db, actor);
    const rows = await this.doorRows(actor);
    return Promise.all(
      rows.map(async (r) => ({
        token: await this.token(actor.projectId, Number(r.id)),
        name: r.name,
        sip_number: r.number ? { number: r.number } : null,
      })),
    );
  }

  /** Opens a concierge device's door: an open_lock task to the panel. */
  async openDoor(ctx: RequestContext, token: string): Promise<{ queued: number }> {
    const { actor } = ctx;
    this.assertConcierge(actor);
    await this.license.require(this.db, actor);
    const deviceId = Number(token.split('.')[0]);
    const expected = Number.isSafeInteger(deviceId) && deviceId > 0 ? await this.token(actor.projectId, deviceId) : '';
    const a = Buffer.from(expected);
    const b = Buffer.from(token);
    if (!expected || a.length !== b.length || !timingSafeEqual(a, b)) throw notFound();
    const [door] = await this.doorRows(actor, deviceId);
    if (!door) throw notFound();
    if (door.protocol !== 'mqtt') throw new AppError('device_not_mqtt');
    if (!door.online) throw new AppError('device_offline');
    const queued = await this.openLock(ctx, deviceId);
    return { queued };
  }

  /** Queues an open_lock task to a panel (a concierge's button, or DTMF '#' during a call). */
  async openLock(ctx: Pick<RequestContext, 'ip' | 'requestId'> & { actor: Actor | null }, deviceId: number): Promise<number> {
    const n = await this.db.transaction(async (tx) => {
      const queued = await this.devices.queueInTx(tx, [{ deviceId, type: 'open_lock', payload: { lock: 1 } }], ctx.actor?.userId ?? null);
      await recordAudit(tx, ctx, { entity: 'device', entityId: deviceId, action: 'open_door' });
      return queued;
    });
    await this.devices.dispatch();
    return n;
  }

  // --- interception ---------------------------------------------------------------------------

  private assertIntercept(actor: Actor) {
    if (!actor.permissions.has('can_intercept_calls')) throw prohibited([{ permission: 'can_intercept_calls' }]);
  }

  /** Groups the actor may intercept: their groups and below, each with its full name. */
  private async userGroups(actor: Actor): Promise<{ id: number; name: string }[]> {
    const rows = await queryRows<{ id: number; name: string }>(
      this.db,
      sql`SELECT g.id, (SELECT string_agg(pg.name, ' / ' ORDER BY array_position(g.path, pg.id)) FROM groups pg WHERE pg.id = ANY(g.path)) AS name
        FROM groups g WHERE g.project_id = ${actor.projectId} AND g.path && ${intArray(actor.groupIds)} ORDER BY 2, 1 LIMIT 5000`,
    );
    return rows.map((r) => ({ id: Number(r.id), name: r.name }));
  }

  async interception(actor: Actor): Promise<Interception> {
    this.assertIntercept(actor);
    await this.license.require(this.db, actor);
    const [r] = await queryRows<{ is_active: boolean; group_ids: number[] }>(
      this.db,
      sql`SELECT is_active, group_ids FROM call_interceptions WHERE user_id = ${actor.userId}`,
    );
    return { isActive: r?.is_active ?? false, groups: (r?.group_ids ?? []).map(Number), userGroups: await this.userGroups(actor) };
  }

  async setInterception(ctx: RequestContext, body: InterceptionBody): Promise<Interception> {
    const { actor } = ctx;
    const now = await this.interception(actor);
    const allowed = new Set(now.userGroups.map((g) => g.id));
    const bad = body.domains.filter((d) => !allowed.has(d));
    if (bad.length) throw new AppError('invalid_related_entity', [{ field: 'domains', entity: 'domains', ids: bad }]);
    const same = (a: number[], b: number[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
    // The selection is fixed while interception is on (spec comms §5): stop it first.
    if (now.isActive && body.is_active && !same(now.groups, body.domains)) throw invalidField('domains', M.invalid_value);
    const groups = body.domains.length || body.is_active ? [...new Set(body.domains)] : now.groups;
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO call_interceptions (user_id, project_id, is_active, group_ids, updated_at)
        VALUES (${actor.userId}, ${actor.projectId}, ${body.is_active}, ${intArray(groups)}, now())
        ON CONFLICT (user_id) DO UPDATE SET is_active = EXCLUDED.is_active, group_ids = EXCLUDED.group_ids, updated_at = now()`);
      await recordAudit(tx, ctx, { entity: 'call_interception', entityId: actor.userId, action: 'update', before: now, after: body });
    });
    return this.interception(actor);
  }

  // --- call history ---------------------------------------------------------------------------

  /** The dialer's recents: calls from or to one of the actor's own numbers, 50 a page, newest first. */
  async dialerHistory(
    actor: Actor,
    number: string,
    q: { page: number; size: number },
  ): Promise<{ data: CallHistoryItem[]; meta: ListMeta }> {
    await this.license.require(this.db, actor);
    if (!(await this.myNumbers(actor)).includes(number)) throw prohibited();
    const where = sql`h.project_id = ${actor.projectId} AND (h.from_number = ${number} OR h.to_number = ${number})`;
    const [rows, count] = await Promise.all([
      queryRows<HistoryRow>(
        this.db,
        sql`SELECT h.*, NULL AS mine FROM call_history h WHERE ${where}
          ORDER BY h.created_at DESC, h.id DESC LIMIT ${q.size} OFFSET ${(q.page - 1) * q.size}`,
      ),
      queryRows<{ n: number }>(this.db, sql`SELECT count(*)::int AS n FROM call_history h WHERE ${where}`),
    ]);
    return { data: rows.map((r) => toHistory(r, number)), meta: { total: Number(count[0]?.n ?? 0), page: q.page, size: q.size } };
  }

  /**
   * The call history list (can_view_call_history): calls of the numbers the actor may view, and of
   * their own numbers.
   */
  async history(actor: Actor, q: ListQuery): Promise<{ data: CallHistoryItem[]; meta: ListMeta }> {
    if (!actor.permissions.has('can_view_call_history')) throw prohibited([{ permission: 'can_view_call_history' }]);
    await this.license.require(this.db, actor);
    const visible = (col: SQL) =>
      sql`EXISTS (SELECT 1 FROM sip_numbers WHERE sip_numbers.number = ${col} AND sip_numbers.project_id = ${actor.projectId}
        AND (sip_numbers.user_id = ${actor.userId} OR ${aclPredicate(actor, 'virtual_numbers', 'view', {
          inGroups: (cond) => sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = sip_numbers.group_id AND ${cond})`,
          createdBy: sql`sip_numbers.created_by`,
        })}))`;
    const where = sql`h.project_id = ${actor.projectId} AND (${visible(sql`h.from_number`)} OR ${visible(sql`h.to_number`)})
      ${filtersSql(HISTORY_LIST, q) ? sql`AND ${filtersSql(HISTORY_LIST, q)}` : sql``}`;
    const mine = await this.myNumbers(actor);
    const [rows, count] = await Promise.all([
      queryRows<HistoryRow>(
        this.db,
        sql`SELECT h.*, CASE WHEN h.from_number = ANY(${`{${mine.join(',')}}`}::text[]) THEN 'outgoing'
            WHEN h.to_number = ANY(${`{${mine.join(',')}}`}::text[]) THEN 'incoming'
            WHEN ${visible(sql`h.from_number`)} THEN 'outgoing' ELSE 'incoming' END AS mine
          FROM call_history h WHERE ${where}
          ORDER BY ${sql.join(sortSql(HISTORY_LIST, q), sql`, `)} LIMIT ${q.size} OFFSET ${(q.page - 1) * q.size}`,
      ),
      queryRows<{ n: number }>(this.db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM call_history h WHERE ${where} LIMIT 100001) c`),
    ]);
    return { data: rows.map((r) => toHistory(r, null)), meta: { total: Number(count[0]?.n ?? 0), page: q.page, size: q.size } };
  }

  /**
   * SOS calls (the device alarms area's SOS call history): calls with the SOS flag whose caller or
   * callee number `reach` accepts. The caller has checked its own permission; no SIP licence is asked,
   * as the history of calls already made stays readable.
   */
  async sosHistory(actor: Actor, q: ListQuery, reach: (number: SQL) => SQL): Promise<{ data: CallHistoryItem[]; meta: ListMeta }> {
    const filters = filtersSql(HISTORY_LIST, q);
    const where = sql`h.project_id = ${actor.projectId} AND h.sos AND (${reach(sql`h.from_number`)} OR ${reach(sql`h.to_number`)})
      ${filters ? sql`AND ${filters}` : sql``}`;
    const [rows, count] = await Promise.all([
      queryRows<HistoryRow>(
        this.db,
        sql`SELECT h.*, CASE WHEN ${reach(sql`h.from_number`)} THEN 'outgoing' ELSE 'incoming' END AS mine FROM call_history h WHERE ${where}
          ORDER BY ${sql.join(sortSql(HISTORY_LIST, q), sql`, `)} LIMIT ${q.size} OFFSET ${(q.page - 1) * q.size}`,
      ),
      queryRows<{ n: number }>(this.db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM call_history h WHERE ${where} LIMIT 100001) c`),
    ]);
    return { data: rows.map((r) => toHistory(r, null)), meta: { total: Number(count[0]?.n ?? 0), page: q.page, size: q.size } };
  }

  // --- dialer and SIP service -----------------------------------------------------------------

  /** What the web dialer registers with: SIP and the web dialer licensed, and a master number (spec comms §6). */
  async dialerCredentials(actor: Actor): Promise<DialerCredentials> {
    await this.license.require(this.db, actor, 'web_dialer');
    const mine = await this.numbers.masterNumber(this.db, actor.userId);
    if (!mine?.isActive) throw notFound();
    const [u] = await queryRows<{ name: string }>(this.db, sql`SELECT name FROM users WHERE id = ${actor.userId}`);
    const host = new URL(this.publicUrl).hostname;
    const endpoint = this.control?.endpoint?.() ??
      this.edgeEndpoint ?? { domain: host, wsUrl: `wss://${host}:${TELEPHONY_DEFAULTS.sip_wss_port}` };
    return { number: mine.number, name: u?.name ?? '', password: mine.password, domain: endpoint.domain, ws_url: endpoint.wsUrl };
  }

  private assertSettings(actor: Actor, change: boolean) {
    const code = change ? 'can_change_project_settings' : 'can_view_project_settings';
    if (!actor.permissions.has(code)) throw prohibited([{ permission: code }]);
  }

  sipStatus(actor: Actor): SipStatus {
    this.assertSettings(actor, false);
    return this.runtimeStatus();
  }

  /** The SIP server's state without a permission check (System info checks its own). */
  runtimeStatus(): SipStatus {
    return this.control?.status() ?? NOT_RUNNING;
  }

  /** The SIP edge's counters, or null while no SIP server runs here. */
  edgeCounters(): SipEdgeCounters | null {
    return this.control?.edge?.() ?? null;
  }

  async sipReinit(ctx: RequestContext): Promise<SipStatus> {
    this.assertSettings(ctx.actor, true);
    const control = this.control;
    await this.reboot(ctx, { action: 'reinit' }, () => control?.reinit());
    return (control as SipControl).status();
  }

  async sipRestartInstance(ctx: RequestContext, body: { type: string; ip_address: string }): Promise<SipStatus> {
    this.assertSettings(ctx.actor, true);
    const control = this.control;
    if (control && !control.status().instances.some((i) => i.type === body.type && i.ip_address === body.ip_address)) throw notFound();
    await this.reboot(ctx, { action: 'restart_instance', ...body }, () => control?.restartInstance(body.type, body.ip_address));
    return (control as SipControl).status();
  }

  /** A SIP reboot with its notifications to the caller (started, then completed with or without error) and its audit row. */
  private async reboot(ctx: RequestContext, what: Record<string, unknown>, run: () => Promise<void> | undefined): Promise<void> {
    const { actor } = ctx;
    if (!this.control) throw new AppError('sip_service_start_failed');
    await this.notify(actor.projectId, actor.userId, { type: 'sip_reboot_started', data: what });
    let failed = false;
    try {
      await run();
    } catch {
      failed = true;
    }
    await this.notify(actor.projectId, actor.userId, { type: 'sip_reboot_completed', data: { ...what, error: failed } });
    if (failed) throw new AppError('sip_service_start_failed');
    await recordAudit(this.db, ctx, { entity: 'sip', entityId: null, action: String(what.action), after: what });
  }
}
