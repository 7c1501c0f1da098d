import {
  IP_BAN_CAUSES,
  IP_BLOCKING_DEFAULTS,
  IP_BLOCKING_SERVICES,
  type IpBan,
  type IpBanListQuery,
  type IpBlockingRule,
  type IpBlockingServiceName,
  type IpBlockingService as IpBlockingServiceState,
  type IpBlockingStatusBody,
  type IpWhitelistEntry,
  type ListMeta,
  VALIDATION_MESSAGES,
} from '@atrium/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AttemptCounter } from '../../core/attempts.js';
import { recordAudit } from '../../core/audit.js';
import type { RequestContext } from '../../core/context.js';
import type { Database, Db } from '../../core/db/client.js';
import { AppError } from '../../core/errors.js';
import type { SipDirectory } from '../../sip/types.js';
import { AddressSet, canonicalAddress, canonicalEntry } from './addresses.js';
import type { BanRow, IpBlockingRepository } from './ip-blocking.repository.js';

/** What every instance holds in memory, so that no request waits on the database to be let in. */
interface State {
  rules: Record<IpBlockingServiceName, IpBlockingRule>;
  /** `service|ip` → epoch ms the ban ends. */
  bans: Map<string, number>;
  whitelist: Record<IpBlockingServiceName, AddressSet>;
}

const TABLES = new Set(['ip_blocking_services', 'ip_bans', 'ip_whitelist']);
const banKey = (service: string, ip: string) => `${service}|${ip}`;
const attemptKey = (service: string, ip: string) => `ipblock:${service}:${ip}`;
const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

const emptyState = (): State => ({
  rules: { ...IP_BLOCKING_DEFAULTS },
  bans: new Map(),
  whitelist: Object.fromEntries(IP_BLOCKING_SERVICES.map((s) => [s, new AddressSet([])])) as State['whitelist'],
});

const toBan = (r: BanRow): IpBan => ({
  service: r.service as IpBlockingServiceName,
  ip: r.ip,
  cause: r.cause as IpBan['cause'],
  info: { failures: r.failures, window_seconds: r.windowSeconds, last_attempt: r.lastAttempt },
  banned_at: iso(r.bannedAt),
  expires_at: iso(r.expiresAt),
});

/**
 * IP blocking (spec comms §3, §7): each service counts its failures per address (in the database,
 * so every instance adds to one count) and bans an address that reaches its rule's limit; the bans,
 * rules and whitelist are held in memory and reloaded whenever any instance changes them (the
 * change feed), so enforcement costs a map lookup. A switched-off service neither counts nor bans.
 */
export class IpBlockingService {
  private state: State = emptyState();
  /** The read under way, and the one queued after it (shared by every call made meanwhile). */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly repo: IpBlockingRepository,
    private readonly attempts: AttemptCounter,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Loads the state and follows every change to it, this instance's and the others'. */
  async start(database: Database): Promise<void> {
    await database.onDataChange((table) => {
      if (table === null || TABLES.has(table)) void this.reload().catch((err) => this.log.error({ err }, 'ip blocking: reload failed'));
    });
    await this.reload();
  }

  /**
   * Reads the state again, resolving once a read that began after this call has ended: a write's
   * own reload must see the write. Calls while a read runs share one read queued after it, so a
   * burst of changes costs two reads, not one each.
   */
  reload(): Promise<void> {
    if (this.queued) return this.queued;
    const previous = this.running ?? Promise.resolve();
    const next: Promise<void> = previous
      .catch(() => undefined)
      .then(async () => {
        this.queued = null;
        this.running = next;
        await this.readState();
      })
      .finally(() => {
        if (this.running === next) this.running = null;
      });
    this.queued = next;
    return next;
  }

  private async readState(): Promise<void> {
    const snap = await this.repo.snapshot();
    const next = emptyState();
    for (const s of snap.services) {
      if (!(IP_BLOCKING_SERVICES as readonly string[]).includes(s.name)) continue;
      next.rules[s.name as IpBlockingServiceName] = {
        is_enabled: s.isEnabled,
        max_failures: s.maxFailures,
        window_seconds: s.windowSeconds,
        ban_seconds: s.banSeconds,
      };
    }
    for (const b of snap.bans) next.bans.set(banKey(b.service, b.ip), new Date(b.expiresAt).getTime());
    for (const service of IP_BLOCKING_SERVICES) {
      next.whitelist[service] = new AddressSet(snap.whitelist.filter((w) => w.service === service).map((w) => w.ip));
    }
    this.state = next;
  }

  // --- enforcement (memory only) -------------------------------------------------------------------

