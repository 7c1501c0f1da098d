import { REALTIME_CLOSE, REALTIME_RECONNECT_MS, type ServerMessage } from '@atrium/contract';

export type RealtimeState = 'connecting' | 'connected' | 'disconnected';

/** The part of the browser's WebSocket the client uses (tests pass a fake). */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
  close(): void;
}

export interface RealtimeOptions {
  /** The socket URL with a fresh access token, or null when signed out. */
  url: () => string | null;
  onMessage: (message: ServerMessage) => void;
  onStateChange?: (state: RealtimeState) => void;
  /**
   * Called when a connection closes before it ever opened (the token may have expired), or when the
   * server ends it because its sign-in is over (token expired, session ended): renew the sign-in.
   * When it answers a promise, the client reconnects as soon as it settles instead of at the next check.
   */
  onRejected?: () => unknown;
  /** Called when a connection opens again after one was lost: events meanwhile were missed. */
  onReconnected?: () => void;
  createSocket?: (url: string) => SocketLike;
  retryMs?: number;
}

const OPEN = 1;

/**
 * The realtime channel of ARCHITECTURE §6: connects, (re)subscribes the wanted topics, and while
 * a connection is wanted checks every 4 s (spec core §9) and reconnects when it is down.
 */
export class RealtimeClient {
  private socket: SocketLike | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly topics = new Set<string>();
  private wanted = false;
  private opened = false;
  /** A connection was open before: the next open is a reconnection. */
  private everOpened = false;
  state: RealtimeState = 'disconnected';

  constructor(private readonly options: RealtimeOptions) {}

  start(): void {
    this.wanted = true;
    this.connect();
    this.timer ??= setInterval(() => {
      if (this.wanted && this.state === 'disconnected') this.connect();
    }, this.options.retryMs ?? REALTIME_RECONNECT_MS);
  }

  stop(): void {
    this.wanted = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const s = this.socket;
    this.socket = null;
    if (s) {
      s.onclose = null;
      s.close();
    }
    this.setState('disconnected');
  }

  subscribe(topic: string): void {
    if (this.topics.has(topic)) return;
    this.topics.add(topic);
    this.send({ command: 'subscribe', topic });
  }

  unsubscribe(topic: string): void {
    if (!this.topics.delete(topic)) return;
    this.send({ command: 'unsubscribe', topic });
  }

  private send(command: { command: string; topic?: string }): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(command));
  }

  private setState(state: RealtimeState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onStateChange?.(state);
  }

  private connect(): void {
    if (!this.wanted || this.state !== 'disconnected') return;
    const url = this.options.url();
    if (!url) return;
    const create = this.options.createSocket ?? ((u: string) => new WebSocket(u) as unknown as SocketLike);
    let socket: SocketLike;
    try {
      socket = create(url);
    } catch {
      return;
    }
    this.socket = socket;
    this.opened = false;
    this.setState('connecting');
    socket.onopen = () => {
      this.opened = true;
      this.setState('connected');
      for (const topic of this.topics) socket.send(JSON.stringify({ command: 'subscribe', topic }));
      if (this.everOpened) this.options.onReconnected?.();
      this.everOpened = true;
    };
    socket.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      try {
        const message = JSON.parse(ev.data) as ServerMessage;
        if (message && typeof message.topic === 'string' && typeof message.event === 'string') this.options.onMessage(message);
      } catch {
        // not ours: ignore
      }
    };
    socket.onerror = () => {};
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const code = (ev as { code?: unknown } | null)?.code;
      const ended = code === REALTIME_CLOSE.tokenExpired.code || code === REALTIME_CLOSE.sessionEnded.code;
      this.setState('disconnected');
      if (!this.opened || ended) {
        const renewed = this.options.onRejected?.();
        if (renewed) {
          // The server ended the sign-in: reconnect with the renewed token at once, not 4 s later.
          const next = ended ? () => this.connect() : () => undefined;
          void Promise.resolve(renewed).then(next, () => undefined);
        }
      }
    };
  }
}

/** The socket URL of the current page's origin. */
export function realtimeUrl(token: string, location: { protocol: string; host: string } = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/v0/ws?access_token=${encodeURIComponent(token)}`;
}

/** A trailing debounce: many calls within `ms` run `fn` once, `ms` after the last. */
export function debounce(fn: () => void, ms: number): { (): void; cancel(): void } {
  let t: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    if (t) clearTimeout(t);
    t = setTimeout(() => {
      t = null;
      fn();
    }, ms);
  };
  run.cancel = () => {
    if (t) clearTimeout(t);
    t = null;
  };
  return run;
}
