import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../core/ports.js';

/**
 * A RabbitMQ node of its own for the tests (Debian's `rabbitmq-server`, with its MQTT plugin and
 * HTTP auth backend), on free ports, in a directory of its own: its own node name, Erlang cookie
 * (HOME), port mapper (ERL_EPMD_PORT) and data. The machine's RabbitMQ service is not touched.
 * Atrium signs in as a user of the node's own (`atrium`); devices through `authUrl` (Atrium's
 * /broker-auth/rabbitmq/…), which must be known before the node starts.
 */
export const RABBITMQ_SERVER = process.env.RABBITMQ_SERVER ?? '/usr/lib/rabbitmq/bin/rabbitmq-server';
const RABBITMQCTL = path.join(path.dirname(RABBITMQ_SERVER), 'rabbitmqctl');

export function rabbitmqAvailable(): boolean {
  return existsSync(RABBITMQ_SERVER) && existsSync(RABBITMQCTL);
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface RabbitNode {
  name: string;
  amqpPort: number;
  mqttPort: number;
  /** Atrium's AMQP URL (its own user on this node). */
  amqpUrl: string;
  /** What devices connect to. */
  mqttUrl: string;
  child: ChildProcess;
  /** rabbitmqctl against this node. */
  ctl(...args: string[]): Promise<string>;
  /** Kills the node at once (its Erlang VM), as a lost machine would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  output(): string;
}

export interface RabbitNodeOptions {
  /** Atrium's base URL for the HTTP auth backend (`http://127.0.0.1:PORT/api/v0/broker-auth/rabbitmq`). */
  authUrl: string;
  /** Share a cluster: same cookie and port mapper as these nodes, joined to the first. */
  joinOf?: RabbitNode & { cookie: string; epmdPort: number };
  /** With `joinOf`: boot with its cookie and port mapper but do not join yet (startRabbitCluster joins one at a time). */
  bootOnly?: boolean;
}

export async function startRabbitNode(opts: RabbitNodeOptions): Promise<RabbitNode & { cookie: string; epmdPort: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-rabbit-'));
  const [amqpPort, mqttPort, distPort] = [await freePort(), await freePort(), await freePort()];
  const epmdPort = opts.joinOf?.epmdPort ?? (await freePort());
  const cookie = opts.joinOf?.cookie ?? randomBytes(16).toString('hex');
  const name = `atrium${randomBytes(4).toString('hex')}@localhost`;
  const password = randomBytes(12).toString('hex');
  writeFileSync(path.join(dir, '.erlang.cookie'), cookie, { mode: 0o400 });
  writeFileSync(path.join(dir, 'enabled_plugins'), '[rabbitmq_mqtt,rabbitmq_auth_backend_http].\n');
  mkdirSync(path.join(dir, 'log'));
  writeFileSync(
    path.join(dir, 'rabbitmq.conf'),
    [
      `listeners.tcp.default = 127.0.0.1:${amqpPort}`,
      `mqtt.listeners.tcp.default = 127.0.0.1:${mqttPort}`,
      'mqtt.allow_anonymous = false',
      'mqtt.vhost = /',
      'mqtt.exchange = amq.topic',
      'auth_backends.1 = internal',
      'auth_backends.2 = http',
      'auth_http.http_method = post',
      `auth_http.user_path = ${opts.authUrl}/user`,
      `auth_http.vhost_path = ${opts.authUrl}/vhost`,
      `auth_http.resource_path = ${opts.authUrl}/resource`,
      `auth_http.topic_path = ${opts.authUrl}/topic`,
      'default_user = atrium',
      `default_pass = ${password}`,
      'loopback_users = none',
      'log.console = true',
      'log.console.level = warning',
      'log.file = false',
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    ERL_EPMD_PORT: String(epmdPort),
    RABBITMQ_NODENAME: name,
    // An Erlang VM that crashes (rabbitmqctl against a node being killed) writes its dump here, not in the tests' directory.
    ERL_CRASH_DUMP: path.join(dir, 'erl_crash.dump'),
    RABBITMQ_NODE_PORT: String(amqpPort),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_BASE: dir,
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_PID_FILE: path.join(dir, 'rabbit.pid'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
  };
  const child = spawn(RABBITMQ_SERVER, [], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, detached: true });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const ctl = (...args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile(RABBITMQCTL, ['-n', name, ...args], { env, cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`rabbitmqctl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
      ),
    );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const node = {
    name,
    amqpPort,
    mqttPort,
    epmdPort,
    cookie,
    amqpUrl: `amqp://atrium:${password}@127.0.0.1:${amqpPort}`,
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
    child,
    ctl,
    output: () => out,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // The script runs the VM as its child: end the whole group.
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        await ctl('stop').catch(() => undefined);
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
        await node.kill();
      }
      // The port mapper this node started (its own port), when no other node of the test uses it.
      if (!opts.joinOf) await new Promise((r) => execFile('epmd', ['-port', String(epmdPort), '-kill'], { env }, r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const end = Date.now() + 90_000;
  while (!((await listening(amqpPort)) && (await listening(mqttPort)))) {
    if (child.exitCode !== null) throw new Error(`rabbitmq exited:\n${out}`);
    if (Date.now() > end) {
      await node.kill();
      throw new Error(`rabbitmq did not listen on ${amqpPort}/${mqttPort}:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (opts.joinOf && !opts.bootOnly) await joinCluster(node, opts.joinOf);
  return node;
}

async function joinCluster(node: RabbitNode, first: RabbitNode): Promise<void> {
  await node.ctl('stop_app');
  await node.ctl('join_cluster', first.name);
  await node.ctl('start_app');
}

export interface RabbitCluster {
  /** The nodes, the first one being the one the others joined; every AMQP URL has the same user, the cluster's. */
  nodes: (RabbitNode & { cookie: string; epmdPort: number })[];
  /** From the first node's start until the last one joined (ms). */
  startMs: number;
  /** Stops every node still running (the joined ones first, the first last: it owns the port mapper). */
  stop(): Promise<void>;
}

/**
 * `size` nodes clustered on free ports (three: a quorum queue then keeps a majority when one is
 * lost). The first boots, the others boot together with its cookie and port mapper, then join it one
 * at a time (two joins at once race on the cluster's membership).
 */
export async function startRabbitCluster(size: number, opts: { authUrl: string }): Promise<RabbitCluster> {
  const t0 = performance.now();
  const first = await startRabbitNode({ authUrl: opts.authUrl });
  const nodes: RabbitCluster['nodes'] = [first];
  const stop = async () => {
    for (const n of nodes.slice(1).reverse()) await n.stop();
    await first.stop();
  };
  try {
    const booted = await Promise.allSettled(
      Array.from({ length: size - 1 }, () => startRabbitNode({ authUrl: opts.authUrl, joinOf: first, bootOnly: true })),
    );
    for (const b of booted) if (b.status === 'fulfilled') nodes.push(b.value);
    const failed = booted.find((b) => b.status === 'rejected');
    if (failed) throw failed.reason;
    for (const n of nodes.slice(1)) await joinCluster(n, first);
  } catch (e) {
    await stop();
    throw e;
  }
  // Atrium signs in as the first node's user: the joined nodes took the cluster's users when they joined.
  const user = new URL(first.amqpUrl);
  for (const n of nodes) n.amqpUrl = `amqp://${user.username}:${user.password}@127.0.0.1:${n.amqpPort}`;
  return { nodes, startMs: performance.now() - t0, stop };
}