  /** When the address's ban from the service ends, or null when it may call. */
  bannedUntil(service: IpBlockingServiceName, address: string, now = Date.now()): Date | null {
    const { rules, bans, whitelist } = this.state;
    // Asked for every SIP request and every API call: with nobody banned, the address need not be read.
    if (!rules[service].is_enabled || bans.size === 0) return null;
    const ip = canonicalAddress(address);
    const until = bans.get(banKey(service, ip));
    if (until === undefined || until <= now || whitelist[service].has(ip)) return null;
    return new Date(until);
  }

  /** Throws 403 "your ip address is banned" when the address is banned from the service. */
  assertAllowed(service: IpBlockingServiceName, address: string): void {
    const until = this.bannedUntil(service, address);
    if (until) throw new AppError('ip_banned', [{ service, until: until.toISOString() }]);
  }

  /**
   * Counts one failure of the address at the service, and bans it once the rule's limit is reached
   * within its window. Nothing is counted for a switched-off service, a whitelisted address, or one
   * already banned. `lastAttempt` says what was tried (a login, a SIP number), never a secret.
   */
  async failed(service: IpBlockingServiceName, address: string, lastAttempt: string | null = null): Promise<void> {
    const rule = this.state.rules[service];
    const ip = canonicalAddress(address);
    if (!rule.is_enabled || this.state.whitelist[service].has(ip) || this.bannedUntil(service, ip)) return;
    const key = attemptKey(service, ip);
    const failures = await this.attempts.count(key, rule.window_seconds);
    if (failures < rule.max_failures) return;
    const ban = await this.repo.ban(
      {
        service,
        ip,
        cause: IP_BAN_CAUSES[service],
        failures,
        windowSeconds: rule.window_seconds,
        lastAttempt: lastAttempt?.slice(0, 200) ?? null,
      },
      rule.ban_seconds,
    );
    await this.attempts.clear(key);
    this.state.bans.set(banKey(service, ip), new Date(ban.expiresAt).getTime());
    // A read begun before the ban was written (another change's) would replace the state without it:
    // the failure's answer leaves once a read after the write holds it.
    await this.reload();
    this.log.warn({ service, ip, failures, until: iso(ban.expiresAt) }, 'ip blocking: address banned');
  }

  /**
   * The SIP registrar's directory with IP blocking on it: REGISTERs from a banned address are
   * refused, and each one refused for its credentials counts as a failure of the sip service.
   */
  guardSipDirectory(directory: SipDirectory): SipDirectory {
    return {
      credentials: (number) => directory.credentials(number),
      route: (invite) => directory.route(invite),
      callerName: async (number) => (await directory.callerName?.(number)) ?? null,
      // A SIP trunk's peer is trusted unless its address is banned.
      trunkPeer: async (peer) => (this.bannedUntil('sip', peer.address) !== null ? null : ((await directory.trunkPeer?.(peer)) ?? null)),
      refusesRegistration: async (address) => this.bannedUntil('sip', address) !== null,
      registrationFailed: async (address, number) => {
        await this.failed('sip', address, number ? `number ${number}` : null).catch((err) =>
          this.log.error({ err }, 'ip blocking: failure not counted'),
        );
      },
    };
  }

  // --- the console's calls -------------------------------------------------------------------------

  status(now = Date.now()): IpBlockingServiceState[] {
    const { rules, bans, whitelist } = this.state;
    return IP_BLOCKING_SERVICES.map((name) => {
      let banned = 0;
      for (const [key, until] of bans) if (until > now && key.startsWith(`${name}|`)) banned++;
      return { name, ...rules[name], banned_count: banned, whitelist_count: whitelist[name].size };
    });
  }

  /** Switches services on or off and changes their rules; switching one off lifts its bans. */
  async setStatus(ctx: RequestContext, body: IpBlockingStatusBody): Promise<IpBlockingServiceState[]> {
    const before = this.state.rules;
    await this.db.transaction(async (tx) => {
      for (const item of body.data) {
        const was = before[item.name];
        const next: IpBlockingRule = {
          is_enabled: item.is_enabled,
          max_failures: item.max_failures ?? was.max_failures,
          window_seconds: item.window_seconds ?? was.window_seconds,
          ban_seconds: item.ban_seconds ?? was.ban_seconds,
        };
        await this.repo.upsertService(tx, {
          name: item.name,
          isEnabled: next.is_enabled,
          maxFailures: next.max_failures,
          windowSeconds: next.window_seconds,
          banSeconds: next.ban_seconds,
        });
        if (!next.is_enabled) await this.repo.deleteBans(tx, item.name);
        await recordAudit(tx, ctx, { entity: 'ip_blocking_service', entityId: item.name, action: 'update', before: was, after: next });
      }
    });
    await this.reload();
    return this.status();
  }

