import { createHash, randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import {
  BROKER_SEND_NOTICE_MAX_DEVICES,
  type BrokerSettingsSentData,
  type BulkDeleteResult,
  type CreateDeviceBody,
  DEFAULT_DEVICE_TYPE,
  DEVICE_DEFAULTS,
  DEVICE_DISCOVERY_PATH,
  DEVICE_REALTIME,
  DEVICE_SEARCH_MAX_ADDRESSES,
  type Device,
  DeviceBackupImageSchema,
  type DeviceEvent,
  type DeviceEventsInfo,
  type DeviceProtocol,
  type DeviceSettings,
  DeviceSettingsSchema,
  type DeviceTask,
  type DeviceTaskType,
  DiscoveryAnswerSchema,
  deviceModel,
  FINAL_TASK_STATES,
  ipv4ToNumber,
  type ListMeta,
  type ListQuery,
  VALIDATION_MESSAGES as M,
  numberToIpv4,
  REMOTE_CONTROL_SESSION_SECONDS,
  type RemoteInputBody,
  type ScreenFrameMessage,
  scopeCodes,
  type UpdateDeviceBody,
} from '@atrium/contract';
import { type Audience, scopeOf } from '../../core/acl.js';
import { recordAudit } from '../../core/audit.js';
import { hashPassword, randomPassword, verifyPassword } from '../../core/auth/password.js';
import { bulkDelete } from '../../core/bulk.js';
import type { Actor, RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { integrationAvailableTo } from '../integrations/integrations.repository.js';
import { Batches } from './batches.js';
import {
  type DeviceAccounts,
  type DeviceCredentials,
  type DeviceGateway,
  type DeviceInputMessage,
  type DeviceMessageHandlers,
  type EventReport,
  type EventStored,
  InvalidTaskError,
  type PlaneHealth,
  type PresenceReport,
  type SyncAckReport,
  type SyncRequestReport,
  type TaskUpdateReport,
} from './devices.gateway.js';
import type {
  ClaimedTask,
  DeviceOfSerial,
  DeviceRow,
  DevicesRepository,
  EventRow,
  ListedDevice,
  NewEvent,
  TaskRow,
} from './devices.repository.js';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Whether a listener of stored events wants a batch holding these event types (devices.onEvents). */
export type EventTypesWanted = (types: readonly string[]) => boolean | Promise<boolean>;

/**
 * Queues, in the caller's transaction, a full sync of each of these devices: everything it must hold
 * (identifiers, rules, schedules), replacing whatever it holds. The access area builds it.
 */
export type FullSyncQueue = (tx: Tx, deviceIds: number[], actor: Actor | null) => Promise<number>;

/** Device messages refused for not following their device, counted per reason (System metrics). */
export interface DeviceRefusals {
  /** An online status naming another type or model than the device's record. */
  status_mismatch: number;
  /** A sync acknowledgement that is not for a sync task of that device waiting for its result. */
  sync_ack_foreign: number;
}

/** Where the devices area speaks to consoles: the realtime hub and users' notifications. */
export interface DeviceAnnouncer {
  publish(projectId: number, topic: string, event: string, data: unknown, audience?: Audience): Promise<void>;
  /** Several events of a project in one go (one round trip); `publish` of each when absent. */
  publishMany?(projectId: number, events: readonly { topic: string; event: string; data: unknown; audience?: Audience }[]): Promise<void>;
  notify(
    projectId: number,
    userId: number,
    n: {
      type: 'device_offline' | 'device_task_failed' | 'device_broker_settings_sent';
      data: Record<string, unknown>;
      significance: 'important' | 'other';
    },
  ): Promise<unknown>;
  /**
   * Mails the project's administrator e-mail when the general settings ask for it (issue 14). Called
   * once per real change, by the one instance that made it.
   */
  mailAdmin?(projectId: number, notice: DeviceNotice): Promise<unknown>;
}

/** A device notice for the administrator e-mail: a device went offline, or one of its tasks failed. */
export type DeviceNotice =
  | { kind: 'device_offline'; deviceId: number; at: Date }
  | { kind: 'device_task_failed'; deviceId: number; taskType: string; error: string; at: Date };

/** Who may hear of a device's status and tasks: whoever may view the device (and, for tasks, its tasks). */
const deviceAudience = (
  d: { groupId: number | null; groupPath: readonly number[]; createdBy: number | null },
  permission?: string,
): Audience => ({
  resource: 'devices',
  action: 'view',
  groupId: d.groupId,
  groupPath: (d.groupPath ?? []).map(Number),
  createdBy: d.createdBy,
  ...(permission ? { permission } : {}),
});

type BrokerSendOutcome = BrokerSettingsSentData['devices'][number]['outcome'];

const iso = (d: Date | string | null) => (d === null ? null : (d instanceof Date ? d : new Date(d)).toISOString());

/** Settings as stored, completed with the defaults of spec entities §3 for what was never set. */
function settingsOf(stored: Record<string, unknown>): DeviceSettings {
  const parsed = DeviceSettingsSchema.safeParse(stored);
  return parsed.success ? parsed.data : DeviceSettingsSchema.parse({});
}

/**
 * A listed device's settings, read from their stored JSON text, remembered by that text: parsing
 * and completing them with their defaults (zod) was some 20 µs a device, a quarter of a devices
 * page's own CPU, while the same texts come back page after page. The value is shared by every row
 * and answer with that text, so it is frozen; the cache is bounded and starts over when full.
 */
function listedSettings(text: string): DeviceSettings {
  let settings = SETTINGS_BY_TEXT.get(text);
  if (!settings) {
    if (SETTINGS_BY_TEXT.size >= SETTINGS_REMEMBERED) SETTINGS_BY_TEXT.clear();
    // A copy frozen, never the schema's own defaults: nothing else may end up frozen with it.
    settings = deepFreeze(structuredClone(settingsOf(JSON.parse(text) as Record<string, unknown>)));
    SETTINGS_BY_TEXT.set(text, settings);
  }
  return settings;
}
const SETTINGS_REMEMBERED = 2000;
const SETTINGS_BY_TEXT = new Map<string, DeviceSettings>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Merges a settings body into stored settings, block by block. */
function mergeSettings(stored: Record<string, unknown>, body: Record<string, unknown> | undefined): DeviceSettings {
  const current = settingsOf(stored) as Record<string, Record<string, unknown>>;
  if (!body) return current as DeviceSettings;
  const merged: Record<string, unknown> = { ...current };
  for (const [block, value] of Object.entries(body)) {
    if (value === undefined) continue;
    merged[block] = { ...(current[block] ?? {}), ...(value as Record<string, unknown>) };
  }
  return DeviceSettingsSchema.parse(merged);
}

const NO_CAPABILITIES = { locks: 0, face_recognition: false, lift_relays: 0, sip: false, display: false };

export function toDevice(d: DeviceRow | ListedDevice): Device {
  const management = d.management as { heartbeat?: number; realtime_logging?: boolean };
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    type: d.type as Device['type'],
    model: d.model,
    ip_address: d.ipAddress,
    port: d.port,
    serial_number: d.serialNumber,
    login: d.serialNumber,
    password_set: 'passwordSet' in d ? d.passwordSet : d.passwordHash !== null,
    device_login: d.deviceLogin,
    device_password_set: 'devicePasswordSet' in d ? d.devicePasswordSet : d.devicePassword !== null,
    domain_id: d.groupId,
    protocol: d.protocol as DeviceProtocol,
    get_logs: d.getLogs,
    location_latitude: d.latitude,
    location_longitude: d.longitude,
    management: { heartbeat: management.heartbeat ?? 30, realtime_logging: management.realtime_logging ?? false },
    device_settings: typeof d.settings === 'string' ? listedSettings(d.settings) : settingsOf(d.settings),
    capabilities: deviceModel(d.type, d.model)?.capabilities ?? NO_CAPABILITIES,
    online: d.online,
    last_seen_at: iso(d.lastSeenAt),
    firmware: d.firmware,
    initialized_at: iso(d.initializedAt),
    created_by: d.createdBy,
    created_at: iso(d.createdAt) as string,
    updated_at: iso(d.updatedAt) as string,
    can_edit: d.editable,
    can_delete: d.deletable,
  };
}

/**
 * A devices page as JSON text, exactly as `JSON.stringify(page)` writes it. A listed device's settings
 * are a frozen object shared by every device with the same stored text (listedSettings), and encoding
 * them again for each row was the largest part of encoding a page: their text is kept beside them
 * and put in place of a marker. The marker, with its quotes, cannot occur inside a string value
 * (JSON escapes a string's quotes), so its first occurrence is the key's own.
 */
export function devicesPageJson(page: { data: readonly Device[]; meta: ListMeta }): string {
  const rows = page.data.map((d) => {
    const settings = d.device_settings;
    if (!Object.isFrozen(settings)) return JSON.stringify(d);
    const text = JSON.stringify({ ...d, device_settings: 0 });
    const at = text.indexOf(SETTINGS_MARK);
    if (at < 0) return JSON.stringify(d);
    return `${text.slice(0, at)}"device_settings":${sharedJson(settings)},"capabilities":${text.slice(at + SETTINGS_MARK.length)}`;
  });
  return `{"data":[${rows.join(',')}],"meta":${JSON.stringify(page.meta)}}`;
}
const SETTINGS_MARK = '"device_settings":0,"capabilities":';
const SHARED_JSON = new WeakMap<object, string>();

/** The JSON text of a frozen value, encoded once. */
function sharedJson(value: object): string {
  let text = SHARED_JSON.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    SHARED_JSON.set(value, text);
  }
  return text;
}

export function toTask(t: TaskRow): DeviceTask {
  return {
    id: t.id,
    device_id: t.deviceId,
    device_name: t.deviceName,
    serial_number: t.serialNumber,
    type: t.type as DeviceTaskType,
    state: t.state as DeviceTask['state'],
    error: t.error,
    attempts: t.attempts,
    created_by: t.createdBy,
    created_at: iso(t.createdAt) as string,
    updated_at: iso(t.updatedAt) as string,
    started_at: iso(t.startedAt),
    finished_at: iso(t.finishedAt),
  };
}

export function toEvent(e: EventRow): DeviceEvent {
  return {
    id: Number(e.id),
    device_id: e.deviceId,
    device_name: e.deviceName,
    type: e.type,
    identifier: e.identifier,
    data: e.data,
    occurred_at: iso(e.occurredAt) as string,
    received_at: iso(e.receivedAt) as string,
  };
}

/**
 * Events handed to the COPY thread and not known to be stored yet: it writes them in order, at once.
 * Handing over does not wait for the last batch's answer, which under a flood reaches the main
 * thread late (a turn of its loop can last seconds); this bounds what a stalled database may hold.
 */
const EVENT_ROWS_IN_FLIGHT = 50_000;
/**
 * Events held (received, not stored, so not acknowledged) beyond which the intake asks the gateway to
 * stop reading (eventRoom): a database that is slow or away costs bounded memory, never events.
 */
