import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sipPort } from '../../playwright.config';

/** SIPp (Debian's sip-tester) as a door panel against the e2e server's SIP port (UDP). */

const SCENARIOS = path.resolve(import.meta.dirname, '../../sipp');

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export interface SippPanel {
  /** SIPp's exit code (0: every step of the scenario happened) and, otherwise, its error log. */
  done: Promise<{ code: number | null; errors: string }>;
  kill(): void;
}

/**
 * One call of `scenario` (a file of e2e/sipp) from `caller` (a panel's number, authenticated with
 * its SIP password) to `callee`; `keys` fill the scenario's other [keywords].
 */
export async function sippPanel(
  scenario: string,
  call: { caller: string; password: string; callee: string; keys?: Record<string, string> },
): Promise<SippPanel> {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-e2e-sipp-'));
  const errorFile = path.join(dir, 'errors.log');
  const keys = Object.entries({ sos: '0', ...call.keys }).flatMap(([k, v]) => ['-key', k, v]);
  const args = [
    `127.0.0.1:${sipPort}`,
    '-sf',
    path.join(SCENARIOS, scenario),
    '-i',
    '127.0.0.1',
    '-p',
    String(await freeUdpPort()),
    '-mp',
    String(await freeUdpPort()),
    '-m',
    '1',
    '-timeout',
    '60s',
    '-nostdin',
    '-s',
    call.callee,
    '-key',
    'caller',
    call.caller,
    '-au',
    call.caller,
    '-ap',
    call.password,
    ...keys,
    '-trace_err',
    '-error_file',
    errorFile,
  ];
  const child: ChildProcess = spawn('/usr/bin/sipp', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null; errors: string }>((resolve) => {
    child.on('exit', (code) => {
      let errors = stderr;
      try {
        errors += readFileSync(errorFile, 'utf8');
      } catch {
        // No error file: SIPp saw no error.
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, errors });
    });
  });
  return { done, kill: () => child.kill('SIGKILL') };
}
