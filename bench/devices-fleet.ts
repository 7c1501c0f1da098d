// The devices benchmark's simulated fleet, spread over child processes (tools/device-sim as a
// library in each): ten thousand MQTT clients and twenty thousand events a second in the bench's own
// process made the fleet, not Atrium, the bottleneck. Each child runs its slice of the devices and
// its share of the event rate, and answers the parent over IPC. The devices speak through
// device-sim's lean MQTT client (docs/decisions.md: 11 µs of the fleet's CPU per event against
// mqtt.js's 23–24 µs, on the cores the server is measured on); BENCH_FLEET_CLIENT=mqtt.js compares.

import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { Fleet } from '@atrium/device-sim';

/** What the parent asks of a child. */
type Command =
  | { cmd: 'start'; url: string; serials: string[]; password: string; concurrency: number; attempts: number }
  | { cmd: 'events'; round: number; total: number; rate: number; window?: number; ids?: boolean; resend?: boolean }
  | { cmd: 'stop' };

/** What a child answers. */
type Answer =
  | { type: 'started'; refused: { serial: string; error: string }[]; retried: number; recovered: number; connected: number }
  | { type: 'sent'; round: number; sent: number; ms: number; behind: number; kept: number }
  | { type: 'acked'; round: number; acked: number; failed: number; resent: number; failures: string; ms: number; ids?: string[] }
  | { type: 'stopped' }
  | { type: 'error'; message: string };

export interface EventsOutcome {
  sent: number;
  /** Until the last child had sent its share (ms from the start). */
  sentMs: number;
  behind: number;
  /** Events offered that a device kept (its window of unacknowledged events was full): never sent, never acknowledged. */
  kept: number;
}

export interface AckOutcome {
  acked: number;
  /** With `ids`: the event id of every acknowledged event (to find each in the table). */
  ids: string[];
  failed: number;
  /** With `resend`: publishes sent again (same event id) after their connection closed before the PUBACK. */
  resent: number;
  /** Why publishes failed or were sent again, with a count for each reason. */
  failures: string;
  ackedMs: number;
}

/** The parent's handle on the fleet's processes. */
export class ProcessFleet {
  /**
   * Numbers each `events` call: its event ids carry it (the server stores an event id once, so a
   * second round reusing the first's ids would be taken as re-sends and stored as nothing), and its
   * answers are told apart from a round before whose acknowledgements arrive late.
   */
  private round = 0;

  private constructor(private readonly children: ChildProcess[]) {}

