import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync } from 'node:fs';
import { rtpenginePort } from '../../playwright.config';

/**
 * rtpengine (Debian's rtpengine-daemon, userspace only) as the e2e server's media relay, on the
 * control port playwright.config.ts gives the server as RTPENGINE_URL. Started by the specs that need
 * it; while it is down the server sends media end to end, so other specs do not depend on it.
 */

export const RTPENGINE_BIN = '/usr/bin/rtpengine';
export const rtpengineInstalled = (): boolean => existsSync(RTPENGINE_BIN);

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export interface Rtpengine {
  log(): string;
  stop(): Promise<void>;
}

export async function startRtpengine(): Promise<Rtpengine> {
  const min = 30000 + 2 * Math.floor(Math.random() * 9900);
  const child: ChildProcess = spawn(
    RTPENGINE_BIN,
    [
      '--interface=127.0.0.1',
      `--listen-ng=127.0.0.1:${rtpenginePort}`,
      `--listen-cli=127.0.0.1:${await freeUdpPort()}`,
      '--foreground',
      '--log-stderr',
      '--no-log-timestamps',
      `--port-min=${min}`,
      `--port-max=${min + 99}`,
      '--table=-1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
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
  return {
    log: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
