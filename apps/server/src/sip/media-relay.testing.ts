import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freeUdpPort } from './testing.js';

/**
 * A throw-away rtpengine (Debian's rtpengine-daemon, userspace only) for tests: loopback media,
 * its NG control on a free port, RTP ports in a range of its own. Not used in production.
 */

export const RTPENGINE_BIN = '/usr/bin/rtpengine';

export const rtpengineInstalled = (): boolean => existsSync(RTPENGINE_BIN);

export interface RtpengineProcess {
  url: string;
  ports: { min: number; max: number };
  /** What it logged, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

export async function startRtpengine(): Promise<RtpengineProcess> {
  const ng = await freeUdpPort();
  const cli = await freeUdpPort();
  // 100 even-aligned ports somewhere in 30000-49999; collisions with other tests' ephemeral ports are unlikely.
  const min = 30000 + 2 * Math.floor(Math.random() * 9900);
  const ports = { min, max: min + 99 };
  const args = [
    '--interface=127.0.0.1',
    `--listen-ng=127.0.0.1:${ng}`,
    // Its command-line port would default to 2224: one of our own keeps instances from colliding.
    `--listen-cli=127.0.0.1:${cli}`,
    '--foreground',
    '--log-stderr',
    '--no-log-timestamps',
    '--log-level=6',
    `--port-min=${ports.min}`,
    `--port-max=${ports.max}`,
    // -1: no kernel forwarding table; the userspace daemon relays every packet itself.
    '--table=-1',
    '--delete-delay=0',
  ];
  const child: ChildProcess = spawn(RTPENGINE_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rtpengine did not start:\n${output}`)), 5000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Startup complete')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rtpengine exited with ${code}:\n${output}`));
    });
  });
  await started;
  return {
    url: `udp:127.0.0.1:${ng}`,
    ports,
    log: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
