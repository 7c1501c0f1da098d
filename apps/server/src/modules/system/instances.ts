import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { ControllableWorker, SystemWorker, WorkerAction } from '@atrium/contract';
import { and, asc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import pg from 'pg';
import type { Database } from '../../core/db/client.js';
import { INSTANCE_SESSION_PREFIX } from '../devices/devices.repository.js';
import { instanceCommands, instances } from './instances.table.js';

/** How often an instance refreshes its row; three missed refreshes and it counts as gone. */
export const INSTANCE_BEAT_MS = 10_000;
export const INSTANCE_GONE_MS = 3 * INSTANCE_BEAT_MS;
/** Rows of instances gone this long are deleted by the others' beats. */
const FORGET_AFTER_MS = 24 * 3_600_000;
/** The NOTIFY payload that wakes the instance named after it for a command waiting in its queue. */
const WAKE_PREFIX = 'atrium-instance-command:';

export interface InstanceRecord {
  id: string;
  name: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  seen_at: string;
  workers: SystemWorker[];
}

interface WorkerControl {
  running(): boolean;
  start(): void;
  stop(): Promise<void>;
}

/** Carries out `action` on one worker; answers whether it runs afterwards. */
export async function actOnWorker(worker: WorkerControl, action: WorkerAction): Promise<boolean> {
  if (action !== 'start') await worker.stop();
  if (action !== 'stop') worker.start();
  return worker.running();
}

/**
 * This instance among the others on the same database: its row (name, process, version, workers)
 * refreshed every INSTANCE_BEAT_MS, the list of live instances for System info, and worker actions
 * asked of it by another instance (woken by NOTIFY, with the beat as a safety net).
 */
export class InstanceRegistry {
  readonly id: string;
  readonly name: string;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = new Date();
  private draining: Promise<void> | null = null;
  /** A wake heard while a pass was under way: its command may have come after that pass read the queue. */
  private again = false;

  constructor(
    private readonly database: Database,
    private readonly opts: {
      version: string;
      /** INSTANCE_NAME, else host:pid. */
      name?: string;
      workers: () => SystemWorker[];
      controls: Record<ControllableWorker, WorkerControl>;
      log?: { warn(obj: object, msg: string): void };
      /**
       * PostgreSQL's URL: the instance keeps a database session named after it for as long as it
       * runs, and the others read it as "alive" (a killed process's session ends at once).
       */
      sessionUrl?: string | undefined;
    },
  ) {
    this.id = randomBytes(8).toString('hex');
    this.name = opts.name ?? `${os.hostname()}:${process.pid}`;
  }

  /** The session that says this instance is alive (PostgreSQL). */
  private session: pg.Client | null = null;
  private stopped = false;

  /** Opens the named session, and opens it again whenever it is lost. */
  private async openSession(url: string): Promise<void> {
    const c = new pg.Client({ connectionString: url, application_name: `${INSTANCE_SESSION_PREFIX}${this.id}` });
    const again = () => {
      if (this.session !== c) return;
      this.session = null;
      if (!this.stopped) setTimeout(() => void this.openSession(url).catch(again), 1000).unref();
    };
    c.on('error', again);
    c.on('end', again);
    this.session = c;
    await c.connect();
  }

  async start(): Promise<void> {
    // Alive before it is listed: the others must never see its row without its session.
    if (this.opts.sessionUrl) {
      await this.openSession(this.opts.sessionUrl).catch((err) =>
        this.opts.log?.warn({ err }, 'instance: its named database session could not open; retrying'),
      );
    }
    await this.database.listen((payload) => {
      if (payload === `${WAKE_PREFIX}${this.id}`) this.drainCommands();
    });
    await this.beat();
    this.timer = setInterval(() => {
      void this.beat().catch((err) => this.opts.log?.warn({ err }, 'instance: its row could not be refreshed'));
    }, INSTANCE_BEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const session = this.session;
    this.session = null;
    await session?.end().catch(() => undefined);
    clearInterval(this.timer);
    this.timer = undefined;
    await this.draining?.catch(() => undefined);
    // Gone at once from the others' System info rather than after INSTANCE_GONE_MS. With the database
    // away the row stays, and the others forget it then: a shutdown must finish all the same.
    await this.database.db
      .delete(instances)
      .where(eq(instances.id, this.id))
      .catch((err) => this.opts.log?.warn({ err }, 'instance: its row could not be removed; the others will forget it'));
  }

  /** Refreshes this instance's row, forgets long-gone ones, and carries out commands a lost NOTIFY left waiting. */
  async beat(): Promise<void> {
    const row = {
      id: this.id,
      name: this.name,
      host: os.hostname(),
      pid: process.pid,
      version: this.opts.version,
      startedAt: this.startedAt,
      seenAt: sql`now()`,
      workers: this.opts.workers(),
    };
    await this.database.db
      .insert(instances)
      .values(row)
      .onConflictDoUpdate({ target: instances.id, set: { seenAt: sql`now()`, workers: row.workers } });
    const forget = sql`now() - make_interval(secs => ${FORGET_AFTER_MS / 1000})`;
    await this.database.db.delete(instances).where(lt(instances.seenAt, forget));
    await this.database.db.delete(instanceCommands).where(lt(instanceCommands.createdAt, forget));
    this.drainCommands();
  }

  /** The instances heard from within INSTANCE_GONE_MS, this one first, the others by start. */
  async live(): Promise<(InstanceRecord & { self: boolean })[]> {
    const rows = await this.database.db
      .select()
      .from(instances)
      .where(gt(instances.seenAt, sql`now() - make_interval(secs => ${INSTANCE_GONE_MS / 1000})`))
      .orderBy(asc(instances.startedAt));
    const all = rows.map((r) => ({
      id: r.id,
      name: r.name,
      host: r.host,
      pid: r.pid,
      version: r.version,
      started_at: r.startedAt.toISOString(),
      seen_at: r.seenAt.toISOString(),
      workers: r.id === this.id ? this.opts.workers() : (r.workers as SystemWorker[]),
      self: r.id === this.id,
    }));
    return [...all.filter((r) => r.self), ...all.filter((r) => !r.self)];
  }

  /**
   * Asks the live instance `instanceId` to carry out `action` on `worker`; answers whether the worker
   * runs afterwards, or null when that instance did not answer within `waitMs` (it may still do it).
   */
  async ask(instanceId: string, worker: ControllableWorker, action: WorkerAction, waitMs = 5_000): Promise<boolean | null> {
    const [cmd] = await this.database.db
      .insert(instanceCommands)
      .values({ instanceId, worker, action })
      .returning({ id: instanceCommands.id });
    await this.database.notify(`${WAKE_PREFIX}${instanceId}`);
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      const [row] = await this.database.db
        .select({ doneAt: instanceCommands.doneAt, isRunning: instanceCommands.isRunning })
        .from(instanceCommands)
        .where(eq(instanceCommands.id, cmd!.id));
      if (row?.doneAt) return row.isRunning ?? false;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  }

  /** Carries out the commands waiting for this instance, oldest first, one pass at a time. */
  private drainCommands(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = (async () => {
      const waiting = await this.database.db
        .select()
        .from(instanceCommands)
        .where(and(eq(instanceCommands.instanceId, this.id), isNull(instanceCommands.doneAt)))
        .orderBy(asc(instanceCommands.id));
      for (const c of waiting) {
        const control = this.opts.controls[c.worker as ControllableWorker];
        const running = control ? await actOnWorker(control, c.action as WorkerAction) : false;
        await this.database.db
          .update(instanceCommands)
          .set({ doneAt: sql`now()`, isRunning: running })
          .where(eq(instanceCommands.id, c.id));
      }
      // Its workers changed: the others' System info sees it at once, not at the next beat.
      if (waiting.length) {
        await this.database.db.update(instances).set({ seenAt: sql`now()`, workers: this.opts.workers() }).where(eq(instances.id, this.id));
      }
    })()
      .catch((err) => this.opts.log?.warn({ err }, 'instance: commands could not be carried out'))
      .finally(() => {
        this.draining = null;
        if (this.again && this.timer) {
          this.again = false;
          this.drainCommands();
        }
      });
  }
}
