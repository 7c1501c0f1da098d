import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tcpPortFree, udpPortFree } from '../core/ports.js';

/**
 * baresip (Debian's `baresip`) as a real SIP user agent with audio for tests: no sound card, its
 * microphone a WAV file (the `aufile` source: a 440 Hz tone made here), its speaker the `aubridge`
 * sink, commands on stdin (`stdio`), auto answer, and RTP statistics printed at the end of each call
 * (`rtp_stats`). Not used in production.
 */

export const BARESIP_BIN = '/usr/bin/baresip';
export const BARESIP_MODULES = '/usr/lib/baresip/modules';

export const baresipInstalled = (): boolean => existsSync(BARESIP_BIN) && existsSync(path.join(BARESIP_MODULES, 'aufile.so'));

/** A mono 16-bit 8 kHz WAV of a 440 Hz tone, `seconds` long (aufile wants the codec's rate for PCMU). */
export function sineWav(file: string, seconds = 30): void {
  const rate = 8000;
  const samples = rate * seconds;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  writeFileSync(file, Buffer.concat([header, data]));
}

/** A SIP port baresip can take: UDP and TCP on it, and TCP on the next (its TLS listener). */
async function freeSipPort(host: string): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 20000 + 2 * Math.floor(Math.random() * 4000);
    if ((await udpPortFree(port, host)) && (await tcpPortFree(port, host)) && (await tcpPortFree(port + 1, host))) return port;
  }
  throw new Error('no free port for baresip');
}

export interface RtpStats {
  sent: number;
  received: number;
}

export interface BaresipUa {
  /** Everything it printed so far (carriage returns as new lines). */
  output(): string;
  /** Sends a command line (`/dial sip:…`, `/hangup`, `/quit`). */
  command(line: string): void;
  /** Resolves when its output matches `pattern` (within `timeoutMs`), with the match. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The RTP statistics of the last call that ended ("packets: <sent> <received>"), or null. */
  rtpStats(): RtpStats | null;
  stop(): Promise<void>;
}

export interface BaresipOptions {
  number: string;
  password: string;
  /** Atrium's SIP server: its UDP port, or its SIP over TLS port with `transport: 'tls'`. */
  server: { host: string; port: number };
  host?: string;
  transport?: 'udp' | 'tls';
  /** The CA (PEM file) baresip trusts for TLS. */
  caFile?: string;
  /** `manual`: an incoming call rings until `/accept` (default: answered at once). */
  answerMode?: 'auto' | 'manual';
}

export async function startBaresip(opts: BaresipOptions): Promise<BaresipUa> {
  const host = opts.host ?? '127.0.0.1';
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-baresip-'));
  const wav = path.join(dir, 'tone.wav');
  sineWav(wav);
  const sipPort = await freeSipPort(host);
  const rtpBase = 50000 + 2 * Math.floor(Math.random() * 5000);
  writeFileSync(
    path.join(dir, 'config'),
    [
      'poll_method epoll',
      `sip_listen ${host}:${sipPort}`,
      `audio_source aufile,${wav}`,
      `audio_player aubridge,ua${opts.number}`,
      `audio_alert aubridge,ua${opts.number}`,
      `rtp_ports ${rtpBase}-${rtpBase + 19}`,
      'rtp_stats yes',
      `module_path ${BARESIP_MODULES}`,
      'module stdio.so',
      'module g711.so',
      'module aufile.so',
      'module aubridge.so',
      'module account.so',
      'module menu.so',
      ...(opts.caFile ? [`sip_cafile ${opts.caFile}`] : []),
      '',
    ].join('\n'),
  );
  const tls = opts.transport === 'tls' ? ';transport=tls' : '';
  const server = `sip:${opts.server.host}:${opts.server.port}${tls}`;
  writeFileSync(
    path.join(dir, 'accounts'),
    `<sip:${opts.number}@${opts.server.host}:${opts.server.port}${tls}>;auth_pass=${opts.password};outbound="${server}";regint=300;answermode=${opts.answerMode ?? 'auto'};audio_codecs=PCMU\n`,
  );
  const child: ChildProcess = spawn(BARESIP_BIN, ['-f', dir], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8').replace(/\r/g, '\n');
    for (const w of [...waiters]) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const waitFor = (pattern: RegExp, timeoutMs = 10_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(pattern);
        if (!m) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(m);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`baresip ${opts.number}: no ${pattern} within ${timeoutMs} ms; it printed:\n${out.slice(-3000)}`));
      }, timeoutMs);
      waiters.add(check);
      if (check()) return;
      void exited.then(() => {
        if (waiters.has(check) && !check()) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`baresip ${opts.number} exited; it printed:\n${out.slice(-3000)}`));
        }
      });
    });

  return {
    output: () => out,
    command: (line) => {
      child.stdin?.write(`${line}\n`);
    },
    waitFor,
    rtpStats: () => {
      const all = [...out.matchAll(/^packets:\s+(\d+)\s+(\d+)/gm)];
      const last = all.at(-1);
      return last ? { sent: Number(last[1]), received: Number(last[2]) } : null;
    },
    stop: async () => {
      if (child.exitCode === null) {
        child.stdin?.write('/quit\n');
        const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
