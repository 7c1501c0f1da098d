import { randomUUID } from 'node:crypto';
import {
  APP_CHANGES_TOPIC,
  ClientCommandSchema,
  ERRORS,
  HEARTBEAT_MS,
  mayClientPublish,
  REALTIME_CLOSE,
  type ServerMessage,
} from '@atrium/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import { type Audience, audienceIncludes } from './acl.js';
import type { Actor } from './context.js';
import type { Database } from './db/client.js';
import { topicCanExist } from './realtime-topics.js';
import { SESSIONS_ENDED_SIGNAL } from './sessions.js';

/** Whether an actor may watch the row a guarded topic names (`rest` is the topic after its prefix). */
export type TopicGuard = (actor: Actor, rest: string) => boolean | Promise<boolean>;

interface Envelope {
  /** Project-qualified topic: `<projectId>:<topic>`. */
  t: string;
  e: string;
  d: unknown;
  /** Who may receive it, when not every subscriber of the topic may (core/acl.ts). */
  a?: Audience;
}

/** What the hub keeps checking about a socket's sign-in after it connected. */
export interface SocketSession {
  /** The access token the socket signed in with; sockets on one token are checked once. */
  token: string;
  /** Epoch milliseconds at which the token expires: the socket is closed then. */
  expiresAt: number;
  /** Who the token stands for now, or null when its sign-in has ended (user deleted, signed out). */
  check(): Promise<Actor | null>;
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
}

interface Client {
  socket: WebSocket;
  actor: Actor;
  session: SocketSession;
  topics: Set<string>;
  alive: boolean;
  expiry: NodeJS.Timeout | undefined;
}

interface Assembly {
  parts: string[];
  received: number;
  startedAt: number;
}

const qualify = (projectId: number, topic: string) => `${projectId}:${topic}`;

// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a larger envelope travels in pieces
// of at most PIECE_BYTES, each `~<id> <index> <count> <text>` (an envelope itself starts with `{`).
const NOTIFY_MAX_BYTES = 7999;
const PIECE_BYTES = 7000;
const PIECE_PREFIX = '~';
// Pieces of an event whose last piece never came (its sender died, or our listener reconnected).
const ASSEMBLY_TTL_MS = 60_000;
// Writes to these tables can end a sign-in (a user deleted, also through a project's deletion).
const SESSION_TABLES = new Set(['users']);
// Lets the read cache forget the signed-in users first: it hears the same change.
const SESSION_CHECK_DELAY_MS = 100;
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * A console page watches a handful of topics; these bounds are far above that and keep what one
 * socket, or one user over all their sockets, makes the hub hold small.
 */
export const MAX_TOPICS_PER_SOCKET = 64;
export const MAX_TOPICS_PER_USER = 256;

/** Splits text into pieces of at most `maxBytes` of UTF-8, never inside a character. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    const pair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes && i > start) {
      pieces.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += size;
    i += pair ? 2 : 1;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * Realtime delivery. Every publish goes through PostgreSQL NOTIFY, and every instance delivers
 * what it hears to its own sockets, so any number of server instances on one database agree.
 * A socket lives only as long as its sign-in: it is closed when its token expires, and when a
 * check finds the session over (on a change to users, heard from any instance, and on every
 * heartbeat, since signing out is not in the change feed).
 */
