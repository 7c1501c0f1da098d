import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';

/**
 * An rtpengine daemon (Debian's rtpengine-daemon, userspace forwarding) run by Atrium itself, so
 * the project's SIP settings reach it: its RTP port range (`--port-min`/`--port-max`) and the
 * address it gives in SDP (`--interface=<internal>[!<external>]`: bound on the internal address,
 * advertising the external one). Its NG control socket listens on the loopback. Changing the range or
 * the addresses means starting it again (rtpengine reads them only at start).
 */

export interface RtpengineSpawnOptions {
  bin: string;
  /** Address rtpengine binds its RTP ports on. */
  bindAddress: string;
  /** Address it writes into SDP when it differs from the bound one (1:1 NAT). */
  advertised?: string | null;
  ports: { min: number; max: number };
  /** Lines of its log, for the server's log and failing tests. */
  onLog?: (line: string) => void;
}

export interface RtpengineProcess {
  url: string;
  ports: { min: number; max: number };
  log(): string;
  stop(): Promise<void>;
}

async function freeLoopbackUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Its command-line interface listens on TCP. */
async function freeLoopbackTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function spawnRtpengine(opts: RtpengineSpawnOptions): Promise<RtpengineProcess> {
  const ng = await freeLoopbackUdpPort();
  const cli = await freeLoopbackTcpPort();
  const iface = opts.advertised && opts.advertised !== opts.bindAddress ? `${opts.bindAddress}!${opts.advertised}` : opts.bindAddress;
  const args = [
    // Not the system's /etc/rtpengine/rtpengine.conf: its listeners (HTTP on 2225 …) would collide between instances.
    '--config-file=none',
    `--interface=${iface}`,
    `--listen-ng=127.0.0.1:${ng}`,
    // Its command-line port would default to 2224: one of our own keeps instances from colliding.
    `--listen-cli=127.0.0.1:${cli}`,
    '--foreground',
    '--log-stderr',
    '--no-log-timestamps',
    '--log-level=6',
    `--port-min=${opts.ports.min}`,
    `--port-max=${opts.ports.max}`,
    // -1: no kernel forwarding table; the userspace daemon relays every packet itself.
    '--table=-1',
    '--delete-delay=0',
  ];
  const child: ChildProcess = spawn(opts.bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rtpengine did not start:\n${output.slice(-2000)}`)), 5000);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-64_000);
      if (opts.onLog) for (const line of text.split('\n')) if (line.trim()) opts.onLog(line);
      if (output.includes('Startup complete')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rtpengine exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
  try {
    await started;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url: `udp:127.0.0.1:${ng}`,
    ports: { ...opts.ports },
    log: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
