import { INTEGRATION_TRIGGER_EVENTS } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { evaluate, findMenuEntry, menuPathOf } from '../../app/menu-rules';
import { deviceBody } from '../devices/transform';
import { cameraChoices } from './DeviceIntegrationInput';
import { INTEGRATIONS_PERMISSIONS, integrationFormData, integrationPayload, sectionIntegrations } from './IntegrationsPage';
import { en, ru } from './messages';

const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

const draft = {
  name: ' Video ',
  group: { id: 7, name: 'Block A' },
  domains: [{ id: 9, name: 'Block B' }],
  url: ' axxon.example:20109 ',
  user: 'root',
  password: '',
  certificate: null,
  removeCertificate: false,
  rules: [
    { key: 1, event: 'access_denied' as const, macro_id: 'm-1', macro_name: 'Alarm', devices: [{ id: 3, name: 'Gate' }] },
    { key: 2, event: 'access_granted' as const, macro_id: '  ', macro_name: null, devices: [] },
  ],
};

describe('integrations page', () => {
  it('has every text in both languages, and a name for every trigger event', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const ev of INTEGRATION_TRIGGER_EVENTS) {
      expect(en.integrations.events[ev], ev).toBeTypeOf('string');
      expect(ru.integrations.events[ev], ev).toBeTypeOf('string');
    }
  });

  it('sends a masked password as null on update and drops rules without a macro', () => {
    expect(integrationPayload(draft, true)).toEqual({
      name: 'Video',
      domains: [9],
      axxon_one_settings: { url: 'axxon.example:20109', user: 'root', password: null },
      macro_rules: [{ event: 'access_denied', macro_id: 'm-1', macro_name: 'Alarm', device_ids: [3] }],
    });
    expect(integrationPayload({ ...draft, password: 'secret', removeCertificate: true }, false)).toMatchObject({
      domain_id: 7,
      domains: [9],
      axxon_one_settings: { password: 'secret' },
    });
    expect(integrationPayload({ ...draft, removeCertificate: true }, true)).toMatchObject({
      axxon_one_settings: { remove_certificate: true },
    });
  });

  it('posts the payload as JSON and the certificate as a file', async () => {
    const file = new File(['-----BEGIN CERTIFICATE-----'], 'server.pem');
    const fd = integrationFormData({ name: 'x' }, file);
    expect(JSON.parse(String(fd.get('payload')))).toEqual({ name: 'x' });
    expect(await (fd.get('certificate') as File).text()).toContain('BEGIN CERTIFICATE');
    expect(integrationFormData({}, null).has('certificate')).toBe(false);
  });

  it("lists in a group's section the integrations it owns and those shared with it, and at project level the unowned", () => {
    const list = [
      { id: 1, domain_id: 7, domains: [] },
      { id: 2, domain_id: 8, domains: [7] },
      { id: 3, domain_id: 8, domains: [] },
      { id: 4, domain_id: null, domains: [7] },
    ];
    expect(sectionIntegrations(list, 7).map((i) => i.id)).toEqual([1, 2, 4]);
    expect(sectionIntegrations(list, 8).map((i) => i.id)).toEqual([2, 3]);
    expect(sectionIntegrations(list, 'project').map((i) => i.id)).toEqual([4]);
  });

  it('shows the menu item to whoever the server lets read integrations', () => {
    const rule = findMenuEntry('/integrations')?.item.rule;
    expect(rule).toBeDefined();
    const ctx = (permissions: string[]) => ({ permissions, serverLicense: null, userLicense: null, restrictors: [] });
    for (const p of INTEGRATIONS_PERMISSIONS) expect(evaluate(rule, ctx([p])), p).toBe(true);
    expect(evaluate(rule, ctx(['can_view_devices']))).toBe(false);
  });

  it("puts the spec's /integration/add and /integration/:id/edit under the Integrations entry", () => {
    expect(menuPathOf('/integration/add')).toBe('/integrations/add');
    expect(menuPathOf('/integration/12/edit')).toBe('/integrations/12/edit');
    expect(menuPathOf('/integrations')).toBe('/integrations');
    expect(menuPathOf('/devices/3')).toBe('/devices/3');
    expect(findMenuEntry('/integration/add')?.item.path).toBe('/integrations');
    expect(findMenuEntry('/integration/12/edit')?.item.path).toBe('/integrations');
  });

  it("offers the server's cameras and keeps a stored one the server no longer lists", () => {
    const cams = [{ access_point: 'hosts/S/Ip.1/Src.video:0:0', display_name: 'Gate', display_id: '1', is_active: true }];
    expect(cameraChoices(cams, { access_point: null, name: null })).toEqual([
      { id: 'hosts/S/Ip.1/Src.video:0:0', name: 'Gate (hosts/S/Ip.1/Src.video:0:0)' },
    ]);
    expect(cameraChoices(undefined, { access_point: 'hosts/S/Ip.2/Src.video:0:0', name: 'Yard' })).toEqual([
      { id: 'hosts/S/Ip.2/Src.video:0:0', name: 'Yard (hosts/S/Ip.2/Src.video:0:0)' },
    ]);
    expect(cameraChoices(cams, { access_point: 'hosts/S/Ip.1/Src.video:0:0', name: 'Gate' })).toHaveLength(1);
  });

  it("sends the device form's integration block", () => {
    const body = deviceBody(
      {
        name: 'P',
        device_settings: { integration_axxon: { enabled: true, integration_id: 4, camera_access_point: 'ap', camera_display_name: '' } },
      },
      'edit',
    ) as { device_settings: Record<string, unknown> };
    expect(body.device_settings.integration_axxon).toEqual({
      enabled: true,
      integration_id: 4,
      camera_access_point: 'ap',
      camera_display_name: null,
    });
  });
});