  async listBans(query: IpBanListQuery): Promise<{ data: IpBan[]; meta: ListMeta }> {
    const { rows, total } = await this.repo.listBans(query);
    return { data: rows.map(toBan), meta: { total, page: query.page, size: query.size } };
  }

  /** Lifts the bans of these addresses from the service; answers how many were lifted. */
  async unban(ctx: RequestContext, service: IpBlockingServiceName, ips: string[]): Promise<number> {
    const wanted = [...new Set(ips.map(canonicalAddress))];
    return this.lift(ctx, service, wanted, 'unban');
  }

  /** Lifts every ban, or every ban of one service. */
  async unbanAll(ctx: RequestContext, service?: IpBlockingServiceName): Promise<number> {
    return this.lift(ctx, service, undefined, 'unban_all');
  }

  private async lift(ctx: RequestContext, service: IpBlockingServiceName | undefined, ips: string[] | undefined, action: string) {
    const lifted = await this.db.transaction(async (tx) => {
      const bans = await this.repo.bansOf(tx, service, ips);
      await this.repo.deleteBans(tx, service, ips);
      await recordAudit(tx, ctx, {
        entity: 'ip_ban',
        entityId: service ?? null,
        action,
        before: bans.map((b) => ({ service: b.service, ip: b.ip })),
      });
      return bans;
    });
    // An unbanned address starts counting afresh (outside the transaction: one connection on PGlite).
    for (const b of lifted) await this.attempts.clear(attemptKey(b.service, b.ip));
    await this.reload();
    return lifted.length;
  }

  async whitelist(service?: IpBlockingServiceName): Promise<{ data: IpWhitelistEntry[]; meta: ListMeta }> {
    const rows = await this.repo.whitelist(service);
    return {
      data: rows.map((r) => ({ service: r.service as IpBlockingServiceName, ip: r.ip, created_at: iso(r.createdAt) })),
      meta: { total: rows.length, page: 1, size: rows.length },
    };
  }

  /**
   * Adds addresses and ranges to a service's whitelist, all or none: one already there (or named
   * twice) is 409 "ip already in whitelist" with the field. Bans they cover are lifted.
   */
  async addToWhitelist(ctx: RequestContext, service: IpBlockingServiceName, ips: string[]): Promise<IpWhitelistEntry[]> {
    const entries = this.canonicalEntries(ips);
    await this.db.transaction(async (tx) => {
      const present = new Set(await this.repo.whitelistedOf(tx, service, entries));
      const seen = new Set<string>();
      const clashes = entries.flatMap((ip, i) => {
        const clash = present.has(ip) || seen.has(ip);
        seen.add(ip);
        return clash ? [{ field: `ips.${i}`, message: 'ip already in whitelist', ip }] : [];
      });
      if (clashes.length) throw new AppError('ip_already_whitelisted', clashes);
      await this.repo.addToWhitelist(tx, service, entries, ctx.actor.userId);
      const covered = new AddressSet(entries);
      const lifted = (await this.repo.bansOf(tx, service)).filter((b) => covered.has(b.ip)).map((b) => b.ip);
      if (lifted.length) await this.repo.deleteBans(tx, service, lifted);
      await recordAudit(tx, ctx, {
        entity: 'ip_whitelist',
        entityId: service,
        action: 'create',
        after: { ips: entries, unbanned: lifted },
      });
    });
    await this.reload();
    return (await this.whitelist(service)).data.filter((e) => entries.includes(e.ip));
  }

  /** Removes addresses and ranges from a service's whitelist; answers how many were removed. */
  async removeFromWhitelist(ctx: RequestContext, service: IpBlockingServiceName, ips: string[]): Promise<number> {
    const entries = [...new Set(this.canonicalEntries(ips))];
    const removed = await this.db.transaction(async (tx) => {
      const present = await this.repo.whitelistedOf(tx, service, entries);
      await this.repo.removeFromWhitelist(tx, service, present);
      if (present.length)
        await recordAudit(tx, ctx, { entity: 'ip_whitelist', entityId: service, action: 'delete', before: { ips: present } });
      return present.length;
    });
    await this.reload();
    return removed;
  }

  private canonicalEntries(ips: string[]): string[] {
    return ips.map((ip, i) => {
      const entry = canonicalEntry(ip);
      if (!entry) throw new AppError('invalid_data', [{ field: `ips.${i}`, message: VALIDATION_MESSAGES.invalid_value }]);
      return entry;
    });
  }
}
