import { describe, expect, it, vi } from 'vitest';
import { attachLiveChannel, dispatchLive, listenLive } from './live';

describe('live topics', () => {
  it('subscribes a topic on its first listener, delivers its messages, unsubscribes after the last', () => {
    const channel = { subscribe: vi.fn(), unsubscribe: vi.fn() };
    const detach = attachLiveChannel(channel);
    const a = vi.fn();
    const b = vi.fn();
    const offA = listenLive('devices', a);
    const offB = listenLive('devices', b);
    expect(channel.subscribe).toHaveBeenCalledTimes(1);
    dispatchLive({ topic: 'devices', event: 'DeviceStatusChanged', data: { id: 1, online: true } });
    dispatchLive({ topic: 'other', event: 'x', data: null });
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(1);
    offA();
    expect(channel.unsubscribe).not.toHaveBeenCalled();
    offB();
    expect(channel.unsubscribe).toHaveBeenCalledWith('devices');
    detach();
  });

  it('a channel attached later subscribes the topics already listened to', () => {
    const off = listenLive('device-tasks', () => undefined);
    const channel = { subscribe: vi.fn(), unsubscribe: vi.fn() };
    const detach = attachLiveChannel(channel);
    expect(channel.subscribe).toHaveBeenCalledWith('device-tasks');
    off();
    detach();
  });
});