export class RealtimeHub {
  private readonly clients = new Set<Client>();
  private readonly byTopic = new Map<string, Set<Client>>();
  /** Subscriptions held by each user (project-qualified id) over all their sockets here. */
  private readonly perUser = new Map<string, number>();
  private readonly assemblies = new Map<string, Assembly>();
  private readonly followers = new Map<string, ((projectId: number, topic: string, data: unknown) => void)[]>();
  private readonly guards: { prefix: string; may: TopicGuard }[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private nextPass: Promise<void> | undefined;

  constructor(private readonly database: Database) {}

  async start(): Promise<void> {
    await this.database.listen((payload) => {
      try {
        this.hear(payload);
      } catch {
        // Not an event of ours (anyone may NOTIFY on the channel): nothing to deliver.
      }
    });
    await this.database.onDataChange((table) => {
      // null: changes may have gone unheard, and with them the last pieces of an event.
      if (table === null) this.assemblies.clear();
      if (table === null || SESSION_TABLES.has(table)) this.scheduleCheck();
    });
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  stop(): void {
    clearInterval(this.heartbeat);
    clearTimeout(this.checkTimer);
    for (const c of this.clients) {
      clearTimeout(c.expiry);
      c.socket.terminate();
    }
    this.clients.clear();
    this.byTopic.clear();
    this.perUser.clear();
    this.assemblies.clear();
  }

  /**
   * Sends an event to every subscriber of `topic` in a project, on every instance, whatever its size;
   * with an audience, only to the subscribers it includes (checked against each one's current actor).
   */
  async publish(projectId: number, topic: string, event: string, data: unknown, audience?: Audience): Promise<void> {
    const env: Envelope = { t: qualify(projectId, topic), e: event, d: data, ...(audience ? { a: audience } : {}) };
    const text = JSON.stringify(env);
    if (Buffer.byteLength(text) <= NOTIFY_MAX_BYTES) return this.database.notify(text);
    const id = randomUUID();
    const pieces = splitUtf8(text, PIECE_BYTES);
    // One after the other: each NOTIFY commits before the next, so every listener hears them in order.
    for (const [i, piece] of pieces.entries()) await this.database.notify(`${PIECE_PREFIX}${id} ${i} ${pieces.length} ${piece}`);
  }

  /**
   * Sends several events of a project, in order, in one round trip to the database when each is
   * small enough for one NOTIFY (a larger one goes in pieces through `publish`, after the others).
   */
  async publishMany(
    projectId: number,
    events: readonly { topic: string; event: string; data: unknown; audience?: Audience }[],
  ): Promise<void> {
    const small: string[] = [];
    const large: (typeof events)[number][] = [];
    for (const e of events) {
      const env: Envelope = { t: qualify(projectId, e.topic), e: e.event, d: e.data, ...(e.audience ? { a: e.audience } : {}) };
      const text = JSON.stringify(env);
      if (Buffer.byteLength(text) <= NOTIFY_MAX_BYTES) small.push(text);
      else large.push(e);
    }
    if (small.length) await this.database.notifyMany(small);
    for (const e of large) await this.publish(projectId, e.topic, e.event, e.data, e.audience);
  }

  /**
   * Calls `fn` with every event named `event` this instance hears, from any instance and on any
   * topic, whether or not a socket here subscribed it: a module follows another's events without
   * depending on it (and answers its own sockets with `deliverHere`).
   */
  follow(event: string, fn: (projectId: number, topic: string, data: unknown) => void): void {
    this.followers.set(event, [...(this.followers.get(event) ?? []), fn]);
  }

  /** Whether a socket of this instance subscribed a topic of the project starting with `prefix`. */
  hasSubscribers(projectId: number, prefix: string): boolean {
    const q = qualify(projectId, prefix);
    for (const [topic, set] of this.byTopic) if (set.size && topic.startsWith(q)) return true;
    return false;
  }

  /** An event for this instance's sockets only (every instance that heard its cause sends its own). */
  deliverHere(projectId: number, topic: string, event: string, data: unknown, audience?: Audience): void {
    const env: Envelope = { t: qualify(projectId, topic), e: event, d: data, ...(audience ? { a: audience } : {}) };
    this.deliver(JSON.stringify(env));
  }

  /**
   * Topics under `prefix` name one row (an alert, a call): a socket may subscribe only when its user
   * may see that row, asked of the area that owns it at each subscribe.
   */
  guardTopics(prefix: string, may: TopicGuard): void {
    this.guards.push({ prefix, may });
  }

  private async mayWatch(actor: Actor, topic: string): Promise<boolean> {
    if (!RealtimeHub.mayAccess(actor, topic)) return false;
    for (const g of this.guards) if (topic.startsWith(g.prefix) && !(await g.may(actor, topic.slice(g.prefix.length)))) return false;
    return true;
  }

  /** Private topics belong to one user; app-changes to the project's signed-in users. */
  static mayAccess(actor: Actor, topic: string): boolean {
    if (topic === APP_CHANGES_TOPIC) return true;
    if (topic.startsWith('private-user.')) return topic === `private-user.${actor.userId}`;
    if (topic.startsWith('private-')) return false;
    return /^[a-z0-9][a-z0-9._:-]{0,199}$/i.test(topic);
  }

  attach(socket: WebSocket, actor: Actor, session: SocketSession): void {
    const client: Client = { socket, actor, session, topics: new Set(), alive: true, expiry: undefined };
    this.clients.add(client);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('message', (raw) => {
      this.onMessage(client, raw.toString()).catch((err: unknown) => {
        session.log.error({ err }, 'realtime message failed');
        this.send(client, { topic: 'system', event: 'error', data: { message: ERRORS.internal.message } });
      });
    });
    socket.on('close', () => this.detach(client));
    socket.on('error', () => this.detach(client));
    this.armExpiry(client);
  }

  /**
   * Checks every socket's sign-in now and closes those whose session has ended. Answers when a
   * check that started after this call has finished.
   */
  revalidate(): Promise<void> {
    if (!this.pass) {
      this.pass = this.checkSessions().finally(() => {
        this.pass = undefined;
      });
      return this.pass;
    }
    // The running check may have passed some sockets before the change that asked for this one.
    this.nextPass ??= this.pass.then(() => {
      this.nextPass = undefined;
      return this.revalidate();
    });
    return this.nextPass;
  }

  private scheduleCheck(): void {
    if (this.checkTimer || !this.clients.size) return;
    this.checkTimer = setTimeout(() => {
      this.checkTimer = undefined;
      void this.revalidate();
    }, SESSION_CHECK_DELAY_MS);
    this.checkTimer.unref();
  }

  private async checkSessions(): Promise<void> {
    const byToken = new Map<string, Client[]>();
    for (const c of this.clients) byToken.set(c.session.token, [...(byToken.get(c.session.token) ?? []), c]);
    for (const [, clients] of byToken) {
      const { session } = clients[0]!;
      let actor: Actor | null;
      try {
        actor = await session.check();
      } catch (err) {
        // The database is unreachable: keep the sockets, the next heartbeat checks again.
        session.log.warn({ err }, 'realtime session check failed');
        continue;
      }
      for (const c of clients) {
        if (!this.clients.has(c)) continue;
        if (!actor) this.end(c, Date.now() >= session.expiresAt ? REALTIME_CLOSE.tokenExpired : REALTIME_CLOSE.sessionEnded);
        else c.actor = actor;
      }
    }
  }

  private armExpiry(client: Client): void {
    const left = client.session.expiresAt - Date.now();
    if (left <= 0) {
      this.end(client, REALTIME_CLOSE.tokenExpired);
      return;
    }
    client.expiry = setTimeout(() => this.armExpiry(client), Math.min(left, MAX_TIMER_MS));
    client.expiry.unref();
  }

  private end(client: Client, why: { code: number; reason: string }): void {
    this.detach(client);
    if (client.socket.readyState === client.socket.OPEN) client.socket.close(why.code, why.reason);
  }

  private detach(client: Client): void {
    clearTimeout(client.expiry);
    if (!this.clients.delete(client)) return;
    for (const t of [...client.topics]) this.leave(client, t);
  }

  private userKey = (client: Client) => `${client.actor.projectId}:${client.actor.userId}`;

  private join(client: Client, q: string): void {
    if (client.topics.has(q)) return;
    client.topics.add(q);
    const set = this.byTopic.get(q) ?? new Set<Client>();
    this.byTopic.set(q, set);
    set.add(client);
    const key = this.userKey(client);
    this.perUser.set(key, (this.perUser.get(key) ?? 0) + 1);
  }

  /** Removes one subscription, and the topic's and the user's entries once nothing is left in them. */
  private leave(client: Client, q: string): void {
    if (!client.topics.delete(q)) return;
    const set = this.byTopic.get(q);
    set?.delete(client);
    if (set?.size === 0) this.byTopic.delete(q);
    const key = this.userKey(client);
    const left = (this.perUser.get(key) ?? 1) - 1;
    if (left > 0) this.perUser.set(key, left);
    else this.perUser.delete(key);
  }

  /** What the hub holds, for tests and system information: sockets, topics with subscribers, users subscribed. */
  get size(): { sockets: number; topics: number; users: number } {
    return { sockets: this.clients.size, topics: this.byTopic.size, users: this.perUser.size };
  }

  private send(client: Client, msg: ServerMessage): void {
    this.sendText(client, JSON.stringify(msg));
  }

  /** Writes to one open socket; a broken one is logged, never thrown to the caller (or the database driver). */
  private sendText(client: Client, text: string): void {
    try {
      if (client.socket.readyState === client.socket.OPEN) client.socket.send(text);
    } catch (err) {
      client.session.log.warn({ err }, 'realtime send failed');
    }
  }

  private async onMessage(client: Client, raw: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return this.send(client, { topic: 'system', event: 'error', data: { message: ERRORS.invalid_data.message } });
    }
    const cmd = ClientCommandSchema.safeParse(parsed);
    if (!cmd.success) {
      const details = cmd.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message }));
      return this.send(client, { topic: 'system', event: 'error', data: { message: ERRORS.invalid_data.message, details } });
    }
    const { command, topic } = cmd.data;
    if (command === 'ping') return this.send(client, { topic: 'system', event: 'pong', data: null });
    const prohibited = () =>
      this.send(client, { topic: topic ?? 'system', event: 'error', data: { message: ERRORS.action_prohibited.message } });
    if (!topic || !(await this.mayWatch(client.actor, topic))) return prohibited();
    const q = qualify(client.actor.projectId, topic);
    if (command === 'subscribe') {
      const refused = this.refusal(client, topic, q);
      if (refused) return this.send(client, { topic, event: 'error', data: refused });
      // The socket may have closed while the guards were asked: it would hold the entry for ever.
      if (!this.clients.has(client)) return;
      this.join(client, q);
      return this.send(client, { topic, event: 'subscribed', data: null });
    }
    if (command === 'unsubscribe') {
      this.leave(client, q);
      return this.send(client, { topic, event: 'unsubscribed', data: null });
    }
    // Events on the spec's topics are the server's alone (a forged CallUpdated, role change or notification).
    if (!mayClientPublish(topic)) return prohibited();
    await this.publish(client.actor.projectId, topic, cmd.data.event ?? 'message', cmd.data.data ?? null);
  }

  /** Why a subscription is refused (a topic nothing is published on, or past a bound), or null. */
  private refusal(client: Client, topic: string, q: string): { message: string; details: { field: string; message: string }[] } | null {
    const because = (message: string) => ({ message: ERRORS.cannot_perform_action.message, details: [{ field: 'topic', message }] });
    if (!topicCanExist(topic)) return because('no such topic');
    if (client.topics.has(q)) return null;
    if (client.topics.size >= MAX_TOPICS_PER_SOCKET) return because(`at most ${MAX_TOPICS_PER_SOCKET} subscriptions per connection`);
    if ((this.perUser.get(this.userKey(client)) ?? 0) >= MAX_TOPICS_PER_USER)
      return because(`at most ${MAX_TOPICS_PER_USER} subscriptions per user`);
    return null;
  }

  /** A NOTIFY payload: a whole envelope, or one piece of a large one. */
  private hear(payload: string): void {
    // Sign-ins ended somewhere (core/sessions.ts): close their sockets now, not at the next heartbeat.
    if (payload === SESSIONS_ENDED_SIGNAL) {
      this.scheduleCheck();
      return;
    }
    if (!payload.startsWith(PIECE_PREFIX)) {
      this.deliver(payload);
      return;
    }
    const [id, index, count] = payload.slice(PIECE_PREFIX.length).split(' ', 3) as [string, string, string];
    const piece = payload.slice(PIECE_PREFIX.length + id.length + index.length + count.length + 3);
    const i = Number(index);
    const n = Number(count);
    const now = Date.now();
    for (const [key, a] of this.assemblies) if (now - a.startedAt > ASSEMBLY_TTL_MS) this.assemblies.delete(key);
    let a = this.assemblies.get(id);
    if (!a) {
      // Joined in the middle of an event (this instance started listening after its first piece).
      if (i !== 0 || !Number.isInteger(n) || n < 2) return;
      a = { parts: new Array<string>(n), received: 0, startedAt: now };
      this.assemblies.set(id, a);
    }
    if (!(i >= 0 && i < a.parts.length) || a.parts[i] !== undefined) return;
    a.parts[i] = piece;
    if (++a.received < a.parts.length) return;
    this.assemblies.delete(id);
    this.deliver(a.parts.join(''));
  }

  private deliver(payload: string): void {
    let env: Envelope;
    try {
      env = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    if (typeof env?.t !== 'string') return;
    const followers = this.followers.get(env.e);
    if (followers) {
      const colon = env.t.indexOf(':');
      for (const f of followers) {
        try {
          f(Number(env.t.slice(0, colon)), env.t.slice(colon + 1), env.d);
        } catch {
          // A follower's failure is its own: the event still reaches the sockets.
        }
      }
    }
    const subs = this.byTopic.get(env.t);
    if (!subs?.size) return;
    const topic = env.t.slice(env.t.indexOf(':') + 1);
    const text = JSON.stringify({ topic, event: env.e, data: env.d } satisfies ServerMessage);
    // One broken socket must not keep the event from the others.
    for (const c of subs) if (!env.a || audienceIncludes(c.actor, env.a)) this.sendText(c, text);
  }

  /** One heartbeat (every HEARTBEAT_MS): ends sockets that did not answer the last ping, pings the rest. */
  beat(): void {
    for (const c of this.clients) {
      if (!c.alive) {
        c.socket.terminate();
        this.detach(c);
        continue;
      }
      c.alive = false;
      c.socket.ping();
    }
    if (this.clients.size) void this.revalidate();
  }
}
