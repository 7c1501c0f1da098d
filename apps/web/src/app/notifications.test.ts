import type { Notification } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { notificationText } from './notifications';

const texts: Record<string, string> = {
  'notifications.system_events.password_changed': 'Your password was changed',
  'notifications.types.sip_reboot_started': 'SIP server reboot started',
  'notifications.types.user_used_revoked_identifier': '%{user} used the revoked %{identifier_type} %{identifier_number} at %{device}',
  'notifications.identifier_types.card': 'card',
  'notifications.identifier_types.access_code': 'access code',
};
const translate = (key: string, options?: Record<string, unknown>) =>
  (texts[key] ?? String(options?._ ?? key)).replace(/%\{(\w+)\}/g, (_, k: string) => String(options?.[k]));
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
    expect(notificationText(notification('system', { event: 'password_changed' }), translate, 'dec')).toBe('Your password was changed');
  });
  it('falls back to the event itself when it has no text yet', () => {
    expect(notificationText(notification('system', { event: 'backup_done' }), translate, 'dec')).toBe('backup done');
  });
  it('words the other types by their type', () => {
    expect(notificationText(notification('sip_reboot_started', {}), translate, 'dec')).toBe('SIP server reboot started');
  });
  describe('names a used identifier as the viewer reads card numbers (its number comes as stored, in hex)', () => {
    const used = (data: Record<string, unknown>) =>
      notification('user_used_revoked_identifier', {
        user: 'Ann',
        device: 'Entrance',
        identifier_type: 'card',
        identifier_number: 'CAFE01',
        ...data,
      });
    it('in decimal', () => {
      expect(notificationText(used({}), translate, 'dec')).toBe('Ann used the revoked card 13303297 at Entrance');
    });
    it('in hex with dashes', () => {
      expect(notificationText(used({}), translate, 'hex')).toBe('Ann used the revoked card CA-FE-01 at Entrance');
    });
    it('a code as it is', () => {
      expect(notificationText(used({ identifier_type: 'access_code', identifier_number: '0042' }), translate, 'dec')).toBe(
        'Ann used the revoked access code 0042 at Entrance',
      );
    });
  });
});
