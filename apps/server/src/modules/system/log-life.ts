import { LOG_TABLES, type LogLifeRepository, type LogTableName } from './log-life.repository.js';

export interface LogLifeOptions {
  /** How often a pass runs (default hourly); the first one runs `firstDelayMs` after the start. */
  intervalMs?: number;
  firstDelayMs?: number;
  /** Rows per DELETE statement: short statements, so writers and readers of a log never wait long. */
  batch?: number;
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/**
 * Keeps the logs as long as each project's general settings say ("logs life", days; spec comms §3):
 * audit events, device and access events, call history, finished device tasks, webhook deliveries,
 * sent mail, the logs of processed alarms and of ended reservations. Every instance runs it (System
 * info lists it with start, stop and restart); rows are claimed with SKIP LOCKED, so instances running
 * together share the work instead of waiting on each other.
 */
export class LogLifeWorker {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<unknown> | null = null;
  private stopping = false;

  constructor(
    private readonly repo: LogLifeRepository,
    private readonly opts: LogLifeOptions = {},
  ) {}

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.stopping = false;
    const every = this.opts.intervalMs ?? 3_600_000;
    const tick = () => {
      if (!this.pass) this.pass = this.pruneOnce().finally(() => (this.pass = null));
    };
    const schedule = (ms: number) => {
      this.timer = setTimeout(() => {
        tick();
        if (this.timer) schedule(every);
      }, ms);
      this.timer.unref();
    };
    schedule(this.opts.firstDelayMs ?? 60_000);
  }

  /** Stops the timer; a pass under way ends after its current batch. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stopping = true;
    await this.pass?.catch(() => undefined);
    this.stopping = false;
  }

  /** One pass over every project and log; answers how many rows of each went. */
  async pruneOnce(): Promise<Record<LogTableName, number>> {
    const batch = this.opts.batch ?? 5000;
    const gone = Object.fromEntries(LOG_TABLES.map((l) => [l.name, 0])) as Record<LogTableName, number>;
    try {
      for (const p of await this.repo.projects()) {
        if (!(p.days > 0)) continue;
        for (const log of LOG_TABLES) {
          for (;;) {
            if (this.stopping) return gone;
            const n = await this.repo.prune(log, p.id, p.days, batch);
            gone[log.name] += n;
            if (n < batch) break;
            // Let requests in between batches.
            await new Promise((r) => setImmediate(r));
          }
        }
      }
      const total = Object.values(gone).reduce((a, b) => a + b, 0);
      if (total) this.opts.log?.info({ gone }, 'log life: old log rows deleted');
      await this.repo.forgetOldRateCounters();
    } catch (err) {
      // The next pass tries again (a lost connection, a closing database).
      this.opts.log?.error({ err }, 'log life: pass failed');
    }
    return gone;
  }
}
