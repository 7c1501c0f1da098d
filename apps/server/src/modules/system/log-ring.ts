import { LOG_LEVELS, type LogLevel, type SystemLogEntry, type SystemLogQuery } from '@atrium/contract';

/** Pino's numeric levels. */
const LEVEL_OF: Record<number, LogLevel> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const NUMBER_OF = Object.fromEntries(Object.entries(LEVEL_OF).map(([n, l]) => [l, Number(n)])) as Record<LogLevel, number>;
/** Fields every line has, shown in their own columns rather than among the others. */
const OWN = new Set(['time', 'level', 'msg', 'pid', 'hostname', 'reqId']);

interface Writable {
  write(line: string): unknown;
}

/**
 * The logger's destination: each line goes on to `next` (standard output) and the last `capacity`
 * lines stay in memory for System info's recent logs. Lines arrive already serialised by pino, so
 * its redaction (core/log-redact.ts) has been applied to everything kept here.
 */
export class LogRing implements Writable {
  private readonly lines: Array<{ seq: number; raw: string }> = [];
  private head = 0;
  private seq = 0;

  constructor(
    readonly capacity: number,
    private readonly next: Writable | null = process.stdout,
  ) {}

  write(line: string): boolean {
    this.next?.write(line);
    const kept = { seq: ++this.seq, raw: line };
    if (this.lines.length < this.capacity) this.lines.push(kept);
    else {
      this.lines[this.head] = kept;
      this.head = (this.head + 1) % this.capacity;
    }
    return true;
  }

  get held(): number {
    return this.lines.length;
  }

  /** The newest `limit` lines at `level` or above containing `q` (any case), newest first. */
  read(query: SystemLogQuery): SystemLogEntry[] {
    const min = query.level ? NUMBER_OF[query.level] : 0;
    const q = query.q?.toLowerCase();
    const out: SystemLogEntry[] = [];
    for (let i = this.lines.length - 1; i >= 0 && out.length < query.limit; i--) {
      const { seq, raw } = this.lines[(this.head + i) % this.lines.length] as { seq: number; raw: string };
      if (q && !raw.toLowerCase().includes(q)) continue;
      const entry = parseLine(seq, raw);
      if (entry && NUMBER_OF[entry.level] >= min) out.push(entry);
    }
    return out;
  }
}

function parseLine(seq: number, raw: string): SystemLogEntry | null {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return null;
  }
  const level =
    typeof obj.level === 'number'
      ? LEVEL_OF[obj.level]
      : (LOG_LEVELS as readonly unknown[]).includes(obj.level)
        ? (obj.level as LogLevel)
        : undefined;
  if (!level) return null;
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!OWN.has(k)) fields[k] = v;
  return {
    seq,
    time: new Date(typeof obj.time === 'number' || typeof obj.time === 'string' ? obj.time : Date.now()).toISOString(),
    level,
    msg: typeof obj.msg === 'string' ? obj.msg : '',
    request_id: typeof obj.reqId === 'string' ? obj.reqId : null,
    fields,
  };
}
