import type { HttpClient } from '../app/http';
import { DIALER } from './constants';
import type { CallInfo, ConciergeDevice, Contact, DialerCredentials, HistoryEntry, InterceptionSettings, ServerCall } from './types';

/** The dialer's server calls (spec comms §7, "Dialer and calls"). */
export interface DialerApi {
  /** The number, SIP password and domain the phone registers with. */
  credentials(): Promise<DialerCredentials>;
  contacts(): Promise<Contact[]>;
  callInfo(sipNumberId: number): Promise<CallInfo>;
  history(number: string): Promise<HistoryEntry[]>;
  managedCalls(): Promise<ServerCall[]>;
  stopCall(id: string): Promise<void>;
  conciergeDevices(): Promise<ConciergeDevice[]>;
  openDoor(token: string): Promise<void>;
  interception(): Promise<InterceptionSettings>;
  setInterception(body: { is_active: boolean; domains: number[] }): Promise<InterceptionSettings>;
}

/** A list answer: a bare array, or `{items}` (the console's list envelope). */
function items<T>(value: unknown): T[] {
  if (Array.isArray(value)) return value as T[];
  const list = (value as { items?: unknown } | null)?.items;
  return Array.isArray(list) ? (list as T[]) : [];
}

const path = (...parts: (string | number)[]) => parts.map((p) => encodeURIComponent(String(p))).join('/');

export function createDialerApi(http: HttpClient): DialerApi {
  return {
    credentials: () => http.data<DialerCredentials>('/calls/dialer/credentials'),
    contacts: async () => items<Contact>(await http.data('/sip-numbers/contacts')),
    callInfo: (id) => http.data<CallInfo>(`/sip-numbers/${path(id)}/call-info`),
    // The path names the number: the server answers calls from or to it (spec comms §7).
    history: async (number) =>
      items<HistoryEntry>(
        await http.data(`/calls/history/dialer/${path(number)}`, { query: { page: DIALER.historyPage, size: DIALER.historyPageSize } }),
      ),
    managedCalls: async () => items<ServerCall>(await http.data('/calls/management/list')),
    stopCall: async (id) => {
      await http.request(`/calls/management/${path(id)}/stop`, { method: 'POST' });
    },
    conciergeDevices: async () => items<ConciergeDevice>(await http.data('/calls/management/devices')),
    openDoor: async (token) => {
      await http.request(`/calls/management/devices/open/${path(token)}`, { method: 'POST' });
    },
    interception: () => http.data<InterceptionSettings>('/calls/interception'),
    setInterception: (body) => http.data<InterceptionSettings>('/calls/interception', { method: 'POST', body }),
  };
}
