import type { IpBlockingServiceName } from '@atrium/contract';
import { and, count, desc, eq, gt, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../core/db/client.js';
import { containsPattern } from '../../core/list-query.js';
import { ipBans, ipBlockingServices, ipWhitelist } from './ip-blocking.table.js';

export type ServiceRow = typeof ipBlockingServices.$inferSelect;
export type BanRow = typeof ipBans.$inferSelect;
export type WhitelistRow = typeof ipWhitelist.$inferSelect;

/** The IP blocking tables: services' rules, bans and the whitelist. */
export class IpBlockingRepository {
  constructor(private readonly db: Db) {}

  /** Everything each instance keeps in memory: rules, bans in force, whitelist entries. */
  async snapshot(): Promise<{ services: ServiceRow[]; bans: Pick<BanRow, 'service' | 'ip' | 'expiresAt'>[]; whitelist: WhitelistRow[] }> {
    const services = await this.db.select().from(ipBlockingServices);
    const bans = await this.db
      .select({ service: ipBans.service, ip: ipBans.ip, expiresAt: ipBans.expiresAt })
      .from(ipBans)
      .where(gt(ipBans.expiresAt, sql`now()`));
    const whitelist = await this.db.select().from(ipWhitelist);
    return { services, bans, whitelist };
  }

  async upsertService(tx: DbOrTx, row: Omit<ServiceRow, 'updatedAt'>): Promise<void> {
    const { name, ...rest } = row;
    await tx
      .insert(ipBlockingServices)
      .values({ ...row, updatedAt: sql`now()` })
      .onConflictDoUpdate({ target: ipBlockingServices.name, set: { ...rest, updatedAt: sql`now()` } });
  }

  /** Bans (or bans again, from now) an address; expired bans are swept away on the way. */
  async ban(row: Omit<BanRow, 'bannedAt' | 'expiresAt'>, banSeconds: number): Promise<BanRow> {
    await this.db.delete(ipBans).where(lte(ipBans.expiresAt, sql`now()`));
    const expiresAt = sql`now() + make_interval(secs => ${banSeconds})`;
    const [saved] = await this.db
      .insert(ipBans)
      .values({ ...row, bannedAt: sql`now()`, expiresAt })
      .onConflictDoUpdate({
        target: [ipBans.service, ipBans.ip],
        set: {
          cause: row.cause,
          failures: row.failures,
          windowSeconds: row.windowSeconds,
          lastAttempt: row.lastAttempt,
          bannedAt: sql`now()`,
          expiresAt,
        },
      })
      .returning();
    if (!saved) throw new Error('ban not saved');
    return saved;
  }

  private banFilter(service?: IpBlockingServiceName, q?: string): SQL {
    const parts: SQL[] = [gt(ipBans.expiresAt, sql`now()`)];
    if (service) parts.push(eq(ipBans.service, service));
    if (q) parts.push(sql`${ipBans.ip} ILIKE ${containsPattern(q)}`);
    return and(...parts) as SQL;
  }

  async listBans(opts: {
    service?: IpBlockingServiceName;
    q?: string;
    page: number;
    size: number;
  }): Promise<{ rows: BanRow[]; total: number }> {
    const where = this.banFilter(opts.service, opts.q);
    const rows = await this.db
      .select()
      .from(ipBans)
      .where(where)
      .orderBy(desc(ipBans.bannedAt), ipBans.service, ipBans.ip)
      .limit(opts.size)
      .offset((opts.page - 1) * opts.size);
    const [row] = await this.db.select({ n: count() }).from(ipBans).where(where);
    return { rows, total: Number(row?.n ?? 0) };
  }

  async bansOf(tx: DbOrTx, service: IpBlockingServiceName | undefined, ips?: string[]): Promise<BanRow[]> {
    const parts: SQL[] = [gt(ipBans.expiresAt, sql`now()`)];
    if (service) parts.push(eq(ipBans.service, service));
    if (ips) parts.push(inArray(ipBans.ip, ips));
    return tx
      .select()
      .from(ipBans)
      .where(and(...parts));
  }

  /** Lifts bans: of these addresses in a service, of a whole service, or every ban. */
  async deleteBans(tx: DbOrTx, service: IpBlockingServiceName | undefined, ips?: string[]): Promise<void> {
    const parts: SQL[] = [];
    if (service) parts.push(eq(ipBans.service, service));
    if (ips) parts.push(inArray(ipBans.ip, ips));
    await tx.delete(ipBans).where(parts.length ? and(...parts) : undefined);
  }

  async whitelist(service?: IpBlockingServiceName): Promise<WhitelistRow[]> {
    return this.db
      .select()
      .from(ipWhitelist)
      .where(service ? eq(ipWhitelist.service, service) : undefined)
      .orderBy(ipWhitelist.service, ipWhitelist.ip);
  }

  async whitelistedOf(tx: DbOrTx, service: IpBlockingServiceName, ips: string[]): Promise<string[]> {
    const rows = await tx
      .select({ ip: ipWhitelist.ip })
      .from(ipWhitelist)
      .where(and(eq(ipWhitelist.service, service), inArray(ipWhitelist.ip, ips)));
    return rows.map((r) => r.ip);
  }

  async addToWhitelist(tx: DbOrTx, service: IpBlockingServiceName, ips: string[], createdBy: number): Promise<void> {
    await tx.insert(ipWhitelist).values(ips.map((ip) => ({ service, ip, createdBy })));
  }

  async removeFromWhitelist(tx: DbOrTx, service: IpBlockingServiceName, ips: string[]): Promise<void> {
    await tx.delete(ipWhitelist).where(and(eq(ipWhitelist.service, service), inArray(ipWhitelist.ip, ips)));
  }
}
