// Project settings tabs (spec comms §3, §5, §6, §7): general (with a test mail through a real SMTP
// server), SIP (ports applied to the running SIP listeners), push, white-label with its logo, MQTT
// broker (own certificates, status, restart). Secrets are never read back, and the masked value
// coming back keeps them; view and change rights are enforced on every tab.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { announcingCanvas } from '../../../test/images.js';
import { type SmtpPeer, startSmtpPeer } from '../../../test/smtp-peer.js';
import { queryRows } from '../../core/db/client.js';
import { zonedCell } from '../../core/export.js';
import { newInternalCredential } from '../../gateways/mqtt/broker.js';
import { startDevicePlane } from '../../gateways/mqtt/worker/host.js';
import { type SipRuntime, startSip } from '../telephony/sip-runtime.js';
import { solidPng } from './apple-wallet.service.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let peer: SmtpPeer;
const work = mkdtempSync(path.join(tmpdir(), 'atrium-settings-'));
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  peer = await startSmtpPeer();
});
afterAll(async () => {
  await t.close();
  await peer.close();
  rmSync(work, { recursive: true, force: true });
});

async function as(permissions: string[]) {
  const roleId = await makeRole(t.database.db, t.project.projectId, permissions);
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, roleId, groupIds: [t.project.rootGroupId] });
  return client(t.app, await login(t.app, u.login, u.password));
}