const EVENTS_HELD_MAX = 100_000;
/** Longest wait between two attempts at writing a batch (ms): a batch is tried until it is stored. */
const EVENT_RETRY_MAX_MS = 5000;
/** Passes handing tasks over that one instance runs at once (each a claim and its publishes). */
const PUMP_PASSES = 4;

/** The error of a task whose device is on http, which no endpoint serves yet. */
export const UNSERVED_PROTOCOL_ERROR = 'device protocol http is not supported';

/** Tasks that need the device to speak our protocol: with protocol none they are impossible (spec entities §4). */
const NEEDS_PROTOCOL: ReadonlySet<string> = new Set(['init', 'restart', 'sync', 'apply_settings', 'broker_settings']);

export interface DevicesServiceOptions {
  /** A queued task not acknowledged within this many seconds is sent again (same id). */
  leaseSeconds?: number;
  /** How often each instance looks for tasks to send and leases that ran out (ms); 0: never on its own. */
  sweepMs?: number;
  /** Events are written at most this many ms after they arrive, in one insert per batch. */
  eventFlushMs?: number;
  eventBatch?: number;
  /** Unstored events beyond which the gateway is asked to stop reading (default EVENTS_HELD_MAX). */
  eventsHeldMax?: number;
  /** How long an IP search waits for one address to answer discovery (ms). */
  probeTimeoutMs?: number;
  /** How long a sending of broker settings waits for its devices' answers before it is concluded (s). */
  brokerSendSeconds?: number;
}

export class DevicesService implements DeviceMessageHandlers, DeviceCredentials {
  private gateway: DeviceGateway | null = null;
  private accounts: DeviceAccounts | null = null;
  /** Broker account changes not yet applied (the broker was away), oldest first. */
  private readonly accountChanges: ((a: DeviceAccounts) => Promise<void>)[] = [];
  private readonly eventListeners: { listener: (events: readonly NewEvent[]) => Promise<void>; wants?: EventTypesWanted }[] = [];
  /** Remote-control sessions frames arrive for, checked against the table at most every few seconds. */
  private readonly sessions = new Map<
    string,
    { serial: string; projectId: number; operator: number | null; expiresAt: number; checkedUntil: number }
  >();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** This instance among the others (InstanceRegistry), once known: devices it hears online are its to judge. */
  private instance: { id: string; sessions: boolean; goneMs: number } | null = null;
  private livenessTimer: NodeJS.Timeout | undefined;
  private livenessRunning: Promise<void> | null = null;
  private pending: NewEvent[] = [];
  /** For each pending event, what acknowledges it to its device once stored (undefined: nothing to). */
  private pendingAcks: (EventStored | undefined)[] = [];
  /** Digests of serial/password pairs that verified recently, with when that ends. */
  private readonly verified = new Map<string, number>();
  /** Hashes being checked right now, by the same digest. */
  private readonly verifying = new Map<string, Promise<boolean>>();
  /** The event intake's counters (/metrics, system information, the benchmark); refused device messages; full syncs devices asked for. */
  readonly stats = {
    /** Events committed (a re-sent one whose event id was stored already counts again: it was answered). */
    storedEvents: 0,
    /** Writes of a batch that failed and are tried again (the events wait, unacknowledged). */
    eventWriteRetries: 0,
    /** Times the intake was full and asked the gateway to stop reading until the database caught up. */
    eventIntakeFull: 0,
    /** Events still unstored (so unacknowledged; their devices send them again) when the service stopped. */
    unstoredAtStop: 0,
    listenerErrors: 0,
    refused: { status_mismatch: 0, sync_ack_foreign: 0 } satisfies DeviceRefusals as DeviceRefusals,
    syncRequests: 0,
  };
  /** Batches being written, oldest first (for the oldest unstored event's age). */
  private readonly writing = new Set<readonly NewEvent[]>();
  /** Callers waiting for the intake to have room again (eventRoom). */
  private roomWaiters: (() => void)[] = [];
  /** Serial numbers whose last online status named another type or model: not online until one matches. */
  private readonly mismatched = new Set<string>();
  private fullSync: FullSyncQueue | null = null;
  /** Devices asking for a full sync in the same turn are looked up and queued together. */
  private readonly syncRequests = new Batches<string>(
    (serial) => serial,
    (serials) => this.applySyncRequests(serials),
  );
  private readonly eventDevices = new Map<string, { device: { id: number; projectId: number } | null; until: number }>();
  /** Serial numbers waiting to be resolved together (one query for all the senders new this turn). */
  private serialLookups: Map<string, ((d: { id: number; projectId: number } | null, err?: unknown) => void)[]> | null = null;
  /** Set by stop(): a failing write is given up at once instead of tried again for minutes. */
  private stopping = false;
  /** The next write of pending events, not started yet: events arriving meanwhile join it. */
  private queuedFlush: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** Events handed over and not stored yet, and the write waiting for some of them to be. */
  private rowsInFlight = 0;
  private readonly slotWaiters: (() => void)[] = [];
  /** The last batch told to the event listeners (they get the batches in order). */
  private told: Promise<void> = Promise.resolve();
  /** When the last events were received (receivedNow). */
  private received: Date | undefined;
  private readonly opts: Required<DevicesServiceOptions>;
  /** The next pass handing tasks over, not started yet: the devices (or all) it is for; callers meanwhile join it. */
  private pumpQueued: { all: boolean; devices: Set<number>; done: Promise<void> } | null = null;
  /** Passes running now (at most PUMP_PASSES), and those waiting for one of them to end. */
  private pumpActive = 0;
  private readonly pumpWaiting: (() => void)[] = [];
  /** Devices' reports handled together: a batch of task results or presence changes costs a few statements. */
  private readonly taskReports = new Batches<{ serial: string; report: TaskUpdateReport }>(
    (r) => r.serial,
    (items) => this.applyTaskReports(items),
  );
  private readonly presenceReports = new Batches<{ serial: string; report: PresenceReport }, boolean>(
    (r) => r.serial,
    (items) => this.applyPresence(items),
  );
  /** Sign-ins of one turn look their devices up in one query. */
  private readonly signIns = new Batches<string, DeviceOfSerial | undefined>(
    (serial) => serial,
    async (serials) => {
      const found = await this.repo.bySerials(serials);
      return serials.map((s) => found.get(s));
    },
  );
  /** Callers awaiting a task's end (awaitTask), woken when this instance hears its result. */
  private readonly taskWaiters = new Map<number, Set<() => void>>();

  constructor(
    private readonly db: Db,
    private readonly repo: DevicesRepository,
    private readonly announcer: DeviceAnnouncer | null = null,
    opts: DevicesServiceOptions = {},
  ) {
    this.opts = {
      leaseSeconds: 60,
      sweepMs: 5000,
      eventFlushMs: 100,
      eventBatch: 1000,
      eventsHeldMax: EVENTS_HELD_MAX,
      probeTimeoutMs: 1500,
      brokerSendSeconds: 300,
      ...opts,
    };
    this.onEvents(
      (events) => this.relayRemoteDoorOpenings(events),
      (types) => types.includes('door_opened'),
    );
  }

  /**
   * A door a remote-control screen opened, as its device reports it (`door_opened` by `remote`), told
   * to the operators watching that device's screen: the button's "opening…" becomes "open" only
   * when the door is. The device does not name the session, so every live session of it hears.
   */
  private async relayRemoteDoorOpenings(events: readonly NewEvent[]): Promise<void> {
    for (const e of events) {
      if (e.type !== 'door_opened' || e.data.by !== 'remote') continue;
      const lock = Number(e.data.lock ?? 1) || 1;
      for (const s of await this.repo.liveRemoteSessions(e.deviceId)) {
        if (s.created_by === null) continue;
        await this.announce(
          e.projectId,
          DEVICE_REALTIME.screenTopic(s.session),
          DEVICE_REALTIME.events.doorOpened,
          { session: s.session, lock, at: e.occurredAt.toISOString() },
          { users: [s.created_by] },
        );
      }
    }
  }

  /** The gateway registers itself once connected to the broker; tasks wait until then. */
  attachGateway(gateway: DeviceGateway | null): void {
    this.gateway = gateway;
    if (gateway) void this.pump(null);
  }

  /** How a full sync is queued (the access area knows what each device must hold). */
  attachFullSync(queue: FullSyncQueue | null): void {
    this.fullSync = queue;
  }

  /** The broker's device accounts (embedded broker or Mosquitto's dynamic security), kept in step with devices. */
  attachAccounts(accounts: DeviceAccounts | null): void {
    this.accounts = accounts;
  }

  /**
   * Tells the broker about a device that changed after the change is stored. The broker may be away
   * for a while: what failed is tried again at each sweep, in order, until it goes through.
   */
  private async account(change: (a: DeviceAccounts) => Promise<void>): Promise<void> {
    this.accountChanges.push(change);
    await this.applyAccountChanges();
  }

  private async applyAccountChanges(): Promise<void> {
    const accounts = this.accounts;
    if (!accounts) return;
    while (this.accountChanges.length) {
      try {
        await this.accountChanges[0]!(accounts);
      } catch {
        return;
      }
      this.accountChanges.shift();
    }
  }

  /** Whether this instance sweeps for device tasks (System info). */
  get running(): boolean {
    return this.sweepTimer !== undefined;
  }

  /** Whether Atrium's client of the broker is connected; null when none is attached (System info). */
  brokerConnected(): boolean | null {
    return this.gateway ? (this.gateway.connected ?? true) : null;
  }

  start(): void {
    this.stopping = false;
    // Devices set to http before it was refused: nothing can ever run their tasks, so those end now.
    void this.failUnservedTasks().catch(() => undefined);
    if (this.opts.sweepMs > 0 && !this.sweepTimer) {
      this.sweepTimer = setInterval(() => void this.sweep(), this.opts.sweepMs);
      this.sweepTimer.unref();
    }
  }