  /** Forks `processes` children (each a Node process running this file with tsx). */
  static spawn(processes: number): ProcessFleet {
    const children = Array.from({ length: processes }, () =>
      fork(import.meta.filename, ['child'], {
        // BENCH_FLEET_PROF=dir: each fleet process runs with --cpu-prof there (to see what the load generator costs).
        execArgv: [
          ...(process.env.BENCH_FLEET_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_FLEET_PROF] : []),
          // A young generation large enough that an event's garbage (its message, id, closures, packet
          // and promise, alive until its PUBACK) dies there: with Node's default the collector took a
          // third of the fleet's CPU (CPU profile, 2,000 devices), and the fleet shares the server's
          // two cores. The burst's fleet CPU per event, one run each: 30 µs at the default, 24 at 64 MB,
          // 19 at 128 MB.
          '--max-semi-space-size=128',
          // BENCH_FLEET_FLAGS="--flag …": Node options for the fleet's processes alone.
          ...(process.env.BENCH_FLEET_FLAGS ? process.env.BENCH_FLEET_FLAGS.split(' ') : []),
          '--import',
          'tsx',
        ],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        // A session of its own per child: with Linux's autogroup scheduling its priority can then be
        // lowered against the server's, the database's and the bench's own (see setPriority).
        detached: true,
      }),
    );
    return new ProcessFleet(children);
  }

  /**
   * The fleet's scheduling priority (nice value, 0 normal, 19 lowest): lowered while the server's
   * capacity is measured, so on a small machine the server and the database get the cores first and
   * the fleet what is left (it then sends as fast as that allows).
   */
  setPriority(nice: number): void {
    for (const c of this.children) {
      if (!c.pid) continue;
      try {
        os.setPriority(c.pid, nice);
      } catch {
        // not permitted here (raising a priority needs privileges): the figure is then taken at equal priority
      }
      // With autogroup scheduling the cores are divided between sessions before nice values count
      // inside one: the child's session (it leads one, see spawn) gets the same nice value, or a
      // fleet sharing two cores with the server would keep its third of them whatever its nice value.
      try {
        writeFileSync(`/proc/${c.pid}/autogroup`, String(nice));
      } catch {
        // no autogroup (another OS, or autogroup off): the process nice value above is what counts
      }
    }
  }

  get processes(): number {
    return this.children.length;
  }

  /** The children's process ids (to read what they cost). */
  get pids(): number[] {
    return this.children.flatMap((c) => (c.pid ? [c.pid] : []));
  }

  private next<T extends Answer['type']>(child: ChildProcess, type: T, round?: number): Promise<Extract<Answer, { type: T }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: Answer) => {
        if (m.type === 'error') {
          cleanup();
          reject(new Error(`fleet process ${child.pid}: ${m.message}`));
        } else if (m.type === type && (round === undefined || ('round' in m && m.round === round))) {
          cleanup();
          resolve(m as Extract<Answer, { type: T }>);
        }
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`fleet process ${child.pid} exited (${code}) while the bench waited for "${type}"`));
      };
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }

  /**
   * Connects `serials` spread evenly over the children, `concurrency` at a time in all; resolves
   * with the devices that did not come online after `attempts` tries (and why).
   */
  async start(opts: { url: string; serials: readonly string[]; password: string; concurrency: number; attempts: number }) {
    const k = this.children.length;
    const answers = await Promise.all(
      this.children.map((child, i) => {
        const answer = this.next(child, 'started');
        const command: Command = {
          cmd: 'start',
          url: opts.url,
          serials: opts.serials.filter((_, n) => n % k === i),
          password: opts.password,
          concurrency: Math.max(1, Math.round(opts.concurrency / k)),
          attempts: opts.attempts,
        };
        child.send(command);
        return answer;
      }),
    );
    return {
      refused: answers.flatMap((a) => a.refused),
      retried: answers.reduce((n, a) => n + a.retried, 0),
      recovered: answers.reduce((n, a) => n + a.recovered, 0),
      connected: answers.reduce((n, a) => n + a.connected, 0),
    };
  }

  /**
   * `total` events at `rate` a second in all, each child its share from its connected devices
   * (round robin, QoS 1). Resolves once all are sent, with a promise of their acknowledgements
   * (with `ids`, each acknowledged event's id too). With `resend`, a device keeps an event whose
   * connection closed before its PUBACK and sends it again, with its event id, once connected again
   * (as a panel does, and as the protocol asks): only what is still unacknowledged after
   * RESEND_ATTEMPTS tries counts as failed.
   */
  async events(
    total: number,
    rate: number,
    window?: number,
    ids = false,
    resend = false,
  ): Promise<{ sent: EventsOutcome; acked: Promise<AckOutcome> }> {
    const k = this.children.length;
    const round = ++this.round;
    const t0 = performance.now();
    const sentAnswers: Promise<Extract<Answer, { type: 'sent' }>>[] = [];
    const ackAnswers: Promise<Extract<Answer, { type: 'acked' }>>[] = [];
    this.children.forEach((child, i) => {
      const share = Math.floor(total / k) + (i < total % k ? 1 : 0);
      sentAnswers.push(this.next(child, 'sent', round));
      ackAnswers.push(this.next(child, 'acked', round));
      child.send({
        cmd: 'events',
        round,
        total: share,
        rate: rate / k,
        ...(window ? { window } : {}),
        ...(ids ? { ids } : {}),
        ...(resend ? { resend } : {}),
      } satisfies Command);
    });
    // Both are listened for from the start: a child may answer 'acked' right after 'sent'.
    const acked = Promise.all(ackAnswers).then((a) => ({
      acked: a.reduce((n, x) => n + x.acked, 0),
      ids: a.flatMap((x) => x.ids ?? []),
      failed: a.reduce((n, x) => n + x.failed, 0),
      resent: a.reduce((n, x) => n + x.resent, 0),
      failures: a.flatMap((x) => (x.failures ? [x.failures] : [])).join('; '),
      ackedMs: performance.now() - t0,
    }));
    acked.catch(() => undefined);
    const sent = await Promise.all(sentAnswers);
    return {
      sent: {
        sent: sent.reduce((n, x) => n + x.sent, 0),
        sentMs: performance.now() - t0,
        behind: sent.reduce((n, x) => n + x.behind, 0),
        kept: sent.reduce((n, x) => n + x.kept, 0),
      },
      acked,
    };
  }

  /** Drops every connection (as a power cut: the broker publishes the wills) and ends the children. */
  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || !child.connected) return;
        const stopped = this.next(child, 'stopped').catch(() => undefined);
        child.send({ cmd: 'stop' } satisfies Command);
        await Promise.race([stopped, new Promise((r) => setTimeout(r, 5000))]);
        // A profiled child writes its profile as it exits on its own (a kill would lose it).
        if (process.env.BENCH_FLEET_PROF && child.exitCode === null)
          await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
        child.kill('SIGKILL');
      }),
    );
  }
}

/** With `resend`: how often one event is sent at most, and how long it waits for its device to be connected again. */
const RESEND_ATTEMPTS = 20;
const RESEND_WAIT_MS = 60_000;

