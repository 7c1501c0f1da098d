// Kamailio at the SIP edge as the tests and the cluster bench start it: deploy/kamailio/kamailio.cfg,
// as an operator runs it, on a UDP port of 127.0.0.1 with Atrium's database and instances; and a phone
// (a SIPp UAS answering every call) registered through it.
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeUdpPort, registerContact, SIPP_DIR } from './testing.js';

export const KAMAILIO = '/usr/sbin/kamailio';
export const KAMAILIO_CFG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../deploy/kamailio/kamailio.cfg');
export const kamailioInstalled = () => existsSync(KAMAILIO);

/** An OPTIONS to Kamailio's UDP port: true once it answers 200. */
export function optionsAnswered(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const done = (ok: boolean) => {
      clearTimeout(timer);
      s.close();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 500);
    s.on('message', (m) => done(/^SIP\/2\.0 200/.test(m.toString())));
    s.bind(0, '127.0.0.1', () => {
      const local = s.address().port;
      const branch = `z9hG4bK${Math.random().toString(36).slice(2)}`;
      const msg = [
        `OPTIONS sip:127.0.0.1:${port} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${local};branch=${branch};rport`,
        'Max-Forwards: 70',
        `From: <sip:probe@127.0.0.1>;tag=${branch}`,
        `To: <sip:127.0.0.1:${port}>`,
        `Call-ID: ${branch}@probe`,
        'CSeq: 1 OPTIONS',
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n');
      s.send(msg, port, '127.0.0.1');
    });
  });
}

/** A process and everything it printed. */
export interface Logged {
  child: ChildProcess;
  output(): string;
}

/** Spawns with stdout and stderr kept; the caller's own (a test rig's, which ends its processes) may be given instead. */
export function spawnLogged(cmd: string, args: string[]): Logged {
  const child = spawn(cmd, args, { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  return { child, output: () => out };
}

export interface KamailioOptions {
  /** Its UDP port on 127.0.0.1. */
  port: number;
  /** Atrium's database (`DB_URL`). */
  databaseUrl: string;
  /** Atrium's instances, comma-separated, asked in order (`ATRIUM_URLS`). */
  atriumUrls: string;
  /** More `-A` definitions (`WITH_WEBSOCKET`, `WITH_RTPENGINE`…). */
  defines?: string[];
  /** More arguments (more `-l` listeners). */
  args?: string[];
  spawn?: (cmd: string, args: string[]) => Logged;
}

export interface KamailioProcess extends Logged {
  /** Ends it (SIGTERM, then SIGKILL after 5 s) and removes its run directory. */
  stop(): Promise<void>;
}

/** Ends `child` with SIGTERM, with SIGKILL if it is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Kamailio with deploy/kamailio/kamailio.cfg; resolves once it answers OPTIONS (or fails with its output after 30 s). */
export async function startKamailio(opts: KamailioOptions): Promise<KamailioProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-kamailio-'));
  const k = (opts.spawn ?? spawnLogged)(KAMAILIO, [
    ...['-DD', '-E', '-f', KAMAILIO_CFG, '-l', `udp:127.0.0.1:${opts.port}`, '-n', '2', '-Y', dir, '-w', dir, '-m', '64', '-M', '16'],
    ...['-A', `DB_URL="${opts.databaseUrl}"`, '-A', `ATRIUM_URLS="${opts.atriumUrls}"`],
    ...(opts.defines ?? []).flatMap((d) => ['-A', d]),
    ...(opts.args ?? []),
  ]);
  const stop = async () => {
    await stopChild(k.child);
    rmSync(dir, { recursive: true, force: true });
  };
  const end = Date.now() + 30_000;
  while (!(await optionsAnswered(opts.port))) {
    if (k.child.exitCode !== null || Date.now() > end) {
      await stop();
      throw new Error(`kamailio did not answer on ${opts.port}\n${k.output().slice(-5000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { ...k, stop };
}

/**
 * A phone that answers every call (SIPp with test/sipp/uas-answer.xml, or `scenario`) for as long as
 * it runs, registered as `number` through the SIP server on `serverPort` (Kamailio or Atrium's own).
 */
export async function startAnsweringPhone(
  serverPort: number,
  number: string,
  password: string,
  scenario = path.join(SIPP_DIR, 'uas-answer.xml'),
  extraArgs: string[] = [],
): Promise<Logged & { port: number; stop(): Promise<void> }> {
  const [port, mediaPort] = [await freeUdpPort(), await freeUdpPort()];
  const p = spawnLogged('/usr/bin/sipp', [
    ...['-sf', scenario, '-i', '127.0.0.1', '-p', String(port), '-mp', String(mediaPort), '-nostdin'],
    ...extraArgs,
  ]);
  const stop = () => stopChild(p.child);
  // SIPp binds its port a moment after it starts: registering before that would be answered at a closed port.
  const end = Date.now() + 10_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    if (p.child.exitCode !== null) throw new Error(`the phone ${number} (SIPp) exited\n${p.output()}`);
    const status = await registerContact(serverPort, number, password, port).catch(() => 0);
    if (status === 200) break;
    if (Date.now() > end) {
      await stop();
      throw new Error(`the phone ${number} could not register (${status})`);
    }
  }
  return { ...p, port, stop };
}