  /**
   * Names this instance (instances.id) and starts looking, every `everyMs`, for online devices whose
   * instance died: those this instance's gateway hears are taken over, the others declared offline
   * (status event, notifications, mail). `sessions`: an instance is alive only while its database
   * session is (PostgreSQL), so a killed one is seen at the next look, not after `goneMs`.
   * See docs/decisions.md, "Device liveness judged by any instance".
   */
  startLiveness(instance: { id: string; sessions: boolean; goneMs: number }, everyMs = 3000, graceMs = 10_000): void {
    this.instance = instance;
    if (this.livenessTimer) return;
    // A fresh instance first lets its broker's devices reconnect, so that it takes them over rather
    // than declaring them offline for a moment.
    const started = Date.now();
    this.livenessTimer = setInterval(() => {
      if (Date.now() - started < graceMs || this.livenessRunning) return;
      this.livenessRunning = this.checkLiveness()
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          this.livenessRunning = null;
        });
    }, everyMs);
    this.livenessTimer.unref();
  }

  /** One look for devices of dead instances (startLiveness); answers how many it declared offline. */
  async checkLiveness(): Promise<number> {
    const me = this.instance;
    if (!me) return 0;
    const { orphans, taken } = await this.repo.livenessLook(me.id, me.sessions, me.goneMs);
    const serials = [...new Set(orphans.map((o) => o.serial))];
    const heard = new Set(this.gateway?.holdsOnline ? await this.gateway.holdsOnline(serials) : []);
    const byOwner = new Map<string | null, { claim: number[]; offline: number[] }>();
    for (const o of orphans) {
      const group = byOwner.get(o.instance_id) ?? { claim: [], offline: [] };
      byOwner.set(o.instance_id, group);
      (heard.has(o.serial) ? group.claim : group.offline).push(Number(o.device_id));
    }
    let declared = 0;
    for (const [owner, { claim, offline }] of byOwner) {
      await this.repo.takeOver(claim, owner, me.id);
      const changed = await this.repo.offlineOrphans(offline, owner);
      if (!changed.size) continue;
      declared += changed.size;
      const found = orphans.filter((o) => changed.has(Number(o.device_id)));
      const devices = await this.repo.bySerials(found.map((o) => o.serial));
      const report: PresenceReport = { online: false, reason: 'instance_gone' };
      await this.presenceChanged(
        [...devices.values()].map((d) => ({ d, report })),
        changed,
      );
    }
    // Devices another instance took from this one while it seemed dead, and that it still hears: back online.
    if (taken.length && this.gateway?.holdsOnline) {
      for (const serial of await this.gateway.holdsOnline(taken.map((t) => t.serial))) void this.onPresence(serial, { online: true });
    }
    return declared;
  }

  /** Stops the looks of startLiveness (the instance closes). */
  async stopLiveness(): Promise<void> {
    if (this.livenessTimer) clearInterval(this.livenessTimer);
    this.livenessTimer = undefined;
    await this.livenessRunning;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Nobody waits for room any more: what the gateway still reads is answered by the stop (unstored).
    for (const w of this.roomWaiters.splice(0)) w();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    await this.flushEvents();
  }

  // --- permissions ---------------------------------------------------------------------------------

  private assertCanView(actor: Actor) {
    if (!Object.values(scopeCodes('devices', 'view')).some((c) => actor.permissions.has(c))) {
      throw prohibited([{ permission: 'can_view_devices' }]);
    }
  }

  private assertPermission(actor: Actor, code: string) {
    if (!actor.permissions.has(code)) throw prohibited([{ permission: code }]);
  }

  /** Where the actor may place devices: the scope of their edit permission, else of view, else their own groups. */
  private async assertPlaceable(actor: Actor, groupId: number) {
    const s = scopeOf(actor, 'devices', 'edit') ?? scopeOf(actor, 'devices', 'view') ?? 'domain';
    const ok = await this.repo.groupsInScope(actor, s === 'own' ? 'domain' : s, [groupId]);
    if (!ok.has(groupId)) throw new AppError('invalid_related_entity', [{ field: 'domain_id', entity: 'domains', ids: [groupId] }]);
  }

  /** The Axxon One integration chosen in the settings must be one available to the device's group (issue 14). */
  private async assertIntegrationAllowed(actor: Actor, settings: DeviceSettings, groupId: number | null) {
    const id = settings.integration_axxon.integration_id;
    if (id === null || (await integrationAvailableTo(this.db, actor.projectId, id, groupId))) return;
    throw new AppError('integration_not_allowed', [
      { field: 'device_settings.integration_axxon.integration_id', entity: 'integrations', ids: [id] },
    ]);
  }

  private async assertSerialFree(serial: string, exceptId = 0) {
    if (await this.repo.serialTaken(serial, exceptId)) {
      throw new AppError('serial_in_use', [{ field: 'serial_number', message: 'value must be unique' }]);
    }
  }

  private assertModel(type: string, model: string) {
    if (!deviceModel(type, model)) throw invalidField('model', M.invalid_value, { type });
  }

  private async visible(actor: Actor, id: number, action: 'view' | 'edit' | 'delete' = 'view') {
    const d = await this.repo.find(this.db, actor, id);
    if (!d?.canView) throw notFound();
    if (action === 'edit' && !d.editable) throw prohibited([{ permission: 'can_edit_devices' }]);
    if (action === 'delete' && !d.deletable) throw prohibited([{ permission: 'can_delete_devices' }]);
    return d;
  }

  // --- devices -----------------------------------------------------------------------------------

  async list(actor: Actor, q: ListQuery & { search?: string | undefined }): Promise<{ data: Device[]; meta: ListMeta }> {
    this.assertCanView(actor);
    if (q.with.length) throw invalidField('with', M.invalid_value, { value: q.with[0] });
    const { rows, total, estimated } = await this.repo.list(actor, q);
    return { data: rows.map(toDevice), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  async raw(actor: Actor, type: string | undefined) {
    this.assertCanView(actor);
    return (await this.repo.raw(actor, type)) as {
      id: number;
      name: string;
      description: string | null;
      type: Device['type'];
      model: string;
    }[];
  }

  async get(actor: Actor, id: number): Promise<Device> {
    return toDevice(await this.visible(actor, id));
  }

  async create(ctx: RequestContext, body: CreateDeviceBody): Promise<Device> {
    const { actor } = ctx;
    this.assertPermission(actor, 'can_create_devices');
    const type = body.type ?? DEFAULT_DEVICE_TYPE;
    this.assertModel(type, body.model);
    await this.assertPlaceable(actor, body.domain_id);
    await this.assertSerialFree(body.serial_number);
    const settings = mergeSettings({}, body.device_settings);
    await this.assertIntegrationAllowed(actor, settings, body.domain_id);
    const id = await this.db.transaction(async (tx) => {
      const deviceId = await this.repo.insert(tx, {
        projectId: actor.projectId,
        groupId: body.domain_id,
        name: body.name,
        description: body.description ?? null,
        type,
        model: body.model,
        ipAddress: body.ip_address ?? null,
        port: body.port ?? DEVICE_DEFAULTS.port,
        serialNumber: body.serial_number,
        deviceLogin: body.device_login ?? null,
        devicePassword: body.device_password ?? null,
        protocol: body.protocol ?? DEVICE_DEFAULTS.protocol,
        getLogs: body.get_logs ?? false,
        latitude: body.location_latitude ?? null,
        longitude: body.location_longitude ?? null,
        management: { heartbeat: 30, realtime_logging: false, ...body.management },
        settings,
        createdBy: actor.userId,
      });
      const { device_password: _omit, ...after } = body;
      await recordAudit(tx, ctx, { entity: 'device', entityId: deviceId, action: 'create', after });
      return deviceId;
    });
    this.eventDevices.delete(body.serial_number); // remembered as unknown a moment ago, perhaps
    return this.get(actor, id);
  }

  async update(ctx: RequestContext, id: number, body: UpdateDeviceBody): Promise<Device> {
    const { actor } = ctx;
    const before = await this.visible(actor, id, 'edit');
    const type = body.type ?? before.type;
    const model = body.model ?? before.model;
    if (body.type !== undefined || body.model !== undefined) this.assertModel(type, model);
    if (body.domain_id != null && body.domain_id !== before.groupId) await this.assertPlaceable(actor, body.domain_id);
    if (body.domain_id === null) throw invalidField('domain_id', M.required);
    const serialChanged = body.serial_number !== undefined && body.serial_number !== before.serialNumber;
    if (serialChanged) await this.assertSerialFree(body.serial_number!, id);
    const settings = body.device_settings ? mergeSettings(before.settings, body.device_settings) : undefined;
    if (body.device_settings?.integration_axxon?.integration_id || (body.domain_id && body.domain_id !== before.groupId)) {
      await this.assertIntegrationAllowed(actor, settings ?? settingsOf(before.settings), body.domain_id ?? before.groupId);
    }
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        type,
        model,
        ...(body.ip_address !== undefined ? { ipAddress: body.ip_address } : {}),
        ...(body.port !== undefined ? { port: body.port } : {}),
        ...(serialChanged
          ? // Another serial number is another broker account: the device is initialised again under it.
            { serialNumber: body.serial_number, passwordHash: null, initializedAt: null }
          : {}),
        ...(body.device_login !== undefined ? { deviceLogin: body.device_login } : {}),
        // A masked or empty password on save means "unchanged" (spec entities §5).
        ...(body.device_password ? { devicePassword: body.device_password } : {}),
        ...(body.domain_id ? { groupId: body.domain_id } : {}),
        ...(body.protocol !== undefined ? { protocol: body.protocol } : {}),
        ...(body.get_logs !== undefined ? { getLogs: body.get_logs } : {}),
        ...(body.location_latitude !== undefined ? { latitude: body.location_latitude } : {}),
        ...(body.location_longitude !== undefined ? { longitude: body.location_longitude } : {}),
        ...(body.management ? { management: { ...before.management, ...body.management } } : {}),
        ...(settings ? { settings } : {}),
      });
      const { device_password: _omit, ...after } = body;
      await recordAudit(tx, ctx, { entity: 'device', entityId: id, action: 'update', before: toDevice(before), after });
    });
    if (serialChanged) {
      this.eventDevices.delete(before.serialNumber);
      this.eventDevices.delete(body.serial_number!);
      await this.account((a) => a.removeDevice(before.serialNumber));
    }
    return this.get(actor, id);
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    const before = await this.visible(ctx.actor, id, 'delete');
    await this.db.transaction(async (tx) => {
      await this.repo.remove(tx, id);
      await recordAudit(tx, ctx, { entity: 'device', entityId: id, action: 'delete', before: toDevice(before) });
    });
    this.eventDevices.delete(before.serialNumber);
    await this.account((a) => a.removeDevice(before.serialNumber));
  }

  bulkDelete(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.delete(ctx, id));
  }

  async setProtocol(ctx: RequestContext, id: number, protocol: DeviceProtocol): Promise<Device> {
    const before = await this.visible(ctx.actor, id, 'edit');
    await this.db.transaction(async (tx) => {
      await this.repo.update(tx, id, { protocol });
      // Nothing more can reach the device: its open tasks end as stopped.
      if (protocol === 'none') await this.repo.stopOpen(tx, id);
      await recordAudit(tx, ctx, {
        entity: 'device',
        entityId: id,
        action: 'set_protocol',
        before: { protocol: before.protocol },
        after: { protocol },
      });
    });
    if (protocol !== before.protocol && (protocol === 'mqtt' || before.protocol === 'mqtt')) {
      // Only an mqtt device may sign in to the broker.
      await this.account((a) => (protocol === 'mqtt' ? a.enableDevice(before.serialNumber) : a.disableDevice(before.serialNumber)));
      // Cut off by the broker, which need not send its will: offline now, as the console should show it.
      if (protocol !== 'mqtt' && before.online) await this.onPresence(before.serialNumber, { online: false });
    }
    if (protocol !== 'none') await this.pump(id);
    return this.get(ctx.actor, id);
  }

  async sendSettings(ctx: RequestContext, id: number): Promise<DeviceTask> {
    const d = await this.visible(ctx.actor, id, 'edit');
    return this.enqueue(ctx, d, 'apply_settings', { device_settings: settingsOf(d.settings), management: d.management });
  }

  /**
   * Sends the MQTT broker settings (`broker_settings` task) to every initialised mqtt device of the
   * actor's project, superseding those of an earlier sending no device has started, and records the
   * sending: once every task has ended, or the deadline has passed, the actor is notified of the
   * outcome per device (device_broker_settings_sent). Answers how many devices were given the task.
   */
  async sendBrokerSettings(ctx: RequestContext, payload: Record<string, unknown>): Promise<number> {
    const { projectId, userId } = ctx.actor;
    const taskIds = await this.db.transaction(async (tx) => {
      await this.repo.supersedeBrokerTasks(tx, projectId);
      const targets = await this.repo.brokerTargets(tx, projectId);
      const ids = await this.repo.insertTaskIds(
        tx,
        targets.map((deviceId) => ({ deviceId, type: 'broker_settings' as const, payload })),
        userId,
      );
      let sendId: number | null = null;
      if (ids.length) {
        const deadline = new Date(Date.now() + this.opts.brokerSendSeconds * 1000);
        sendId = await this.repo.insertBrokerSend(tx, { projectId, userId, taskIds: ids, deadline });
      }
      // Asked with no device to reach is still asked: the log says so, with the count (0).
      await recordAudit(tx, ctx, { entity: 'device_broker_send', entityId: sendId, action: 'create', after: { devices: ids.length } });
      return ids;
    });
    // The superseded sending may now be complete.
    await this.concludeBrokerSends();
    if (taskIds.length) await this.pump(null);
    return taskIds.length;
  }

  /**
   * Notifies the sender of every sending of broker settings whose outcome is known, or whose deadline
   * passed: one notification per sending with the outcome of each device (the first ones by name,
   * counts of all). Run after each broker_settings answer and at each sweep, on any instance: each
   * sending is concluded once.
   */
  async concludeBrokerSends(): Promise<void> {
    for (const send of await this.repo.concludeBrokerSends()) {
      if (send.userId === null) continue;
      const byId = new Map(send.tasks.map((t) => [t.id, t]));
      const outcomes = send.tasks.map((t) => ({
        device_id: t.device_id,
        name: t.name,
        serial_number: t.serial_number,
        task_id: t.id,
        outcome: (t.state === 'completed' || t.state === 'error' || t.state === 'stopped' ? t.state : 'timeout') as BrokerSendOutcome,
        error: t.state === 'completed' ? null : (t.error ?? (t.state === 'stopped' ? null : `no answer (${t.state})`)),
      }));
      // A task deleted meanwhile (its device deleted) counts as stopped.
      const gone = send.taskIds.filter((id) => !byId.has(id)).length;
      const count = (o: BrokerSendOutcome) => outcomes.filter((x) => x.outcome === o).length;
      const listed = outcomes.slice(0, BROKER_SEND_NOTICE_MAX_DEVICES);
      const names = outcomes.slice(0, 3).map((o) => o.name);
      const more = send.taskIds.length - names.length;
      const data: BrokerSettingsSentData = {
        has_error: outcomes.some((o) => o.outcome !== 'completed') || gone > 0,
        device: more > 0 ? `${names.join(', ')} (+${more})` : names.join(', '),
        total: send.taskIds.length,
        completed: count('completed'),
        failed: count('error'),
        timed_out: count('timeout'),
        stopped: count('stopped') + gone,
        devices: listed,
      };
      await this.announcer
        ?.notify(send.projectId, send.userId, {
          type: 'device_broker_settings_sent',
          data,
          // A popup only when a device refused them: one away at the deadline gets its task when it
          // is back, so a timeout alone is news for the bell, not an interruption.
          significance: data.failed > 0 ? 'important' : 'other',
        })
        .catch(() => undefined);
    }
  }

  /** Sets the device password (hashed; answered once when generated) and queues the init task. */
  async init(ctx: RequestContext, id: number, password: string | undefined): Promise<{ task: DeviceTask; password: string | null }> {
    const d = await this.visible(ctx.actor, id, 'edit');
    if (d.protocol === 'none') throw new AppError('protocol_none');
    const plain = password ?? randomPassword(24);
    const hash = await hashPassword(plain);
    // The broker must know the password before the device is told to use it; an account change
    // still waiting for the broker goes first.
    await this.applyAccountChanges();
    if (this.accounts) {
      try {
        await this.accounts.upsertDevice(d.serialNumber, plain);
      } catch {
        throw new AppError('device_unavailable');
      }
    }
    // What signed in before (the unit this one replaces, or this one before a factory reset) must sign
    // in again with the new password: the device is offline from now on (so that nothing is handed to
    // that session), and its sessions end once the new password is stored.
    if (d.online) await this.onPresence(d.serialNumber, { online: false, reason: 'reinit' });
    const task = await this.enqueue(
      ctx,
      { ...d, online: false },
      'init',
      { device_settings: settingsOf(d.settings), management: d.management },
      async (tx) => {
        await this.repo.update(tx, id, { passwordHash: hash, initializedAt: new Date() });
      },
      (tx) => this.queueFullSync(tx, [d.id], ctx.actor),
    );
    await this.account((a) => a.endSessions(d.serialNumber));
    return { task, password: password ? null : plain };
  }

  /** Queues a task for a device the actor may edit (later areas queue sync, open lock, play audio through it). */
  async enqueue(
    ctx: RequestContext,
    d: DeviceRow,
    type: DeviceTaskType,
    payload: Record<string, unknown>,
    alsoInTx?: (tx: Tx) => Promise<void>,
    afterInTx?: (tx: Tx) => Promise<unknown>,
  ): Promise<DeviceTask> {
    if (d.protocol === 'none' && NEEDS_PROTOCOL.has(type)) throw new AppError('protocol_none');
    // Nothing serves http devices yet: a task for one would wait forever.
    if (d.protocol === 'http') throw new AppError('device_not_mqtt');
    // An init (first or again) is followed by a full sync: a new or reset unit holds nothing yet.
    const after = afterInTx ?? (type === 'init' ? (tx: Tx) => this.queueFullSync(tx, [d.id], ctx.actor) : undefined);
    const taskId = await this.db.transaction(async (tx) => {
      await alsoInTx?.(tx);
      const tid = await this.repo.insertTask(tx, { projectId: d.projectId, deviceId: d.id, type, payload, createdBy: ctx.actor.userId });
      // A device that is not connected keeps its tasks waiting until it comes online.
      if (!d.online) await this.repo.setTask(tx, tid, { state: 'waiting' });
      await recordAudit(tx, ctx, { entity: 'device_task', entityId: tid, action: 'create', after: { device_id: d.id, type } });
      await after?.(tx);
      return tid;
    });
    await this.pump(d.id);
    return this.getTask(ctx.actor, taskId);
  }

  /**
   * Queues tasks for many devices inside the caller's transaction, so that the change they carry and
   * the tasks commit together (later areas' sync fan-out). Call `dispatch()` once committed.
   */
  queueInTx(
    tx: Parameters<Parameters<Db['transaction']>[0]>[0],
    tasks: readonly { deviceId: number; type: DeviceTaskType; payload: Record<string, unknown> }[],
    createdBy: number | null,
  ): Promise<number> {
    return this.repo.insertTasks(tx, tasks, createdBy);
  }

  /** As queueInTx for one task, answering its id (null: the device speaks no protocol). */
  async queueOneInTx(
    tx: Parameters<Parameters<Db['transaction']>[0]>[0],
    task: { deviceId: number; type: DeviceTaskType; payload: Record<string, unknown> },
    createdBy: number | null,
  ): Promise<number | null> {
    return (await this.repo.insertTaskIds(tx, [task], createdBy))[0] ?? null;
  }

  /**
   * Waits (at most `timeoutMs`) for a committed task to end: completed, error or stopped, with the
   * device's error. Woken at once by a result this instance receives; the task row is also read every
   * `pollMs`, so a result that reached another instance is seen too. On timeout a task no device has
   * started yet is stopped (it must not run after its caller gave up: `stopped`, error `timeout`); one a
   * device started answers `timeout` (it may still run).
   */
  async awaitTask(
    taskId: number,
    { timeoutMs = 10_000, pollMs = 200 }: { timeoutMs?: number; pollMs?: number } = {},
  ): Promise<{ state: 'completed' | 'error' | 'stopped' | 'timeout'; error: string | null }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const t = await this.repo.taskOutcome(taskId);
      if (!t) return { state: 'stopped', error: null };
      if ((FINAL_TASK_STATES as readonly string[]).includes(t.state)) {
        return { state: t.state as 'completed' | 'error' | 'stopped', error: t.error };
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const waiters = this.taskWaiters.get(taskId) ?? new Set<() => void>();
        this.taskWaiters.set(taskId, waiters);
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          if (!waiters.size && this.taskWaiters.get(taskId) === waiters) this.taskWaiters.delete(taskId);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(pollMs, left));
        waiters.add(wake);
      });
    }
    // No device took it: stopped, so it never runs (error `timeout`).
    if (await this.repo.stopUnstarted(taskId)) return { state: 'stopped', error: 'timeout' };
    // It ended meanwhile, or a device is at it (its outcome unknown: `timeout`): one last look.
    const t = await this.repo.taskOutcome(taskId);
    if (t && (FINAL_TASK_STATES as readonly string[]).includes(t.state)) {
      return { state: t.state as 'completed' | 'error' | 'stopped', error: t.error };
    }
    return { state: 'timeout', error: null };
  }

  /** Hands what is ready to the devices now (after a commit that queued tasks). */
  async dispatch(): Promise<void> {
    await this.pump(null);
  }

  /**
   * Who hears of stored device events (access decisions become access events). `wants`, when given,
   * says whether a batch holding these event types concerns the listener (when none of its types
   * does, it is not called: the plane's batches are then not even read).
   */
  onEvents(listener: (events: readonly NewEvent[]) => Promise<void>, wants?: EventTypesWanted): void {
    this.eventListeners.push(wants ? { listener, wants } : { listener });
  }

  // --- tasks -------------------------------------------------------------------------------------

  async listTasks(actor: Actor, q: ListQuery): Promise<{ data: DeviceTask[]; meta: ListMeta }> {
    this.assertPermission(actor, 'can_view_device_tasks');
    if (q.with.length) throw invalidField('with', M.invalid_value, { value: q.with[0] });
    const { rows, total, estimated } = await this.repo.tasks(actor, q);
    return { data: rows.map(toTask), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  private async visibleTask(actor: Actor, id: number): Promise<TaskRow> {
    this.assertPermission(actor, 'can_view_device_tasks');
    const t = await this.repo.task(this.db, actor, id);
    if (!t) throw notFound();
    return t;
  }

  async getTask(actor: Actor, id: number): Promise<DeviceTask> {
    const t = await this.repo.task(this.db, actor, id);
    if (!t) throw notFound();
    return toTask(t);
  }

  async taskEntities(actor: Actor, id: number): Promise<{ type: string; id: number }[]> {
    const t = await this.visibleTask(actor, id);
    const entities = (t.payload as { entities?: unknown }).entities;
    return Array.isArray(entities) ? (entities as { type: string; id: number }[]) : [];
  }

  /** Deletes a task; one in flight is forgotten, and the device's late answer about it is ignored. */
  async deleteTask(ctx: RequestContext, id: number): Promise<void> {
    const t = await this.visibleTask(ctx.actor, id);
    await this.visible(ctx.actor, t.deviceId, 'edit');
    await this.db.transaction(async (tx) => {
      await this.repo.removeTask(tx, id);
      await recordAudit(tx, ctx, { entity: 'device_task', entityId: id, action: 'delete', before: toTask(t) });
    });
    await this.pump(t.deviceId);
  }

  bulkDeleteTasks(ctx: RequestContext, ids: readonly number[]): Promise<BulkDeleteResult> {
    return bulkDelete(ids, (id) => this.deleteTask(ctx, id));
  }

  /** A finished task runs again, at the end of its device's queue. */
  async restartTask(ctx: RequestContext, id: number): Promise<DeviceTask> {
    const t = await this.visibleTask(ctx.actor, id);
    const d = await this.visible(ctx.actor, t.deviceId, 'edit');
    if (d.protocol === 'none') throw new AppError('protocol_none');
    if (!FINAL_TASK_STATES.includes(t.state as DeviceTask['state'])) {
      throw new AppError('cannot_perform_action', [{ field: 'state', message: 'the task has not finished', params: { state: t.state } }]);
    }
    await this.db.transaction(async (tx) => {
      await this.repo.requeueTask(tx, id);
      if (!d.online) await this.repo.setTask(tx, id, { state: 'waiting' });
      await recordAudit(tx, ctx, { entity: 'device_task', entityId: id, action: 'restart', before: { state: t.state } });
    });
    await this.pump(d.id);
    return this.getTask(ctx.actor, id);
  }

  /** Initialises the task's device again (new init task), then runs the task again after it. */
  async reinitTask(ctx: RequestContext, id: number): Promise<DeviceTask> {
    const t = await this.visibleTask(ctx.actor, id);
    const d = await this.visible(ctx.actor, t.deviceId, 'edit');
    if (d.protocol === 'none') throw new AppError('protocol_none');
    const init = await this.enqueue(ctx, d, 'init', { device_settings: settingsOf(d.settings), management: d.management, reinit_of: id });
    if (FINAL_TASK_STATES.includes(t.state as DeviceTask['state'])) await this.restartTask(ctx, id);
    return init;
  }

  // --- events ------------------------------------------------------------------------------------

  async listEvents(actor: Actor, q: ListQuery, devicesOnly?: readonly number[]): Promise<{ data: DeviceEvent[]; meta: ListMeta }> {
    // Another area showing the events of its own devices (elevators) has checked its permission.
    if (!devicesOnly) this.assertPermission(actor, 'can_view_device_events');
    if (q.with.length) throw invalidField('with', M.invalid_value, { value: q.with[0] });
    const { rows, total, estimated } = await this.repo.events(actor, { ...q, ...(devicesOnly ? { devices: devicesOnly } : {}) });
    return { data: rows.map(toEvent), meta: { total, page: q.page, size: q.size, ...(estimated ? { estimated } : {}) } };
  }

  /** Pages of events for a download; the first page is read before the answer starts, so a bad filter is still a 400. */
  async eventPages(
    actor: Actor,
    q: Pick<ListQuery, 'filters' | 'sort'>,
    devicesOnly?: readonly number[],
  ): Promise<AsyncGenerator<DeviceEvent[]>> {
    if (!devicesOnly) this.assertPermission(actor, 'can_view_device_events');
    const pages = this.repo.eventPages(actor, { ...q, ...(devicesOnly ? { devices: devicesOnly } : {}) });
    const first = await pages.next();
    return (async function* () {
      if (first.done) return;
      yield first.value.map(toEvent);
      for await (const page of pages) yield page.map(toEvent);
    })();
  }

  async syncErrors(actor: Actor, id: number) {
    const d = await this.visible(actor, id);
    const errors = (await this.repo.syncErrors(d.id)) ?? [];
    const pick = (entity: string) => errors.filter((e) => e.entity === entity).map(({ id: eid, message }) => ({ id: eid, message }));
    return { identifiers: pick('identifier'), schedules: pick('schedule') };
  }

  // --- remote control ----------------------------------------------------------------------------

  /** Opens a remote-control session (60 s unless kept alive): only for an mqtt device that is online. */
  async startRemoteControl(
    ctx: RequestContext,
    body: { serial_number: string; login?: string | null | undefined; password?: string | null | undefined },
  ): Promise<{ session: string; device_id: number; task_id: number; expires_at: string }> {
    const found = await this.repo.findBySerial(ctx.actor, body.serial_number);
    if (!found?.canView) throw notFound();
    if (!found.editable) throw prohibited([{ permission: 'can_edit_devices' }]);
    if (found.protocol !== 'mqtt') throw new AppError('device_not_mqtt');
    if (!found.online) throw new AppError('device_offline');
    // No broker connection on this instance: the session could not reach the device.
    if (!this.gateway) throw new AppError('device_unavailable');
    // The device's own web login, when one is stored, must be the one given.
    if (found.deviceLogin && (body.login !== found.deviceLogin || (found.devicePassword ?? '') !== (body.password ?? ''))) {
      throw prohibited([{ field: 'password', message: 'incorrect login/password' }]);
    }
    const session = randomUUID();
    const expires_at = new Date(Date.now() + REMOTE_CONTROL_SESSION_SECONDS * 1000).toISOString();
    const task = await this.enqueue(ctx, found, 'remote_control', { session, expires_at });
    return { session, device_id: found.id, task_id: task.id, expires_at };
  }

  /**
   * A session the caller opened, still running, on a device that is online and reachable. Only
   * its operator drives it: another user with the session id gets a not found.
   */
  private async ownSession(ctx: RequestContext, session: string) {
    const s = await this.repo.remoteSession(ctx.actor.projectId, session);
    if (!s || s.created_by !== ctx.actor.userId || Date.parse(s.expires_at) < Date.now()) throw notFound();
    const d = await this.visible(ctx.actor, s.device_id, 'edit');
    if (!d.online) throw new AppError('device_offline');
    const gateway = this.gateway;
    if (!gateway) throw new AppError('device_unavailable');
    return { s, d, gateway };
  }

  /** Keeps a session alive for another 60 s and tells the device so; an ended one is not found. */
  async keepRemoteControl(ctx: RequestContext, session: string) {
    const { s, d, gateway } = await this.ownSession(ctx, session);
    const expires_at = new Date(Date.now() + REMOTE_CONTROL_SESSION_SECONDS * 1000).toISOString();
    await this.db.transaction(async (tx) => {
      await this.repo.extendRemoteSession(tx, s.id, expires_at);
      await recordAudit(tx, ctx, { entity: 'device', entityId: d.id, action: 'remote_control_keepalive', after: { session, expires_at } });
    });
    this.sessions.delete(session);
    await this.input(gateway, d.serialNumber, { session, kind: 'keepalive', expires_at });
    return { session, device_id: d.id, task_id: s.id, expires_at };
  }

  /** A tap, a key or a door opening on the remote screen, handed to the device. */
  async remoteInput(ctx: RequestContext, session: string, body: RemoteInputBody): Promise<void> {
    const { d, gateway } = await this.ownSession(ctx, session);
    if (body.kind === 'open_door') {
      await recordAudit(this.db, ctx, {
        entity: 'device',
        entityId: d.id,
        action: 'remote_open_door',
        after: { session, lock: body.lock },
      });
    }
    await this.input(gateway, d.serialNumber, { session, ...body });
  }

  /** Ends a session now: the device stops streaming, and the session can no longer be kept alive. */
  async endRemoteControl(ctx: RequestContext, session: string): Promise<void> {
    const s = await this.repo.remoteSession(ctx.actor.projectId, session);
    if (!s || s.created_by !== ctx.actor.userId) throw notFound();
    const d = await this.visible(ctx.actor, s.device_id, 'edit');
    const ended = new Date().toISOString();
    await this.db.transaction(async (tx) => {
      await this.repo.extendRemoteSession(tx, s.id, ended);
      await recordAudit(tx, ctx, { entity: 'device', entityId: d.id, action: 'remote_control_end', after: { session } });
    });
    this.sessions.delete(session);
    // A device that is away has no stream to stop: its session ran out with the expiry just stored.
    if (this.gateway && d.online) await this.gateway.sendInput(d.serialNumber, { session, kind: 'end' }).catch(() => undefined);
    await this.announce(
      d.projectId,
      DEVICE_REALTIME.screenTopic(session),
      DEVICE_REALTIME.events.sessionEnded,
      { session },
      { users: [ctx.actor.userId] },
    );
  }

  private async input(gateway: DeviceGateway, serial: string, input: DeviceInputMessage): Promise<void> {
    try {
      await gateway.sendInput(serial, input);
    } catch {
      throw new AppError('device_unavailable');
    }
  }

  /**
   * A frame of a device's screen, relayed to the operator of its session. Frames of an unknown,
   * ended or foreign session are dropped: a device cannot push images to anyone else.
   */
  async onScreenFrame(serial: string, frame: ScreenFrameMessage): Promise<void> {
    const now = Date.now();
    let s = this.sessions.get(frame.session);
    if (!s || s.checkedUntil < now) {
      const d = await this.eventDevice(serial);
      const row = d ? await this.repo.deviceSession(d.id, frame.session) : undefined;
      s = {
        serial,
        projectId: d?.projectId ?? 0,
        operator: row?.created_by ?? null,
        expiresAt: row ? Date.parse(row.expires_at) : 0,
        checkedUntil: now + 5000,
      };
      if (this.sessions.size > 10_000) this.sessions.clear();
      this.sessions.set(frame.session, s);
    }
    if (s.serial !== serial || s.operator === null || s.expiresAt < now) return;
    const { session, seq, width, height, format, data } = frame;
    await this.announce(
      s.projectId,
      DEVICE_REALTIME.screenTopic(session),
      DEVICE_REALTIME.events.screen,
      { session, seq, width, height, format, data },
      { users: [s.operator] },
    );
  }

  // --- IP search ---------------------------------------------------------------------------------

  /**
   * Probes every address of the range for a device answering discovery, and publishes each one
   * found on the search's topic as it answers, then a done event. Answers at once with the count.
   */
  async search(ctx: RequestContext, body: { start_ip: string; end_ip: string; request_id: string; port?: number | undefined }) {
    this.assertPermission(ctx.actor, 'can_create_devices');
    const from = ipv4ToNumber(body.start_ip);
    const to = ipv4ToNumber(body.end_ip);
    if (to < from) throw invalidField('end_ip', M.min_value, { min: body.start_ip });
    if (to - from + 1 > DEVICE_SEARCH_MAX_ADDRESSES) throw invalidField('end_ip', M.max_items, { max: DEVICE_SEARCH_MAX_ADDRESSES });
    const port = body.port ?? DEVICE_DEFAULTS.port;
    const topic = DEVICE_REALTIME.searchTopic(body.request_id);
    const projectId = ctx.actor.projectId;
    // What a search finds is its caller's: another console on the same request id hears nothing.
    const searcher: Audience = { users: [ctx.actor.userId] };
    await recordAudit(this.db, ctx, { entity: 'device', action: 'search', after: body });
    const addresses = Array.from({ length: to - from + 1 }, (_, i) => numberToIpv4(from + i));
    void (async () => {
      let next = 0;
      let found = 0;
      const worker = async () => {
        while (next < addresses.length) {
          const ip = addresses[next++] as string;
          const answer = await this.probe(ip, port);
          if (!answer) continue;
          found++;
          const known = (await this.repo.knownSerials([answer.serial_number])).has(answer.serial_number);
          await this.announce(projectId, topic, DEVICE_REALTIME.events.found, { ...answer, ip_address: ip, port, known }, searcher);
        }
      };
      await Promise.all(Array.from({ length: Math.min(32, addresses.length) }, worker));
      await this.announce(projectId, topic, DEVICE_REALTIME.events.searchDone, { request_id: body.request_id, found }, searcher);
    })().catch(() => undefined);
    return { request_id: body.request_id, addresses: addresses.length };
  }

  private async probe(ip: string, port: number) {
    try {
      const res = await fetch(`http://${ip}:${port}${DEVICE_DISCOVERY_PATH}`, { signal: AbortSignal.timeout(this.opts.probeTimeoutMs) });
      if (!res.ok) return null;
      const parsed = DiscoveryAnswerSchema.safeParse(await res.json());
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Adds devices found by a search: each one on its own, saying which were not added and why. */
  async addFound(
    ctx: RequestContext,
    items: readonly {
      serial_number: string;
      type: Device['type'];
      model: string;
      ip_address: string;
      port?: number | undefined;
      name?: string | undefined;
      domain_id: number;
    }[],
  ) {
    const created: Device[] = [];
    const not_created: { serial_number: string; message: string; code: string }[] = [];
    for (const item of items) {
      try {
        created.push(
          await this.create(ctx, {
            name: item.name ?? `${item.model} ${item.serial_number}`.slice(0, 31),
            type: item.type,
            model: item.model,
            serial_number: item.serial_number,
            ip_address: item.ip_address,
            port: item.port ?? DEVICE_DEFAULTS.port,
            domain_id: item.domain_id,
          }),
        );
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        not_created.push({ serial_number: item.serial_number, message: e.message, code: e.code });
      }
    }
    return { created, not_created };
  }

  // --- backup import -----------------------------------------------------------------------------

  /**
   * Restores a device's settings from its backup image (JSON, optionally gzipped:
   * { format: 'atrium-device-backup', version: 1, serial_number, device_settings }) and queues
   * their apply. Anything else is "invalid backup image".
   */
  async importBackup(ctx: RequestContext, file: Buffer): Promise<DeviceTask> {
    this.assertPermission(ctx.actor, 'can_import_device_backup');
    let image: unknown;
    try {
      const text = (file[0] === 0x1f && file[1] === 0x8b ? gunzipSync(file, { maxOutputLength: 16 * 1024 * 1024 }) : file).toString('utf8');
      image = JSON.parse(text);
    } catch {
      throw new AppError('invalid_backup_image');
    }
    const parsed = DeviceBackupImageSchema.safeParse(image);
    if (!parsed.success) throw new AppError('invalid_backup_image');
    const d = await this.repo.findBySerial(ctx.actor, parsed.data.serial_number);
    if (!d?.canView) throw notFound();
    if (!d.editable) throw prohibited([{ permission: 'can_edit_devices' }]);
    const settings = mergeSettings(d.settings, parsed.data.device_settings as Record<string, unknown>);
    return this.enqueue(ctx, d, 'apply_settings', { device_settings: settings, management: d.management, backup: true }, async (tx) => {
      await this.repo.update(tx, d.id, { settings });
    });
  }

  // --- the gateway's side ------------------------------------------------------------------------

  /** Every device's serial number (the broker's accounts are reconciled against them). */
  async serials(): Promise<Set<string>> {
    return new Set(await this.repo.allSerials());
  }

  /** Broker sign-in: the serial number and the device password set at init. */
  async verify(serial: string, password: string): Promise<{ projectId: number; deviceId: number } | null> {
    // A fleet connecting at once: the sign-ins of one turn share one query.
    const d = await this.signIns.add(serial);
    if (!d?.passwordHash || d.protocol !== 'mqtt') return null;
    // A reconnecting fleet must not cost an argon2 hash per device each time: a pair that verified
    // against this very stored hash is remembered (as a digest) for a while. A new password, a new
    // hash: the old pair no longer matches.
    const key = createHash('sha256').update(d.passwordHash).update('\0').update(password).digest('base64');
    const until = this.verified.get(key);
    if (until && until > Date.now()) return { projectId: d.projectId, deviceId: d.id };
    // The same pair signing in several times at once (a client retrying while the first attempt is
    // still being checked) waits for that one hash instead of computing its own.
    let check = this.verifying.get(key);
    if (!check) {
      check = verifyPassword(d.passwordHash, password).finally(() => this.verifying.delete(key));
      this.verifying.set(key, check);
    }
    if (!(await check)) return null;
    if (this.verified.size > 100_000) this.verified.clear();
    this.verified.set(key, Date.now() + 10 * 60_000);
    return { projectId: d.projectId, deviceId: d.id };
  }

  /** A device's status (online with what it announced, or offline); reports arriving together are written together. */
  onPresence(serial: string, report: PresenceReport): Promise<boolean> {
    return this.presenceReports.add({ serial, report });
  }

  /**
   * Whether an online report follows the device's record: a status naming another type or model is
   * refused (and counted), and so are the heartbeats of that device until a status matches again.
   */
  private followsRecord(d: DeviceOfSerial, report: PresenceReport): boolean {
    if (!report.online) return true;
    if (report.type === undefined && report.model === undefined) return !this.mismatched.has(d.serialNumber);
    if ((report.type !== undefined && report.type !== d.type) || (report.model !== undefined && report.model !== d.model)) {
      this.stats.refused.status_mismatch++;
      if (this.mismatched.size > 100_000) this.mismatched.clear();
      this.mismatched.add(d.serialNumber);
      return false;
    }
    this.mismatched.delete(d.serialNumber);
    return true;
  }

  private async applyPresence(items: readonly { serial: string; report: PresenceReport }[]): Promise<boolean[]> {
    const devices = await this.repo.bySerials([...new Set(items.map((i) => i.serial))]);
    const accepted = items.map(({ serial, report }) => {
      const d = devices.get(serial);
      return d === undefined || this.followsRecord(d, report);
    });
    const found = items.flatMap(({ serial, report }, i) => {
      const d = devices.get(serial);
      return d && accepted[i] ? [{ d, report }] : [];
    });
    const changed = await this.repo.setPresenceMany(
      found.map(({ d, report }) => ({
        deviceId: d.id,
        online: report.online,
        ...(report.firmware !== undefined ? { firmware: report.firmware } : {}),
        ...(report.capabilities !== undefined ? { capabilities: report.capabilities } : {}),
      })),
      this.instance?.id ?? null,
    );
    await this.presenceChanged(found, changed);
    return accepted;
  }

  /** What follows presence written: the consoles told of each change, tasks handed over, notices of devices gone offline. */
  private async presenceChanged(
    found: readonly { d: DeviceOfSerial; report: PresenceReport }[],
    changed: ReadonlySet<number>,
  ): Promise<void> {
    await this.announceMany(
      found
        .filter(({ d }) => changed.has(d.id))
        .map(({ d, report }) => ({
          projectId: d.projectId,
          topic: DEVICE_REALTIME.statusTopic,
          event: DEVICE_REALTIME.events.status,
          data: { id: d.id, online: report.online, ...(report.reason ? { reason: report.reason } : {}) },
          audience: deviceAudience(d),
        })),
    );
    const online = found.filter(({ report }) => report.online).map(({ d }) => d.id);
    if (online.length) await this.pumpMany(online);
    const offline = found.filter(({ report }) => !report.online);
    if (offline.length) await this.repo.parkInFlight(this.db, [...new Set(offline.map(({ d }) => d.id))]);
    for (const { d } of offline) {
      // Only a change is news, and every instance hears the status: the one whose write changed the
      // row tells people, once; a device that was already offline going offline again tells no one.
      if (changed.has(d.id)) {
        for (const u of await this.repo.notifyTargets(d.id, 'notify_about_offline_device')) {
          await this.announcer?.notify(d.projectId, u.user_id, {
            type: 'device_offline',
            data: { device: u.device, device_id: d.id, group: u.group },
            significance: 'important',
          });
        }
        await this.mailAdmin(d.projectId, { kind: 'device_offline', deviceId: d.id, at: new Date() });
      }
    }
  }

  /** Last-seen times of a gateway flush, in one statement. */
  async onLastSeen(seen: ReadonlyMap<string, Date>): Promise<void> {
    await this.repo.touchLastSeen(seen);
  }

  private async announce(projectId: number, topic: string, event: string, data: unknown, audience: Audience): Promise<void> {
    // Consoles are told on a best-effort basis: the database already holds the truth.
    await this.announcer?.publish(projectId, topic, event, data, audience).catch(() => undefined);
  }

  /** Many announcements, in order, one round trip per project when the announcer can. */
  private async announceMany(
    events: readonly { projectId: number; topic: string; event: string; data: unknown; audience: Audience }[],
  ): Promise<void> {
    const announcer = this.announcer;
    if (!announcer || !events.length) return;
    const byProject = new Map<number, { topic: string; event: string; data: unknown; audience: Audience }[]>();
    for (const { projectId, ...e } of events) byProject.set(projectId, [...(byProject.get(projectId) ?? []), e]);
    await Promise.all(
      [...byProject].map(([projectId, list]) =>
        (announcer.publishMany
          ? announcer.publishMany(projectId, list)
          : Promise.all(list.map((e) => announcer.publish(projectId, e.topic, e.event, e.data, e.audience)))
        ).catch(() => undefined),
      ),
    );
  }

  /** A device's report on a task; reports arriving together are written in one statement. */
  onTaskUpdate(serial: string, report: TaskUpdateReport): Promise<void> {
    return this.taskReports.add({ serial, report });
  }

  private async applyTaskReports(items: readonly { serial: string; report: TaskUpdateReport }[]): Promise<undefined[]> {
    const devices = await this.repo.bySerials([...new Set(items.map((i) => i.serial))]);
    const reports = items.flatMap(({ serial, report }) => {
      const d = devices.get(serial);
      return d ? [{ d, report }] : [];
    });
    // Only along an allowed transition: a replayed or late result changes nothing.
    const moved = await this.repo.advanceMany(
      reports.map(({ d, report }) => ({ deviceId: d.id, taskId: report.task_id, state: report.state, error: report.error ?? null })),
    );
    const byTask = new Map(reports.map((r) => [`${r.d.id}:${r.report.task_id}`, r]));
    const done = moved.flatMap((t) => {
      const r = byTask.get(`${Number(t.device_id)}:${Number(t.id)}`);
      return r ? [{ task: { id: Number(t.id), state: t.state, type: t.type }, ...r }] : [];
    });
    for (const { task, report } of done) {
      if (report.state !== 'started') for (const wake of [...(this.taskWaiters.get(task.id) ?? [])]) wake();
    }
    await this.announceMany(
      done.map(({ task, d }) => ({
        projectId: d.projectId,
        topic: DEVICE_REALTIME.tasksTopic,
        event: DEVICE_REALTIME.events.task,
        data: { id: task.id, device_id: d.id, state: task.state },
        audience: deviceAudience(d, 'can_view_device_tasks'),
      })),
    );
    for (const { task, d, report } of done) {
      if (task.state === 'error') await this.taskFailed(d.projectId, d.id, task.id, task.type, report.error ?? 'error');
    }
    // A finished task lets the device's next one go.
    const finished = done.filter(({ report }) => report.state !== 'started').map(({ d }) => d.id);
    if (finished.length) await this.pumpMany(finished);
    if (done.some(({ task, report }) => task.type === 'broker_settings' && report.state !== 'started')) {
      // Not concluded now (the database away): the next sweep does it.
      await this.concludeBrokerSends().catch(() => undefined);
    }
    return items.map(() => undefined);
  }

  /**
   * Tells of a task that ended in error: the users the device's group names, and the administrator
   * e-mail. Called by the one instance whose write moved the task to error.
   */
  private async taskFailed(projectId: number, deviceId: number, taskId: number, taskType: string, error: string): Promise<void> {
    for (const u of await this.repo.notifyTargets(deviceId, 'notify_about_device_task_failed')) {
      await this.announcer?.notify(projectId, u.user_id, {
        type: 'device_task_failed',
        data: { device: u.device, device_id: deviceId, task_id: taskId, task_type: taskType, error },
        significance: 'important',
      });
    }
    await this.mailAdmin(projectId, { kind: 'device_task_failed', deviceId, taskType, error, at: new Date() });
  }

  private async mailAdmin(projectId: number, notice: DeviceNotice): Promise<void> {
    // The device's own state is already written: a mail that cannot be queued loses only the mail.
    await this.announcer?.mailAdmin?.(projectId, notice).catch(() => undefined);
  }

  /**
   * Takes an event for storage; `stored` is called once it is committed (the device may then be
   * told: PUBACK). An event of a serial that is no device is answered at once: there is nothing to store.
   */
  async onEvent(serial: string, report: EventReport, stored?: EventStored): Promise<void> {
    const receivedAt = this.receivedNow();
    const d = await this.eventDevice(serial);
    if (d) this.queueEvent(d, report, receivedAt, stored);
    else stored?.();
  }

  /**
   * onEvent without a promise, for the gateway's flood path: takes the event at once when its sender
   * is remembered (the common case) and says so; false when the sender must be looked up first
   * (then the gateway calls onEvent). An event of an unknown serial is taken and answered, as onEvent does.
   */
  acceptEvent(serial: string, report: EventReport, stored?: EventStored): boolean {
    const d = this.rememberedEventDevice(serial);
    if (d === undefined) return false;
    if (d) this.queueEvent(d, report, this.receivedNow(), stored);
    else stored?.();
    return true;
  }

  /**
   * Null while the intake has room; when it holds EVENTS_HELD_MAX unstored events (the database is
   * slow or away), a promise that resolves once it has room again: the gateway stops reading meanwhile.
   */
  /** Whether the intake holds EVENTS_HELD_MAX unstored events (eventRoom would wait). */
  eventsFull(): boolean {
    return this.eventsHeld >= this.opts.eventsHeldMax;
  }

  eventRoom(): Promise<void> | null {
    if (this.eventsHeld < this.opts.eventsHeldMax) return null;
    this.stats.eventIntakeFull++;
    return new Promise((r) => this.roomWaiters.push(r));
  }

  /** The device plane thread's heap and crashes, when this instance runs one (/metrics). */
  planeHealth(): PlaneHealth | null {
    return this.gateway?.planeHealth ?? null;
  }

  /**
   * The event intake as system information shows it: this service's counters, its gateway's, and
   * the device plane's own intake when it has one (its backlog holds what waits here too, so the
   * larger of the two counts).
   */
  intakeStats(): DeviceEventsInfo {
    const g = this.gateway?.stats;
    const p = this.gateway?.eventIntake;
    return {
      backlog: Math.max(this.eventsHeld, p?.backlog ?? 0),
      oldest_unstored_ms: Math.max(this.oldestUnstoredMs(), p?.oldestUnstoredMs ?? 0),
      stored: this.stats.storedEvents + (p?.stored ?? 0),
      acknowledged: g?.acknowledged ?? 0,
      awaiting_ack: g?.awaitingAck ?? 0,
      delayed: {
        write_retry: this.stats.eventWriteRetries + (p?.writeRetries ?? 0),
        intake_full: this.stats.eventIntakeFull + (p?.intakeFull ?? 0),
        read_paused: g?.readPaused ?? 0,
        deferred: g?.deferred ?? 0,
        reconnect_asked: g?.reconnectAsked ?? 0,
      },
      acks_of_closed_connections: g?.acksOfClosedConnections ?? 0,
      // The gateway's refusals (unreadable, overloaded…) and this service's (a message not following its device).
      refused: { ...(g?.dropped ?? {}), ...this.stats.refused },
      unstored_at_stop: this.stats.unstoredAtStop + (p?.unstoredAtStop ?? 0),
    };
  }

  /**
   * A batch of events from the device plane's thread (PGlite, which only this thread reaches): one
   * JSON text of [serial, report, receivedAt ms] tuples. Resolves once every one is stored (or
   * answered: an unknown sender has nothing to store), so the plane acknowledges them only then.
   */
  takeEvents(batch: string): Promise<void> {
    const events = JSON.parse(batch) as [string, EventReport, number][];
    return new Promise<void>((resolve, reject) => {
      let left = events.length;
      if (!left) return resolve();
      const done = () => {
        if (--left === 0) resolve();
      };
      let at = 0;
      let receivedAt = new Date(0);
      for (const [serial, report, ms] of events) {
        // Events received in the same millisecond share one Date, as receivedNow does.
        if (ms !== at) {
          at = ms;
          receivedAt = new Date(ms);
        }
        const when = receivedAt;
        const d = this.eventDevice(serial);
        if (d instanceof Promise) d.then((found) => (found ? this.queueEvent(found, report, when, done) : done()), reject);
        else if (d) this.queueEvent(d, report, when, done);
        else done();
      }
    });
  }

  /**
   * A batch the device plane committed itself (PostgreSQL): told to the listeners of stored events,
   * after the batches before it. One JSON text of the rows (gateways/mqtt/worker/protocol.ts StoredRow).
   */
  eventsStored(batch: string, types?: readonly string[]): void {
    // Read only when a listener wants one of its types: a flood of events nobody acts on (sensor
    // readings, say) costs the main thread no JSON parse, no objects and no garbage per event.
    let events: NewEvent[] | null = null;
    const read = () => {
      const rows = JSON.parse(batch) as [number, number, string, string | null, string | null, Record<string, unknown>, number, number][];
      return rows.map(([projectId, deviceId, type, identifier, eventId, data, occurred, received]) => ({
        projectId,
        deviceId,
        type,
        identifier,
        eventId,
        data,
        occurredAt: new Date(occurred),
        receivedAt: new Date(received),
      }));
    };
    this.told = this.told.then(async () => {
      for (const { listener, wants } of this.eventListeners) {
        try {
          if (types && wants && !(await wants(types))) continue;
          events ??= read();
          await listener(events);
        } catch {
          this.stats.listenerErrors++;
        }
      }
    });
  }

  /** Events received and not stored yet (so not acknowledged). */
  get eventsHeld(): number {
    return this.pending.length + this.rowsInFlight;
  }

  /** How long the oldest event not stored yet has waited (ms; 0: none waits). */
  oldestUnstoredMs(now = Date.now()): number {
    const first = this.writing.values().next().value?.[0] ?? this.pending[0];
    return first ? Math.max(0, now - (first.receivedAt ?? first.occurredAt).getTime()) : 0;
  }

  private wakeRoomWaiters(): void {
    if (!this.roomWaiters.length || this.eventsHeld >= this.opts.eventsHeldMax / 2) return;
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }

  /** Now, as one Date shared by the events received in the same millisecond (a flood's thousands a second). */
  private receivedNow(): Date {
    const ms = Date.now();
    if (this.received?.getTime() !== ms) this.received = new Date(ms);
    return this.received;
  }

  private queueEvent(d: { id: number; projectId: number }, report: EventReport, receivedAt: Date, stored: EventStored | undefined): void {
    const at = report.time ? new Date(report.time) : receivedAt;
    this.pending.push({
      projectId: d.projectId,
      deviceId: d.id,
      type: report.type,
      identifier: report.identifier ?? null,
      eventId: report.event_id ?? null,
      data: report.data ?? {},
      occurredAt: Number.isNaN(at.getTime()) ? receivedAt : at,
      receivedAt,
    });
    this.pendingAcks.push(stored);
    if (this.pending.length >= this.opts.eventBatch) void this.flushEvents();
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => void this.flushEvents(), this.opts.eventFlushMs);
      this.flushTimer.unref();
    }
  }

  /**
   * Which device an event is from, remembered: events come in floods, and a query per event would be
   * the bottleneck. A device found more than 10 s ago is still used once while it is looked up again
   * in the background, so a device's events never wait for that; the senders looked up in one turn
   * share one query. Events of a device deleted meanwhile are dropped at insert.
   */
  private eventDevice(serial: string): Promise<{ id: number; projectId: number } | null> | { id: number; projectId: number } | null {
    const remembered = this.rememberedEventDevice(serial);
    return remembered === undefined ? this.lookUpSerial(serial) : remembered;
  }

  /** The sender as remembered (null: no such device), or undefined when it must be looked up (again) first. */
  private rememberedEventDevice(serial: string): { id: number; projectId: number } | null | undefined {
    const now = Date.now();
    const hit = this.eventDevices.get(serial);
    // An unknown serial is asked again once stale (the device may have been added since); a known one is used meanwhile.
    if (!hit || (hit.until <= now && !hit.device)) return undefined;
    if (hit.until <= now) {
      hit.until = now + 10_000; // one refresh at a time
      this.lookUpSerial(serial).catch(() => {
        hit.until = 0; // asked again by the next event
      });
    }
    return hit.device;
  }

  private lookUpSerial(serial: string): Promise<{ id: number; projectId: number } | null> {
    return new Promise((resolve, reject) => {
      if (!this.serialLookups) {
        this.serialLookups = new Map();
        setImmediate(() => void this.resolveSerials());
      }
      const waiting = this.serialLookups.get(serial) ?? [];
      waiting.push((d, err) => (err === undefined ? resolve(d) : reject(err)));
      this.serialLookups.set(serial, waiting);
    });
  }

  private async resolveSerials(): Promise<void> {
    const batch = this.serialLookups;
    this.serialLookups = null;
    if (!batch) return;
    const serials = [...batch.keys()];
    // A busy or absent database must delay a flood's events, not lose them: the lookup is tried
    // again until it answers (the events wait unacknowledged), or the service stops (then they are
    // failed handlers, unacknowledged: their devices send them again).
    let found: Map<string, { id: number; projectId: number }> | undefined;
    let error: unknown;
    for (let attempt = 1; !found; attempt++) {
      try {
        found = await this.repo.idsOfSerials(serials);
      } catch (e) {
        if (this.stopping) {
          error = e ?? new Error('device lookup failed');
          break;
        }
        await new Promise((r) => setTimeout(r, Math.min(EVENT_RETRY_MAX_MS, 250 * 2 ** attempt)));
      }
    }
    const until = Date.now() + 10_000;
    if (found && this.eventDevices.size + serials.length > 100_000) this.eventDevices.clear();
    for (const [serial, waiting] of batch) {
      const device = found?.get(serial) ?? null;
      if (found) this.eventDevices.set(serial, { device, until });
      for (const w of waiting) w(device, found ? undefined : error);
    }
  }

  /**
   * One batch, tried again while the database is busy or away, with a growing pause, until it is
   * stored: its events are acknowledged to their devices only then, so giving up would lose what the
   * devices no longer hold. Only a stopping service gives up (its devices send the events again).
   */
  private async storeEvents(batch: readonly NewEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.repo.insertEvents(batch);
      } catch (e) {
        if (this.stopping) throw e;
        this.stats.eventWriteRetries++;
        await new Promise((r) => setTimeout(r, Math.min(EVENT_RETRY_MAX_MS, 250 * 2 ** attempt)));
      }
    }
  }

  /**
   * Writes the events received so far; resolves when they are stored and the listeners have had
   * them. Batches are written in arrival order: where COPY runs on its own thread (pipelinesEvents),
   * a batch is handed over without waiting for the one before (up to EVENT_ROWS_IN_FLIGHT events);
   * elsewhere one at a time. What arrives while no write can start joins the next batch, so under load batches
   * grow (up to ten times `eventBatch` rows per statement, fifty with COPY) instead of queueing up.
   * Listeners get the batches in the order they were written.
   */
  flushEvents(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.queuedFlush) {
      const started = this.flushing.then(() => this.startWrite());
      this.flushing = started.then(() => undefined);
      this.queuedFlush = started.then(({ told }) => told);
    }
    return this.queuedFlush;
  }

  /**
   * Once a write may start, takes the pending events as one batch and starts storing it; resolves
   * (once handed over) with a promise of the batch stored and told to the listeners (wrapped: a
   * promise resolved with a promise would wait for it).
   */
  private async startWrite(): Promise<{ told: Promise<void> }> {
    const pipelined = this.repo.pipelinesEvents;
    while (pipelined ? this.rowsInFlight >= EVENT_ROWS_IN_FLIGHT : this.rowsInFlight > 0) {
      await new Promise<void>((r) => this.slotWaiters.push(r));
    }
    this.queuedFlush = null; // from here on, new events wait for the next write
    // COPY takes a backlog in few writes (each costs its round trips); one statement's JSON parameter stays smaller.
    const max = this.opts.eventBatch * (this.repo.copiesEvents ? 50 : 10);
    const batch = this.pending.length <= max ? this.pending : this.pending.slice(0, max);
    const acks = batch === this.pending ? this.pendingAcks : this.pendingAcks.slice(0, max);
    this.pending = batch === this.pending ? [] : this.pending.slice(max);
    this.pendingAcks = acks === this.pendingAcks ? [] : this.pendingAcks.slice(max);
    if (this.pending.length) void this.flushEvents();
    if (!batch.length) return { told: this.told };
    this.rowsInFlight += batch.length;
    this.writing.add(batch);
    const stored = this.storeEvents(batch).then(
      () => {
        this.stats.storedEvents += batch.length;
        // Committed: now, and only now, the devices may be told (PUBACK).
        for (const ack of acks) ack?.();
        return true;
      },
      () => {
        // Only a stopping service gives up: unacknowledged, the events are sent again by their devices.
        this.stats.unstoredAtStop += batch.length;
        return false;
      },
    );
    void stored.then(() => {
      this.rowsInFlight -= batch.length;
      this.writing.delete(batch);
      this.slotWaiters.shift()?.();
      this.wakeRoomWaiters();
    });
    this.told = this.told.then(async () => {
      if (!(await stored)) return;
      let types: string[] | null = null;
      for (const { listener, wants } of this.eventListeners) {
        try {
          if (wants) {
            types ??= [...new Set(batch.map((e) => e.type))];
            if (!(await wants(types))) continue;
          }
          await listener(batch);
        } catch {
          this.stats.listenerErrors++;
        }
      }
    });
    return { told: this.told };
  }

  /** A sync acknowledgement counts only for a sync task of that very device still waiting for its result. */
  async onSyncAck(serial: string, report: SyncAckReport): Promise<void> {
    const d = await this.eventDevice(serial);
    if (!d) return;
    if (!(await this.repo.isPendingSync(d.id, report.task_id))) {
      this.stats.refused.sync_ack_foreign++;
      return;
    }
    await this.repo.setSyncErrors(d.id, report.errors ?? []);
  }

  /** A device asks for a full sync (it holds nothing, or no longer trusts what it holds). */
  onSyncRequest(serial: string, _report: SyncRequestReport): Promise<void> {
    this.stats.syncRequests++;
    return this.syncRequests.add(serial);
  }

  private async applySyncRequests(serials: readonly string[]): Promise<undefined[]> {
    const found = await this.repo.idsOfSerials(serials);
    const ids = [...new Set([...found.values()].map((d) => d.id))];
    const queued = await this.db.transaction((tx) => this.queueFullSync(tx, ids, null));
    if (queued.length) await this.pumpMany(queued);
    return serials.map(() => undefined);
  }

  /**
   * Queues a full sync of the devices that have none waiting or on its way (a device asking twice, or
   * asking right after its init, gets one), in place of their delta syncs not sent yet. Answers the
   * devices it queued one for.
   */
  private async queueFullSync(tx: Tx, deviceIds: readonly number[], actor: Actor | null): Promise<number[]> {
    if (!this.fullSync || !deviceIds.length) return [];
    const open = await this.repo.withOpenFullSync(tx, deviceIds);
    const need = deviceIds.filter((id) => !open.has(id));
    if (!need.length) return need;
    // Before the full sync is built, so that what the stopped deltas carried is in it.
    await this.repo.supersedeDeltas(tx, need);
    await this.fullSync(tx, need, actor);
    return need;
  }

  // --- dispatch ----------------------------------------------------------------------------------

  /**
   * Hands the next task of each ready device (or of one device) to the gateway. Safe to call from
   * any instance at any time: claiming is SKIP LOCKED in the database.
   */
  pump(deviceId: number | null): Promise<void> {
    return this.pumpMany(deviceId === null ? null : [deviceId]);
  }

  /**
   * As pump for several devices (null: every ready device). The calls of one turn, and those made
   * while the passes already running hold every slot, share one pass, which claims for all their
   * devices in one statement. Passes may overlap: claiming is SKIP LOCKED, and a device's later task
   * is never claimed while an earlier one is open, whichever pass looks.
   */
  private pumpMany(deviceIds: readonly number[] | null): Promise<void> {
    let q = this.pumpQueued;
    if (!q) {
      const next = { all: false, devices: new Set<number>(), done: Promise.resolve() };
      next.done = new Promise<void>((r) => setImmediate(r))
        .then(() => this.pumpSlot())
        .then(() => this.pumpPass(next))
        .finally(() => this.pumpRelease());
      this.pumpQueued = next;
      q = next;
    }
    if (deviceIds === null) q.all = true;
    else for (const id of deviceIds) q.devices.add(id);
    return q.done;
  }

  private async pumpSlot(): Promise<void> {
    if (this.pumpActive < PUMP_PASSES) {
      this.pumpActive++;
      return;
    }
    await new Promise<void>((r) => this.pumpWaiting.push(r)); // handed a slot by a pass that ended
  }

  private pumpRelease(): void {
    const next = this.pumpWaiting.shift();
    if (next) next();
    else this.pumpActive--;
  }

  private async pumpPass(q: { all: boolean; devices: Set<number> }): Promise<void> {
    if (this.pumpQueued === q) this.pumpQueued = null; // from here on, callers wait for the next pass
    try {
      if (!this.gateway) return;
      if (q.all) {
        for (let more = true; more; ) {
          const claimed = await this.repo.claim(null, 100);
          await this.send(claimed);
          more = claimed.length === 100;
        }
        return;
      }
      // Each device gives at most its head task.
      const ids = [...q.devices];
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        await this.send(await this.repo.claim(chunk, chunk.length));
      }
    } catch {
      // The task stays in the table; the next sweep (of any instance) sends it.
    }
  }

  private async send(tasks: readonly ClaimedTask[]) {
    const gateway = this.gateway;
    if (!gateway) return;
    const news: Parameters<typeof this.announceMany>[0][number][] = [];
    await Promise.all(
      tasks.map(async (t) => {
        let state = 'queued';
        try {
          await gateway.sendTask(t.serial, { id: t.id, type: t.type, payload: t.payload });
        } catch (e) {
          if (e instanceof InvalidTaskError) {
            // It could never go: it fails now, with the reason, instead of waiting for ever.
            await this.repo.setTask(this.db, t.id, { state: 'error', error: e.message, finishedAt: new Date() });
            state = 'error';
            await this.taskFailed(t.projectId, t.deviceId, t.id, t.type, e.message);
          } else {
            // Not handed over: it waits, and is sent again when the device is next seen online.
            await this.repo.setTask(this.db, t.id, { state: 'waiting' });
            state = 'waiting';
          }
        }
        news.push({
          projectId: t.projectId,
          topic: DEVICE_REALTIME.tasksTopic,
          event: DEVICE_REALTIME.events.task,
          data: { id: t.id, device_id: t.deviceId, state },
          audience: deviceAudience(t, 'can_view_device_tasks'),
        });
      }),
    );
    await this.announceMany(news);
  }

  /**
   * Ends the open tasks of devices on http (stored before that protocol was refused) as errors with
   * the reason, telling whom a failed task is told to: no HTTP endpoint for devices exists to run them.
   */
  async failUnservedTasks(): Promise<number> {
    const failed = await this.repo.failUnservedTasks(UNSERVED_PROTOCOL_ERROR);
    for (const t of failed) await this.taskFailed(t.project_id, t.device_id, t.id, t.type, UNSERVED_PROTOCOL_ERROR);
    return failed.length;
  }

  /** Sends what is ready and what an instance sent without an answer within the lease. */
  async sweep(): Promise<void> {
    await this.applyAccountChanges();
    if (!this.gateway) return;
    try {
      await this.send(await this.repo.reclaimStale(this.opts.leaseSeconds, 100));
      await this.pump(null);
      await this.concludeBrokerSends();
    } catch {
      // The next sweep tries again (a lost connection, a closing database).
    }
  }
}
