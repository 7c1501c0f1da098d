import { describe, expect, it } from 'vitest';
import { deviceBody, newDeviceRecord } from './transform';

describe('device form → API body', () => {
  it('drops read-only fields, turns blanks into null and keeps the stored password when none was typed', () => {
    const body = deviceBody(
      {
        id: 4,
        online: true,
        capabilities: {},
        name: 'Gate',
        ip_address: '',
        device_password: '',
        device_settings: { sip: { login: '', password: '', talk_timeout: 90 }, alpr_camera: {} },
      },
      'edit',
    ) as Record<string, unknown>;
    expect(body).toEqual({ name: 'Gate', ip_address: null, device_settings: { sip: { login: null, talk_timeout: 90 } } });
  });

  it('sends a typed password and leaves out empty optional fields on create', () => {
    const body = deviceBody(
      { ...newDeviceRecord(), name: 'P1', model: 'AP-100', serial_number: 'SN1', domain_id: 2, description: '', device_password: 'secret' },
      'create',
    ) as Record<string, unknown>;
    expect(body.device_password).toBe('secret');
    expect(body).not.toHaveProperty('description');
    expect(body.port).toBe(80);
    expect((body.device_settings as { lift_controller: { relay_mode: string } }).lift_controller.relay_mode).toBe('COM-NC');
  });
});
