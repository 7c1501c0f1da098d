import type { Notification } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { notificationText } from './notifications';

const texts: Record<string, string> = {
  'notifications.system_events.password_changed': 'Your password was changed',
  'notifications.types.sip_reboot_started': 'SIP server reboot started',
};
const translate = (key: string, options?: Record<string, unknown>) => texts[key] ?? String(options?._ ?? key);
const notification = (type: Notification['type'], data: Record<string, unknown>): Notification => ({
  id: 1,
  type,
  data,
  significance: 'other',
  icon: null,
  color: null,
  popup_action: null,
  sound: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  read_at: null,
});

describe('notificationText', () => {
  it('words a system notification by its event', () => {
    expect(notificationText(notification('system', { event: 'password_changed' }), translate)).toBe('Your password was changed');
  });
  it('falls back to the event itself when it has no text yet', () => {
    expect(notificationText(notification('system', { event: 'backup_done' }), translate)).toBe('backup done');
  });
  it('words the other types by their type', () => {
    expect(notificationText(notification('sip_reboot_started', {}), translate)).toBe('SIP server reboot started');
  });
});
