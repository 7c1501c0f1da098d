import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce, RealtimeClient, realtimeUrl, type SocketLike } from './realtime';

class FakeSocket implements SocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: unknown[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
    this.onclose?.({});
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(code?: number) {
    this.readyState = 3;
    this.onclose?.(code === undefined ? {} : { code });
  }
}

describe('realtime client', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
  });
  afterEach(() => vi.useRealTimers());

  const make = (extra: Partial<ConstructorParameters<typeof RealtimeClient>[0]> = {}) => {
    const messages: unknown[] = [];
    const states: string[] = [];
    const client = new RealtimeClient({
      url: () => 'ws://x/api/v0/ws?access_token=t',
      onMessage: (m) => messages.push(m),
      onStateChange: (s) => states.push(s),
      createSocket: (u) => new FakeSocket(u),
      ...extra,
    });
    return { client, messages, states };
  };

  it('subscribes the wanted topics once connected and delivers messages', () => {
    const { client, messages, states } = make();
    client.subscribe('private-user.1');
    client.start();
    client.subscribe('private-app-changes');
    const s = FakeSocket.all[0] as FakeSocket;
    s.open();
    expect(s.sent).toEqual([
      { command: 'subscribe', topic: 'private-user.1' },
      { command: 'subscribe', topic: 'private-app-changes' },
    ]);
    s.onmessage?.({ data: JSON.stringify({ topic: 'private-user.1', event: 'notification', data: { id: 1 } }) });
    s.onmessage?.({ data: 'garbage' });
    expect(messages).toEqual([{ topic: 'private-user.1', event: 'notification', data: { id: 1 } }]);
    expect(states).toEqual(['connecting', 'connected']);
  });

  it('retries every 4 s while wanted and resubscribes', () => {
    const { client } = make();
    client.subscribe('private-user.1');
    client.start();
    (FakeSocket.all[0] as FakeSocket).open();
    (FakeSocket.all[0] as FakeSocket).drop();
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(3999);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(2);
    (FakeSocket.all[1] as FakeSocket).open();
    expect((FakeSocket.all[1] as FakeSocket).sent).toEqual([{ command: 'subscribe', topic: 'private-user.1' }]);
  });

  it('stops retrying once stopped', () => {
    const { client, states } = make();
    client.start();
    (FakeSocket.all[0] as FakeSocket).open();
    client.stop();
    vi.advanceTimersByTime(20_000);
    expect(FakeSocket.all).toHaveLength(1);
    expect(states.at(-1)).toBe('disconnected');
  });

  it('reports a connection refused before opening', () => {
    const onRejected = vi.fn();
    const { client } = make({ onRejected });
    client.start();
    (FakeSocket.all[0] as FakeSocket).drop();
    expect(onRejected).toHaveBeenCalledOnce();
  });

  it('renews the sign-in and reconnects at once when the server ends the socket because its token expired', async () => {
    let token = 'old';
    const onRejected = vi.fn(async () => {
      token = 'new';
    });
    const onReconnected = vi.fn();
    const { client } = make({ onRejected, onReconnected, url: () => `ws://x/api/v0/ws?access_token=${token}` });
    client.subscribe('private-user.1');
    client.start();
    (FakeSocket.all[0] as FakeSocket).open();
    expect(onReconnected).not.toHaveBeenCalled();
    (FakeSocket.all[0] as FakeSocket).drop(4001);
    expect(onRejected).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(0);
    // No 4 s wait: the new socket carries the renewed token.
    expect(FakeSocket.all).toHaveLength(2);
    expect((FakeSocket.all[1] as FakeSocket).url).toBe('ws://x/api/v0/ws?access_token=new');
    (FakeSocket.all[1] as FakeSocket).open();
    expect((FakeSocket.all[1] as FakeSocket).sent).toEqual([{ command: 'subscribe', topic: 'private-user.1' }]);
    expect(onReconnected).toHaveBeenCalledOnce();
  });

  it('asks to renew when the server ends the session, and waits for the next check when renewing fails', async () => {
    const onRejected = vi.fn(async () => {
      throw new Error('refresh refused');
    });
    const { client } = make({ onRejected });
    client.start();
    (FakeSocket.all[0] as FakeSocket).open();
    (FakeSocket.all[0] as FakeSocket).drop(4003);
    expect(onRejected).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('does not renew when a connection that was open is simply lost, and reports the reconnection', () => {
    const onRejected = vi.fn();
    const onReconnected = vi.fn();
    const { client } = make({ onRejected, onReconnected });
    client.start();
    (FakeSocket.all[0] as FakeSocket).open();
    (FakeSocket.all[0] as FakeSocket).drop(1006);
    expect(onRejected).not.toHaveBeenCalled();
    vi.advanceTimersByTime(4000);
    (FakeSocket.all[1] as FakeSocket).open();
    expect(onReconnected).toHaveBeenCalledOnce();
  });

  it('builds the socket URL on the page origin', () => {
    expect(realtimeUrl('a b', { protocol: 'https:', host: 'h:1' })).toBe('wss://h:1/api/v0/ws?access_token=a%20b');
  });

  it('debounces unread refreshes by a second', () => {
    const fn = vi.fn();
    const d = debounce(fn, 1000);
    d();
    vi.advanceTimersByTime(600);
    d();
    vi.advanceTimersByTime(999);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledOnce();
  });
});