/** A child: one slice of the fleet, driven by the parent's commands. */
function child(): void {
  let fleet: Fleet | null = null;
  const answer = (a: Answer) => process.send?.(a);
  process.on('disconnect', () => process.exit(0)); // the bench ended
  process.on('message', (c: Command) => {
    void (async () => {
      switch (c.cmd) {
        case 'start': {
          fleet = new Fleet({
            url: c.url,
            devices: c.serials.map((serial) => ({ serial, password: c.password, type: 'panel' as const })),
            concurrency: c.concurrency,
            attempts: c.attempts,
            // A broker busy with a crowd answers late, not never: a retry would only add to the crowd.
            connectTimeoutMs: 20_000,
            // device-sim's lean client: a QoS 1 publish through mqtt.js costs the fleet about as much CPU
            // as the server spends storing the event, taken from the same two cores (BENCH_FLEET_CLIENT=mqtt.js to compare).
            client: process.env.BENCH_FLEET_CLIENT === 'mqtt.js' ? 'mqtt.js' : 'lean',
          });
          const refused = await fleet.start();
          answer({
            type: 'started',
            refused,
            retried: fleet.retried.devices,
            recovered: fleet.retried.recovered,
            connected: fleet.devices.filter((d) => d.connected).length,
          });
          return;
        }
        case 'events': {
          const devices = fleet?.devices.filter((d) => d.connected) ?? [];
          if (!devices.length) throw new Error('no connected device to send events from');
          let sent = 0;
          let acked = 0;
          let failed = 0;
          let resent = 0;
          /** Why publishes failed, and how many for each reason (a keep-alive of the fleet's own, a closed connection). */
          const errorCounts = new Map<string, number>();
          let behind = 0;
          const ackedIds: string[] = [];
          // With a window, a device holds at most that many events unacknowledged (as a panel does,
          // keeping the rest in its own storage): what is offered beyond it is kept, not sent.
          let kept = 0;
          let offered = 0;
          const inFlight = new Map<unknown, number>();
          const t0 = performance.now();
          await new Promise<void>((resolve) => {
            const tick = () => {
              const due = Math.min(c.total, Math.floor(((performance.now() - t0) / 1000) * c.rate));
              const late = due - offered > c.rate / 50;
              if (late) behind++;
              while (offered < due) {
                const i = offered++;
                const d = devices[i % devices.length];
                if (!d) continue;
                if (c.window !== undefined && (inFlight.get(d) ?? 0) >= c.window) {
                  kept++;
                  continue;
                }
                sent++;
                inFlight.set(d, (inFlight.get(d) ?? 0) + 1);
                const settle = () => inFlight.set(d, (inFlight.get(d) ?? 1) - 1);
                // Unique within the fleet: a device's serial, the round and this child's count.
                const eventId = `${d.serial}-${c.round}-${i}`;
                const send = (attempt: number): void => {
                  d.event({ event_id: eventId, type: 'sensor', data: { sensor: 'bench', value: i } }).then(
                    () => {
                      settle();
                      acked++;
                      if (c.ids) ackedIds.push(eventId);
                    },
                    async (e: Error) => {
                      errorCounts.set(e.message, (errorCounts.get(e.message) ?? 0) + 1);
                      if (c.resend && attempt < RESEND_ATTEMPTS) {
                        const until = Date.now() + RESEND_WAIT_MS;
                        while (!d.connected && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
                        resent++;
                        return send(attempt + 1);
                      }
                      settle();
                      failed++;
                    },
                  );
                };
                send(1);
              }
              if (offered >= c.total) resolve();
              // Behind schedule (a burst offered faster than it can be sent): straight on; on schedule, every 5 ms.
              else if (late) setImmediate(tick);
              else setTimeout(tick, 5);
            };
            tick();
          });
          answer({ type: 'sent', round: c.round, sent, ms: performance.now() - t0, behind, kept });
          while (acked + failed < sent) await new Promise((r) => setTimeout(r, 50));
          answer({
            type: 'acked',
            round: c.round,
            acked,
            failed,
            resent,
            failures: failureSummary(errorCounts),
            ms: performance.now() - t0,
            ...(c.ids ? { ids: ackedIds } : {}),
          });
          return;
        }
        case 'stop':
          await Promise.race([fleet?.stop({ graceful: false }), new Promise((r) => setTimeout(r, 4000))]);
          answer({ type: 'stopped' });
          if (process.env.BENCH_FLEET_PROF) setTimeout(() => process.exit(0), 100);
          return;
      }
    })().catch((e: Error) => answer({ type: 'error', message: e.message }));
  });
}

if (process.argv[2] === 'child' && process.send) child();

/** Failures by message, a device's serial number left out so that one reason met by many devices is one line; the five most frequent. */
function failureSummary(errorCounts: ReadonlyMap<string, number>): string {
  const byReason = new Map<string, number>();
  for (const [m, n] of errorCounts) {
    const reason = m.replace(/BENCH-\d+/g, '(a device)');
    byReason.set(reason, (byReason.get(reason) ?? 0) + n);
  }
  const sorted = [...byReason].sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, 5).map(([m, n]) => `${n} × ${m}`);
  return sorted.length > 5 ? `${shown.join('; ')}; ${sorted.length - 5} other reasons` : shown.join('; ');
}
