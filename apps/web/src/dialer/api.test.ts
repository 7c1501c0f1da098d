import { describe, expect, it, vi } from 'vitest';
import type { HttpClient, RequestOptions } from '../app/http';
import { createDialerApi } from './api';

function fakeHttp(answer: unknown) {
  const calls: { path: string; options?: RequestOptions }[] = [];
  const record = async (path: string, options?: RequestOptions) => {
    calls.push({ path, options });
    return answer as never;
  };
  const http: HttpClient = { request: vi.fn(record), data: vi.fn(record), refresh: async () => true };
  return { http, calls };
}

describe('dialer api', () => {
  it('asks the dialer history of the own number, page 1 of 50', async () => {
    const { http, calls } = fakeHttp({ items: [{ status: 'answered' }], total: 1 });
    const list = await createDialerApi(http).history('100');
    expect(list).toHaveLength(1);
    expect(calls[0]).toEqual({ path: '/calls/history/dialer/100', options: { query: { page: 1, size: 50 } } });
  });

  it('posts stop, open door and interception to their paths', async () => {
    const { http, calls } = fakeHttp({ isActive: true, groups: [3], userGroups: [{ id: 3, name: 'A' }] });
    const api = createDialerApi(http);
    await api.stopCall('sp-5');
    await api.openDoor('tok/1');
    const saved = await api.setInterception({ is_active: true, domains: [3] });
    expect(calls.map((c) => [c.path, c.options?.method, c.options?.body])).toEqual([
      ['/calls/management/sp-5/stop', 'POST', undefined],
      ['/calls/management/devices/open/tok%2F1', 'POST', undefined],
      ['/calls/interception', 'POST', { is_active: true, domains: [3] }],
    ]);
    expect(saved.groups).toEqual([3]);
  });

  it('reads lists bare or in an items envelope', async () => {
    expect(await createDialerApi(fakeHttp([{ id: 1 }]).http).contacts()).toHaveLength(1);
    expect(await createDialerApi(fakeHttp({ items: [{ token: 't' }] }).http).conciergeDevices()).toHaveLength(1);
    expect(await createDialerApi(fakeHttp(null).http).managedCalls()).toEqual([]);
  });
});
