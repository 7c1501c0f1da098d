import { APP_CHANGES_TOPIC, ClientCommandSchema, HEARTBEAT_MS, type ServerMessage } from '@atrium/contract';
import type { WebSocket } from 'ws';
import type { Actor } from './context.js';
import type { Database } from './db/client.js';

interface Envelope {
  /** Project-qualified topic: `<projectId>:<topic>`. */
  t: string;
  e: string;
  d: unknown;
}

interface Client {
  socket: WebSocket;
  actor: Actor;
  topics: Set<string>;
  alive: boolean;
}

const qualify = (projectId: number, topic: string) => `${projectId}:${topic}`;

/**
 * Realtime delivery. Every publish goes through PostgreSQL NOTIFY, and every instance delivers
 * what it hears to its own sockets, so any number of server instances on one database agree.
 */
export class RealtimeHub {
  private readonly clients = new Set<Client>();
  private readonly byTopic = new Map<string, Set<Client>>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly database: Database) {}

  async start(): Promise<void> {
    await this.database.listen((payload) => this.deliver(payload));
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  stop(): void {
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.socket.terminate();
    this.clients.clear();
    this.byTopic.clear();
  }

  /** Sends an event to every subscriber of `topic` in a project, on every instance. */
  async publish(projectId: number, topic: string, event: string, data: unknown): Promise<void> {
    const env: Envelope = { t: qualify(projectId, topic), e: event, d: data };
    await this.database.notify(JSON.stringify(env));
  }

  /** Private topics belong to one user; app-changes to the project's signed-in users. */
  static mayAccess(actor: Actor, topic: string): boolean {
    if (topic === APP_CHANGES_TOPIC) return true;
    if (topic.startsWith('private-user.')) return topic === `private-user.${actor.userId}`;
    if (topic.startsWith('private-')) return false;
    return /^[a-z0-9][a-z0-9._:-]{0,199}$/i.test(topic);
  }

  attach(socket: WebSocket, actor: Actor): void {
    const client: Client = { socket, actor, topics: new Set(), alive: true };
    this.clients.add(client);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('message', (raw) => void this.onMessage(client, raw.toString()));
    socket.on('close', () => this.detach(client));
    socket.on('error', () => this.detach(client));
  }

  private detach(client: Client): void {
    this.clients.delete(client);
    for (const t of client.topics) this.byTopic.get(t)?.delete(client);
  }

  private send(client: Client, msg: ServerMessage): void {
    if (client.socket.readyState === client.socket.OPEN) client.socket.send(JSON.stringify(msg));
  }

  private async onMessage(client: Client, raw: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return this.send(client, { topic: 'system', event: 'error', data: { message: 'invalid data sent' } });
    }
    const cmd = ClientCommandSchema.safeParse(parsed);
    if (!cmd.success) return this.send(client, { topic: 'system', event: 'error', data: { message: 'invalid data sent' } });
    const { command, topic } = cmd.data;
    if (command === 'ping') return this.send(client, { topic: 'system', event: 'pong', data: null });
    if (!topic || !RealtimeHub.mayAccess(client.actor, topic)) {
      return this.send(client, { topic: topic ?? 'system', event: 'error', data: { message: 'action prohibited' } });
    }
    const q = qualify(client.actor.projectId, topic);
    if (command === 'subscribe') {
      client.topics.add(q);
      const set = this.byTopic.get(q) ?? new Set<Client>();
      this.byTopic.set(q, set);
      set.add(client);
      return this.send(client, { topic, event: 'subscribed', data: null });
    }
    if (command === 'unsubscribe') {
      client.topics.delete(q);
      this.byTopic.get(q)?.delete(client);
      return this.send(client, { topic, event: 'unsubscribed', data: null });
    }
    // A client may publish only to public topics of its project (private ones are the server's).
    if (topic.startsWith('private-')) {
      return this.send(client, { topic, event: 'error', data: { message: 'action prohibited' } });
    }
    await this.publish(client.actor.projectId, topic, cmd.data.event ?? 'message', cmd.data.data ?? null);
  }

  private deliver(payload: string): void {
    let env: Envelope;
    try {
      env = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    const subs = this.byTopic.get(env.t);
    if (!subs?.size) return;
    const topic = env.t.slice(env.t.indexOf(':') + 1);
    const text = JSON.stringify({ topic, event: env.e, data: env.d } satisfies ServerMessage);
    for (const c of subs) if (c.socket.readyState === c.socket.OPEN) c.socket.send(text);
  }

  private beat(): void {
    for (const c of this.clients) {
      if (!c.alive) {
        c.socket.terminate();
        this.detach(c);
        continue;
      }
      c.alive = false;
      c.socket.ping();
    }
  }
}
