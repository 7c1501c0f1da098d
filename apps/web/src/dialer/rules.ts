import { type LicenseInfo, licensed, TELEPHONY_VALIDATION_MESSAGES } from '@atrium/contract';

/** Spec comms §6: the dialer shows only with SIP and the web dialer licensed and a number in the profile. */
export function dialerVisible(input: {
  serverLicense: LicenseInfo | null | undefined;
  userLicense: LicenseInfo | null | undefined;
  sipNumber: string | null | undefined;
}): boolean {
  return (
    Boolean(input.sipNumber?.trim()) &&
    licensed(input.serverLicense, input.userLicense, 'sip') &&
    licensed(input.serverLicense, input.userLicense, 'web_dialer')
  );
}

/** Spec comms §4: the phone starts when the profile, the SIP proxy host and media approval are all present. */
export function canStartPhone(input: {
  sipNumber: string | null | undefined;
  proxyHost: string | null | undefined;
  mediaApproved: boolean;
}): boolean {
  return Boolean(input.sipNumber?.trim()) && Boolean(input.proxyHost?.trim()) && input.mediaApproved;
}

/** Spec comms §5: the message key when a call may not start, else null. */
export function callRefusal(target: string, ownNumber: string): string | null {
  const t = target.trim();
  if (!t) return null;
  if (t === ownNumber.trim()) return 'interface.unable_to_call_your_number';
  return null;
}

/** Spec comms §5: starting interception needs at least one group. */
export function interceptionRefusal(start: boolean, groupIds: readonly number[]): string | null {
  return start && groupIds.length === 0 ? TELEPHONY_VALIDATION_MESSAGES.at_least_one_group : null;
}

/** Spec comms §5: a group entry can be removed only when it is not among the user's own groups, and not while active. */
export function canRemoveInterceptionGroup(groupId: number, ownGroupIds: readonly number[], active: boolean): boolean {
  return !active && !ownGroupIds.includes(groupId);
}

/** Where the phone's WebSocket goes: the proxy host (port 8443 unless it names one), wss on https pages. */
export function sipSocketUrl(proxyHost: string, pageProtocol: string, defaultPort: number): string {
  const scheme = pageProtocol === 'https:' ? 'wss' : 'ws';
  const host = proxyHost
    .trim()
    .replace(/^(wss?|https?):\/\//, '')
    .replace(/\/.*$/, '');
  const hasPort = /^\[.*\]:\d+$/.test(host) || /^[^:[\]]+:\d+$/.test(host);
  return `${scheme}://${hasPort ? host : `${host}:${defaultPort}`}`;
}