function multipart(fields: Record<string, string>, files: { field: string; name: string; data: Buffer }[] = []) {
  const boundary = '----atrium-settings-test';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      f.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A self-signed certificate and its key (PEM), made by OpenSSL. */
function certPair(name: string, days = 30) {
  const key = path.join(work, `${name}.key`);
  const cert = path.join(work, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      String(days),
      '-subj',
      `/CN=${name}`,
    ],
    { stdio: 'pipe' },
  );
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

const smtpForm = (password: string | null) => ({
  host: peer.host,
  port: peer.port,
  username: peer.user,
  password,
  from_address: 'concierge@riverside.example',
  from_name: 'Riverside concierge',
  encryption: 'none' as const,
});

describe('general tab', () => {
  it('answers defaults, keeps every field, masks the SMTP password and the SDK key, and keeps them when null comes back', async () => {
    const empty = (await admin.get('/settings/general')).json().data;
    expect(empty).toMatchObject({
      can_user_register_by_token: true,
      can_user_recovery_password: true,
      can_user_register_by_self: false,
      time_zone: 'UTC',
      locale: 'en',
      logs_life: 90,
      mail_settings: { type: 'none', settings: null },
      guest_identifier_limits: { max_passes_count: null, max_period_days: null },
    });
    const role = await makeRole(t.database.db, t.project.projectId, ['can_edit_own_profile'], 'Self-registered');
    const saved = await admin.patch('/settings/general', {
      name: 'Riverside Towers',
      description: 'Two towers by the river',
      can_user_register_by_self: true,
      can_user_recovery_password: false,
      server_url: 'https://atrium.riverside.example',
      time_zone: 'europe/moscow',
      mail_settings: { type: 'smtp', settings: smtpForm(peer.password) },
      logs_life: 30,
      admin_email: 'Admin@Riverside.example',
      notify_about_offline_device: true,
      locale: 'ru',
      guest_identifier_limits: { max_passes_count: 4, max_period_days: null },
      mobile_sdk_settings: { is_enabled: true, api_key: 'sdk-key-123' },
      user_self_register_settings: {
        clients: [{ type: 'private', role_id: role, license_settings: { period: 365, features: ['mobile_app'] } }],
      },
      license_settings: { basic_license: { period: 30, qty: 2 } },
    });
    expect(saved.statusCode).toBe(200);
    const data = saved.json().data;
    expect(data).toMatchObject({
      name: 'Riverside Towers',
      time_zone: 'Europe/Moscow',
      admin_email: 'admin@riverside.example',
      locale: 'ru',
      mail_settings: {
        type: 'smtp',
        settings: {
          host: peer.host,
          port: peer.port,
          username: peer.user,
          password: null,
          has_password: true,
          from_name: 'Riverside concierge',
        },
      },
      mobile_sdk_settings: { is_enabled: true, api_key: null, has_api_key: true },
      user_self_register_settings: { clients: [{ type: 'private', role_id: role }] },
      license_settings: { basic_license: { period: 30, qty: 2 } },
    });
    expect(saved.body).not.toContain(peer.password);
    expect(saved.body).not.toContain('sdk-key-123');

    // The masked password and key come back as null: kept. The mailer still signs in with the password.
    const again = await admin.patch('/settings/general', {
      mail_settings: { type: 'smtp', settings: smtpForm(null) },
      mobile_sdk_settings: { is_enabled: true, api_key: null },
    });
    expect(again.json().data.mail_settings.settings.has_password).toBe(true);
    expect(again.json().data.mobile_sdk_settings.has_api_key).toBe(true);
    const [stored] = await queryRows<{ s: { smtp: { password: string }; mobile_sdk_settings: { api_key: string } } }>(
      t.database.db,
      sql`SELECT settings AS s FROM projects WHERE id = ${t.project.projectId}`,
    );
    expect(stored?.s.smtp.password).toBe(peer.password);
    expect(stored?.s.mobile_sdk_settings.api_key).toBe('sdk-key-123');

    // The audit rows hold no secret.
    const audit = await queryRows<{ after: unknown }>(
      t.database.db,
      sql`SELECT after FROM audit_events WHERE entity = 'project_settings_general'`,
    );
    expect(audit.length).toBe(2);
    expect(JSON.stringify(audit)).not.toContain(peer.password);
    expect(JSON.stringify(audit)).not.toContain('sdk-key-123');
  });

  it('refuses bad input with field details and writes nothing', async () => {
    const before = (await admin.get('/settings/general')).json().data;
    const bad = await admin.patch('/settings/general', {
      logs_life: '30',
      time_zone: 'Mars/Olympus',
      server_url: 'ftp://x',
      guest_identifier_limits: { max_passes_count: '4', max_period_days: null },
      mail_settings: { type: 'smtp', settings: { ...smtpForm(null), port: '25' } },
      locale: 'de',
    });
    expect(bad.statusCode).toBe(400);
    const fields = bad
      .json()
      .details.map((d: { field: string }) => d.field)
      .sort();
    expect(fields).toEqual(
      ['guest_identifier_limits.max_passes_count', 'locale', 'logs_life', 'mail_settings.settings.port', 'server_url', 'time_zone'].sort(),
    );
    // A role of no one in this project.
    const role = await admin.patch('/settings/general', {
      user_self_register_settings: { clients: [{ type: 'company', role_id: 999999, license_settings: { period: null, features: [] } }] },
    });
    expect(role.statusCode).toBe(400);
    expect(role.json().code).toBe('invalid_related_entity');
    // The same client type twice.
    const twice = await admin.patch('/settings/general', {
      user_self_register_settings: {
        clients: [
          { type: 'company', role_id: null, license_settings: { period: null, features: [] } },
          { type: 'company', role_id: null, license_settings: { period: null, features: [] } },
        ],
      },
    });
    expect(twice.statusCode).toBe(400);
    // Device notifications without the administrator's address.
    const noMail = await admin.patch('/settings/general', { admin_email: null });
    expect(noMail.statusCode).toBe(400);
    expect(noMail.json().details[0].field).toBe('admin_email');
    expect((await admin.get('/settings/general')).json().data).toEqual(before);
  });

  it('is what the server settings call answers, signed in and signed out, and what registration and guest keys obey', async () => {
    const anon = client(t.app);
    const pub = (await anon.get('/frontend/server/settings')).json().data;
    expect(pub).toMatchObject({
      can_user_register_himself: true,
      can_user_recovery_password: false,
      can_user_register_by_token: true,
      locale: 'ru',
      time_zone: 'Europe/Moscow',
      domain: 'atrium.riverside.example',
    });
    // Recovery is switched off: the public call says so.
    const recovery = await t.app.inject({ method: 'POST', url: '/api/v0/password/recovery', payload: { email: 'someone@example.com' } });
    expect([403, 404]).toContain(recovery.statusCode);
    if (recovery.statusCode === 403) expect(recovery.json().message).toBe('action prohibited');

    // The project's guest limits hold for a resident whose groups have none.
    const door = (
      await admin.put('/devices', {
        name: 'Lobby panel',
        model: 'AP-100',
        serial_number: 'SETTINGS-LOBBY',
        domain_id: t.project.rootGroupId,
      })
    ).json().data;
    const rule = (
      await admin.put('/access-rules', {
        name: 'Guests: lobby',
        available_for_guest: true,
        devices: [{ id: door.id, lock_number: 1 }],
        domains: [t.project.rootGroupId],
      })
    ).json().data;
    const resident = await as(['can_create_guest_identifiers']);
    const now = Date.now();
    const tooMany = await resident.put('/guest-access', {
      access_rules: [rule.id],
      valid_from: new Date(now - 60_000).toISOString(),
      valid_to: new Date(now + 86_400_000).toISOString(),
      restrict_pass_count: true,
      pass_limit: 9,
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ details: [{ params: { max_count: 4, max_days: null } }] });
  });

  it("writes the times of an export in the project's time zone, with their offset", async () => {
    expect(zonedCell('2026-11-23T19:30:05.123Z', 'Europe/Moscow')).toBe('2026-11-23T22:30:05+03:00');
    expect(zonedCell(new Date('2026-07-01T12:00:00Z'), 'America/New_York')).toBe('2026-07-01T08:00:00-04:00');
    expect(zonedCell('2026-01-01T00:00:00Z', 'Asia/Kolkata')).toBe('2026-01-01T05:30:00+05:30');
    expect(zonedCell('2026-01-01T00:00:00Z', 'UTC')).toBe('2026-01-01T00:00:00Z');
    expect(zonedCell('not a time', 'Europe/Moscow')).toBe('not a time');
    expect(zonedCell(42, 'Europe/Moscow')).toBe(42);
    // An export of the audit log follows the general tab's time zone.
    const download = async () => {
      const res = await admin.get('/audit/items/download?export_format=csv&sort=-id');
      expect(res.statusCode).toBe(200);
      const [header, first] = res.body.trim().split('\n');
      return first!.split(',')[header!.split(',').indexOf('created_at')]!;
    };
    expect((await admin.patch('/settings/general', { time_zone: 'Asia/Kolkata' })).statusCode).toBe(200);
    expect(await download()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/);
    expect((await admin.patch('/settings/general', { time_zone: 'UTC' })).statusCode).toBe(200);
    expect(await download()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect((await admin.patch('/settings/general', { time_zone: 'Europe/Moscow' })).statusCode).toBe(200);
  });

  it('sends a test mail through the real SMTP server, with the stored password when it comes back masked', async () => {
    const res = await admin.post('/settings/test-mail', {
      email: 'checker@riverside.example',
      mail_settings: { type: 'smtp', settings: smtpForm(null) },
    });
    expect(res.statusCode).toBe(200);
    const mail = await peer.next('checker@riverside.example');
    expect(mail.subject).toContain('Riverside Towers');
    expect(mail.from).toContain('concierge@riverside.example');
    // A wrong password: the SMTP server refuses, the answer says so without the password.
    const wrong = await admin.post('/settings/test-mail', {
      email: 'checker@riverside.example',
      mail_settings: { type: 'smtp', settings: smtpForm('not-the-password') },
    });
    expect(wrong.statusCode).toBe(502);
    expect(wrong.json().message).toBe('the test mail could not be sent');
    expect(wrong.body).not.toContain('not-the-password');
    expect(
      (await admin.post('/settings/test-mail', { email: 'not an address', mail_settings: { type: 'smtp', settings: smtpForm(null) } }))
        .statusCode,
    ).toBe(400);
  });
});

describe('domain forward rules settings', () => {
  it('reads and changes the SIP tab’s automatic forward rules on their own, with its defaults and validation', async () => {
    const read = await admin.get('/settings/domain-forward-rules');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data).toEqual((await admin.get('/settings/sip')).json().data.auto_forward_rules);
    const saved = await admin.patch('/settings/domain-forward-rules', { is_enabled: true, use_address: 'external_ip' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toEqual({ is_enabled: true, device_protocol: 'UDP', use_address: 'external_ip' });
    // One setting: the SIP tab answers what was saved here.
    expect((await admin.get('/settings/sip')).json().data.auto_forward_rules).toEqual(saved.json().data);
    expect((await admin.get('/settings/domain-forward-rules')).json().data).toEqual(saved.json().data);
    for (const bad of [{}, { is_enabled: 'yes' }, { is_enabled: true, device_protocol: 'SCTP' }, { is_enabled: true, other: 1 }]) {
      expect((await admin.patch('/settings/domain-forward-rules', bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }
    const back = await admin.patch('/settings/domain-forward-rules', { is_enabled: false, device_protocol: 'TCP' });
    expect(back.json().data).toEqual({ is_enabled: false, device_protocol: 'TCP', use_address: 'server_url' });
  });
});

describe('rights', () => {
  const reads = [
    '/settings/general',
    '/settings/sip',
    '/settings/domain-forward-rules',
    '/settings/push',
    '/settings/broker',
    '/settings/broker/status',
    '/settings/white-label',
  ];
  it('lets no one without project settings rights read or change a tab', async () => {
    const other = await as(['can_view_all_identifiers']);
    for (const url of reads) expect((await other.get(url)).statusCode, url).toBe(403);
    expect((await other.patch('/settings/general', { logs_life: 5 })).statusCode).toBe(403);
    expect((await other.patch('/settings/sip', { is_early_media_enabled: true })).statusCode).toBe(403);
    expect((await other.patch('/settings/domain-forward-rules', { is_enabled: true })).statusCode).toBe(403);
    expect((await other.patch('/settings/push', { is_enabled: false })).statusCode).toBe(403);
    expect((await other.patch('/settings/white-label', { name: 'Mine' })).statusCode).toBe(403);
    expect(
      (await other.post('/settings/test-mail', { email: 'a@b.example', mail_settings: { type: 'smtp', settings: smtpForm(null) } }))
        .statusCode,
    ).toBe(403);
    expect((await other.post('/settings/broker/restart', { type: 'broker' })).statusCode).toBe(403);
  });

  it('lets a viewer read every tab but change none; management company information reads the white-label only', async () => {
    const viewer = await as(['can_view_project_settings']);
    for (const url of reads) expect((await viewer.get(url)).statusCode, url).toBe(200);
    expect((await viewer.patch('/settings/general', { logs_life: 5 })).statusCode).toBe(403);
    expect((await viewer.patch('/settings/sip', { is_early_media_enabled: true })).statusCode).toBe(403);
    expect((await viewer.patch('/settings/domain-forward-rules', { is_enabled: true })).statusCode).toBe(403);
    expect((await viewer.patch('/settings/push', { is_enabled: false })).statusCode).toBe(403);
    expect((await viewer.patch('/settings/white-label', { name: 'Mine' })).statusCode).toBe(403);
    expect((await viewer.raw('DELETE', '/settings/white-label/logo')).statusCode).toBe(403);
    const png = solidPng(8, '#336699');
    const up = multipart({}, [{ field: 'logo', name: 'logo.png', data: png }]);
    expect((await viewer.raw('POST', '/settings/white-label/logo', up.payload, up.headers)).statusCode).toBe(403);
    const certs = certPair('viewer');
    const b = multipart({ use_user_certs: 'true' }, [
      { field: 'certfile', name: 'c.pem', data: certs.cert },
      { field: 'keyfile', name: 'k.pem', data: certs.key },
    ]);
    expect((await viewer.raw('POST', '/settings/broker', b.payload, b.headers)).statusCode).toBe(403);
    expect(
      (await viewer.post('/settings/test-mail', { email: 'a@b.example', mail_settings: { type: 'smtp', settings: smtpForm(null) } }))
        .statusCode,
    ).toBe(403);
    expect((await viewer.post('/settings/broker/restart', { type: 'broker' })).statusCode).toBe(403);
    // The general tab's secrets stay masked for a viewer too.
    expect((await viewer.get('/settings/general')).body).not.toContain(peer.password);

    const company = await as(['can_view_management_company_info']);
    expect((await company.get('/settings/white-label')).statusCode).toBe(200);
    expect((await company.get('/settings/general')).statusCode).toBe(403);
    expect((await company.patch('/settings/white-label', { name: 'Mine' })).statusCode).toBe(403);
  });
});

/** A port nothing listens on just now. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('SIP tab', () => {
  let sip: SipRuntime;
  beforeAll(async () => {
    sip = await startSip(t.app, {
      ...t.app.config,
      sip: { enabled: true, host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, wsPort: 0, tls: null },
    });
  });
  afterAll(async () => sip.close());

  it('shows the running ports, validates, and rebinds the SIP listeners when the ports change', async () => {
    const first = (await admin.get('/settings/sip')).json().data;
    expect(first).toMatchObject({ port: sip.server.ports.udp, ws_port: sip.server.ports.ws, rtp: { min: 10000, max: 20000 } });

    const bad = await admin.patch('/settings/sip', {
      port: '5060',
      rtp: { min: 20000, max: 10000 },
      local_networks: ['10.0.0.0/8', '10.0.0.0/8', 'nonsense'],
      server: { internal_ip: '10.0.0.300', external_ip: null },
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['local_networks.1', 'local_networks.2', 'port', 'rtp.max', 'server.internal_ip'].sort());
    expect((await admin.patch('/settings/sip', { port: 7000, ws_port: 7000 })).statusCode).toBe(400);

    const port = await freePort();
    const ws = await freePort();
    const saved = await admin.patch('/settings/sip', {
      port,
      ws_port: ws,
      server: { internal_ip: '10.0.0.5', external_ip: '203.0.113.7' },
      rtp: { min: 12000, max: 12100 },
      is_early_media_enabled: true,
      local_networks: ['10.0.0.0/8', '192.168.0.0/16'],
      auto_forward_rules: { is_enabled: true, device_protocol: 'TCP', use_address: 'external_ip' },
      resident_phonebook_settings: { is_enabled: true, show_all_groups: false },
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data).toMatchObject({
      port,
      ws_port: ws,
      is_early_media_enabled: true,
      local_networks: ['10.0.0.0/8', '192.168.0.0/16'],
    });
    // The listeners run on the new ports: the SIP server answers an OPTIONS there.
    expect(sip.server.ports).toMatchObject({ udp: port, ws });
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    const me = sock.address().port;
    const answer = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no SIP answer')), 5000);
      sock.once('message', (m) => {
        clearTimeout(timer);
        resolve(m.toString());
      });
      sock.send(
        `OPTIONS sip:127.0.0.1:${port} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${me};rport;branch=z9hG4bK-settings\r\nFrom: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:127.0.0.1>\r\nCall-ID: settings-probe\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n`,
        port,
        '127.0.0.1',
      );
    }).finally(() => sock.close());
    expect(answer.startsWith('SIP/2.0')).toBe(true);

    // The server settings call tells the addresses and the auto forward rules.
    expect((await admin.get('/frontend/server/settings')).json().data).toMatchObject({
      server_ip: '203.0.113.7',
      internal_server_ip: '10.0.0.5',
      auto_forward_rules: { is_enabled: true, device_protocol: 'TCP', use_address: 'external_ip' },
    });

    // A port something else holds: refused, nothing written, the listeners stay.
    const holder = dgram.createSocket('udp4');
    await new Promise<void>((r) => holder.bind(0, '127.0.0.1', () => r()));
    const taken = holder.address().port;
    const refused = await admin.patch('/settings/sip', { port: taken, is_early_media_enabled: false });
    holder.close();
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe('error starting sip service');
    expect((await admin.get('/settings/sip')).json().data).toMatchObject({ port, is_early_media_enabled: true });
    expect(sip.server.ports.udp).toBe(port);
  });
});

describe('push server tab', () => {
  it('needs a URL to be on, masks the token and keeps it', async () => {
    expect((await admin.get('/settings/push')).json().data).toEqual({ is_enabled: false, url: null, token: null, has_token: false });
    const noUrl = await admin.patch('/settings/push', { is_enabled: true });
    expect(noUrl.statusCode).toBe(400);
    expect(noUrl.json().details[0].field).toBe('url');
    const saved = await admin.patch('/settings/push', {
      is_enabled: true,
      url: 'https://93.184.215.14:8080',
      token: 'push-secret',
    });
    expect(saved.json().data).toEqual({ is_enabled: true, url: 'https://93.184.215.14:8080', token: null, has_token: true });
    expect(saved.body).not.toContain('push-secret');
    expect((await admin.patch('/settings/push', { is_enabled: true, token: null })).json().data.has_token).toBe(true);
    expect((await client(t.app).get('/frontend/server/settings')).json().data.push_server).toBe('https://93.184.215.14:8080');
    expect((await admin.patch('/settings/push', { is_enabled: true, token: '' })).json().data.has_token).toBe(false);
    await admin.patch('/settings/push', { is_enabled: false });
    expect((await client(t.app).get('/frontend/server/settings')).json().data.push_server).toBeNull();
  });
});

describe('white-label tab', () => {
  it('keeps the management company and its logo; a logo must be a bounded image', async () => {
    const saved = await admin.patch('/settings/white-label', {
      name: 'Riverside Management',
      address: '1 River St',
      email: 'office@riverside.example',
      phone: '+1 555 0100',
    });
    expect(saved.json().data).toMatchObject({ name: 'Riverside Management', phone: '+1 555 0100', logo_url: null });
    expect((await admin.patch('/settings/white-label', { email: 'nope', phone: 'call me' })).statusCode).toBe(400);

    const png = solidPng(16, '#336699');
    const up = multipart({}, [{ field: 'logo', name: 'logo.png', data: png }]);
    const withLogo = await admin.raw('POST', '/settings/white-label/logo', up.payload, up.headers);
    expect(withLogo.statusCode).toBe(200);
    const url: string = withLogo.json().data.logo_url;
    expect(url).toMatch(/^\/api\/v0\/files\/logos\/.+\.png$/);
    const file = await t.app.inject({ method: 'GET', url });
    expect(file.statusCode).toBe(200);
    // A copy of the server's making: the same picture, re-encoded.
    expect(file.rawPayload.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(await sharp(file.rawPayload).metadata()).toMatchObject({ width: 16, height: 16 });
    // A canvas no one should decode: refused from its header, whatever the file's size.
    const giant = announcingCanvas(solidPng(1, '#000000'), 30_000, 30_000);
    const refusedUp = multipart({}, [{ field: 'logo', name: 'logo.png', data: giant }]);
    const refused = await admin.raw('POST', '/settings/white-label/logo', refusedUp.payload, refusedUp.headers);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0].message).toMatch(/too large/);

    const text = multipart({}, [{ field: 'logo', name: 'logo.png', data: Buffer.from('<svg onload="x()"/>') }]);
    expect((await admin.raw('POST', '/settings/white-label/logo', text.payload, text.headers)).statusCode).toBe(400);
    const big = Buffer.concat([png, Buffer.alloc(1024 * 1024)]);
    const huge = multipart({}, [{ field: 'logo', name: 'logo.png', data: big }]);
    expect((await admin.raw('POST', '/settings/white-label/logo', huge.payload, huge.headers)).statusCode).toBe(413);
    const wrongField = multipart({}, [{ field: 'image', name: 'logo.png', data: png }]);
    expect((await admin.raw('POST', '/settings/white-label/logo', wrongField.payload, wrongField.headers)).statusCode).toBe(400);
    expect((await admin.get('/settings/white-label')).json().data.logo_url).toBe(url);
    // The sign-in page shows them: the server settings call answers them to anyone, and the logo is public.
    const anon = client(t.app);
    expect((await anon.get('/frontend/server/settings')).json().data.white_label).toEqual({ name: 'Riverside Management', logo_url: url });
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);

    const removed = await admin.delete('/settings/white-label/logo');
    expect(removed.json().data.logo_url).toBeNull();
    expect((await anon.get('/frontend/server/settings')).json().data.white_label).toEqual({ name: 'Riverside Management', logo_url: null });
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });
});

describe('MQTT broker tab', () => {
  const upload = (fields: Record<string, string>, files: { field: string; name: string; data: Buffer }[]) => {
    const m = multipart(fields, files);
    return admin.raw('POST', '/settings/broker', m.payload, m.headers);
  };

  it('takes own certificates only as a readable PEM certificate and key pair, and never reads the key back', async () => {
    expect((await admin.get('/settings/broker')).json().data).toEqual({ use_user_certs: false, certificate: null, has_key: false });
    const a = certPair('broker-a.riverside.example');
    const b = certPair('broker-b');
    // Own certificates asked for without any.
    expect((await upload({ use_user_certs: 'true' }, [])).json()).toMatchObject({
      code: 'broker_certificates_invalid',
      details: [{ field: 'certfile' }],
    });
    // A key that is not the certificate's.
    const mismatch = await upload({ use_user_certs: 'true' }, [
      { field: 'certfile', name: 'a.crt', data: a.cert },
      { field: 'keyfile', name: 'b.key', data: b.key },
    ]);
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({ message: 'the certificate and key do not form a pair', details: [{ field: 'keyfile' }] });
    // Not PEM at all; only one of the two files.
    expect(
      (
        await upload({ use_user_certs: 'true' }, [
          { field: 'certfile', name: 'a.crt', data: Buffer.from('hello') },
          { field: 'keyfile', name: 'a.key', data: a.key },
        ])
      ).json().details[0].field,
    ).toBe('certfile');
    expect((await upload({ use_user_certs: 'true' }, [{ field: 'certfile', name: 'a.crt', data: a.cert }])).statusCode).toBe(400);
    // An oversized file.
    expect(
      (
        await upload({ use_user_certs: 'true' }, [
          { field: 'certfile', name: 'a.crt', data: Buffer.alloc(70 * 1024, 65) },
          { field: 'keyfile', name: 'a.key', data: a.key },
        ])
      ).statusCode,
    ).toBe(413);
    expect((await upload({ use_user_certs: 'maybe' }, [])).statusCode).toBe(400);
    expect((await admin.get('/settings/broker')).json().data.has_key).toBe(false);

    const ok = await upload({ use_user_certs: 'true' }, [
      { field: 'certfile', name: 'a.crt', data: a.cert },
      { field: 'keyfile', name: 'a.key', data: a.key },
    ]);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({
      use_user_certs: true,
      has_key: true,
      certificate: { subject: 'CN=broker-a.riverside.example' },
    });
    expect(ok.body).not.toContain('PRIVATE KEY');
    // Switched off and on again without files: the stored pair stays.
    expect((await upload({ use_user_certs: 'false' }, [])).json().data).toMatchObject({ use_user_certs: false, has_key: true });
    expect((await upload({ use_user_certs: 'true' }, [])).json().data).toMatchObject({ use_user_certs: true, has_key: true });
    expect((await admin.get('/settings/broker')).body).not.toContain('PRIVATE KEY');
  });

  it('tells the broker status and restarts the embedded broker; without one here, restart says so', async () => {
    const none = await admin.post('/settings/broker/restart', { type: 'broker' });
    expect(none.statusCode).toBe(409);
    expect(none.json().message).toBe('error mqtt broker settings sending');
    expect((await admin.post('/settings/broker/restart', { type: 'everything' })).statusCode).toBe(400);

    // The device plane's thread, as `npm start` runs it.
    const plane = await startDevicePlane({
      broker: { kind: 'embedded', port: 0, host: '127.0.0.1', internal: newInternalCredential(), tls: null },
      databaseUrl: null,
      services: t.app.services.devices,
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    t.app.services.projectSettings.attachBroker(plane.brokerControl(async () => null, 0));
    try {
      const before = (await admin.get('/settings/broker/status')).json().data;
      expect(before).toMatchObject({ is_running: true });
      // A client connected before the restart is dropped; the broker listens again on its port.
      const port = plane.port as number;
      const sock = net.connect(port, '127.0.0.1');
      await new Promise<void>((r) => sock.once('connect', () => r()));
      const closed = new Promise<void>((r) => sock.once('close', () => r()));
      await new Promise((r) => setTimeout(r, 5));
      const res = await admin.post('/settings/broker/restart', { type: 'broker' });
      expect(res.statusCode).toBe(200);
      await closed;
      expect(Date.parse(res.json().data.started_at)).toBeGreaterThanOrEqual(Date.parse(before.started_at));
      const again = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => {
        again.once('connect', () => resolve());
        again.once('error', reject);
      });
      again.destroy();
      const audit = await queryRows<{ n: number }>(
        t.database.db,
        sql`SELECT count(*)::int AS n FROM audit_events WHERE entity = 'mqtt_broker'`,
      );
      expect(audit[0]?.n).toBe(1);
    } finally {
      t.app.services.projectSettings.attachBroker(null);
      await plane.close();
    }
  }, 120_000);
});
