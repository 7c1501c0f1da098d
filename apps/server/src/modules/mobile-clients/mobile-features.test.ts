// The mobile app's own licence flags (remote opening, Siri, Apple Watch, family events, white label,
// group forward rules) reach the app in the two answers it reads after each sign-in: its registration
// and the profile. A flag counts only with the mobile app licensed in the same licence, and is off only
// when both the server's and the user's licence leave it off.
import { emptyLicenseInfo, fullLicenseInfo, type LicenseInfo, MOBILE_APP_FEATURE_NAMES, mobileAppFeatures } from '@atrium/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { installLicense, removeLicenses } from '../../../test/licenses.js';
import { queryRows } from '../../core/db/client.js';
import { telephonyOf } from '../telephony/telephony.js';
import { users } from '../users/users.table.js';

let t: TestApp;
let n = 0;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());
afterEach(async () => {
  await t.database.db.execute(sql`DELETE FROM mobile_clients`);
  await removeLicenses(t);
});

const mobile = (base: LicenseInfo, change: (m: LicenseInfo['mobile_app']) => void): LicenseInfo => {
  const f = structuredClone(base);
  change(f.mobile_app);
  return f;
};
const allFlagsOff = (m: LicenseInfo['mobile_app']) => {
  m.is_remote_open_enabled = false;
  m.is_siri_enabled = false;
  m.is_apple_watch_enabled = false;
  m.is_family_events_enabled = false;
  m.is_white_label_enabled = false;
  m.is_domain_forward_rule_enabled = false;
};

async function resident(own?: LicenseInfo) {
  const u = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId], login: `mf-${++n}` });
  if (own) await t.database.db.update(users).set({ licenseInfo: own }).where(eq(users.id, u.id));
  const api = client(t.app, await login(t.app, u.login, u.password));
  const register = async () => {
    const res = await api.put('/mobile-clients', { mobile_client_id: `mf-install-${++n}`, platform: 'ios' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.license_features as string[];
  };
  const profile = async () => (await api.get('/profile')).json().data.license_state.features as string[];
  return { register, profile };
}

describe('mobile-app flags', () => {
  it('counts a flag only from a licence that has the mobile app on, from the server or the user', () => {
    const full = fullLicenseInfo();
    expect(mobileAppFeatures(full, null)).toEqual(MOBILE_APP_FEATURE_NAMES);
    expect(mobileAppFeatures(emptyLicenseInfo(), emptyLicenseInfo())).toEqual([]);
    // The flags on, the app off: nothing.
    expect(
      mobileAppFeatures(
        mobile(full, (m) => (m.is_enabled = false)),
        null,
      ),
    ).toEqual([]);
    const userSiri = mobile(emptyLicenseInfo(), (m) => {
      m.is_enabled = true;
      m.is_siri_enabled = true;
    });
    expect(mobileAppFeatures(mobile(full, allFlagsOff), userSiri)).toEqual(['mobile_siri']);
    // A user's flag without the user's app licensed does not count, even when the server has the app.
    expect(
      mobileAppFeatures(
        mobile(full, allFlagsOff),
        mobile(userSiri, (m) => (m.is_enabled = false)),
      ),
    ).toEqual([]);
  });

  it('are answered to the app’s registration and in the profile, each as the server’s licence has it', async () => {
    await installLicense(
      t,
      mobile(fullLicenseInfo(), (m) => {
        m.is_siri_enabled = false;
        m.is_remote_open_enabled = false;
      }),
    );
    const r = await resident();
    const expected = ['mobile_apple_watch', 'mobile_family_events', 'mobile_white_label', 'mobile_domain_forward_rule'];
    expect((await r.register()).sort()).toEqual([...expected].sort());
    const profile = await r.profile();
    for (const f of expected) expect(profile).toContain(f);
    expect(profile).not.toContain('mobile_siri');
    expect(profile).not.toContain('mobile_remote_open');

    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    expect((await r.register()).sort()).toEqual([...MOBILE_APP_FEATURE_NAMES].sort());
  });

  it('are on for a user whose own licence has them while the server’s has them off', async () => {
    await installLicense(t, mobile(fullLicenseInfo(), allFlagsOff));
    const plain = await resident();
    expect(await plain.register()).toEqual([]);
    expect((await plain.profile()).filter((f) => f.startsWith('mobile_') && f !== 'mobile_app')).toEqual([]);

    const own = mobile(emptyLicenseInfo(), (m) => {
      m.is_enabled = true;
      m.license_count = 1;
      m.is_remote_open_enabled = true;
      m.is_family_events_enabled = true;
    });
    const r = await resident(own);
    expect((await r.register()).sort()).toEqual(['mobile_family_events', 'mobile_remote_open']);
    expect(await r.profile()).toEqual(expect.arrayContaining(['mobile_family_events', 'mobile_remote_open']));
  });
});

describe('remote opening from a mobile app', () => {
  it('opens the panel’s door for # on a call only while remote opening is licensed to the app’s user; other numbers are not asked', async () => {
    const admin = await adminClient(t);
    const panel = (
      await admin.put('/devices', { name: 'Gate', model: 'AP-100', serial_number: 'MF-PANEL', domain_id: t.project.rootGroupId })
    ).json().data as { id: number };
    const number = async (value: string, body: Record<string, unknown>) => {
      const res = await admin.put('/sip-numbers', { number: value, password: 'Secret123abc', domain_id: t.project.rootGroupId, ...body });
      expect(res.statusCode, res.body).toBe(200);
    };
    const withApp = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId], login: 'mf-app' });
    const deskOnly = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId], login: 'mf-desk' });
    await number('3300', { device_id: panel.id });
    await number('3001', { user_id: withApp.id });
    await number('3002', { user_id: deskOnly.id });
    const app = client(t.app, await login(t.app, 'mf-app', withApp.password));
    expect((await app.put('/mobile-clients', { mobile_client_id: 'mf-phone', platform: 'android', sip_number: '3001' })).statusCode).toBe(
      200,
    );

    const { recorder } = telephonyOf(t.app);
    let call = 0;
    const pressHash = async (from: string) => {
      const callId = `mf-call-${++call}`;
      const at = Date.now();
      recorder.onCallEvent({ type: 'created', callId, caller: '3300', callee: from, sos: false, speechId: null, at });
      recorder.onCallEvent({ type: 'answered', callId, by: from, at: at + 10 });
      recorder.onCallEvent({ type: 'dtmf', callId, from, digit: '#', at: at + 20 });
      recorder.onCallEvent({ type: 'ended', callId, outcome: 'answered', status: null, at: at + 30 });
      await recorder.flush();
    };
    const opens = async () =>
      (
        await queryRows<{ n: number }>(
          t.database.db,
          sql`SELECT count(*)::int AS n FROM device_tasks WHERE device_id = ${panel.id} AND type = 'open_lock'`,
        )
      )[0]?.n;

    await installLicense(
      t,
      mobile(fullLicenseInfo(), (m) => (m.is_remote_open_enabled = false)),
    );
    await pressHash('3001');
    expect(await opens()).toBe(0);
    // A number no app uses is not a remote opening.
    await pressHash('3002');
    expect(await opens()).toBe(1);

    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    await pressHash('3001');
    expect(await opens()).toBe(2);

    // Off for the server, on in the user's own licence (with the mobile app): opens.
    await removeLicenses(t);
    await installLicense(
      t,
      mobile(fullLicenseInfo(), (m) => (m.is_remote_open_enabled = false)),
    );
    const own = mobile(emptyLicenseInfo(), (m) => {
      m.is_enabled = true;
      m.is_remote_open_enabled = true;
    });
    await t.database.db.update(users).set({ licenseInfo: own }).where(eq(users.id, withApp.id));
    await pressHash('3001');
    expect(await opens()).toBe(3);
  });
});

describe('domain forward rules, a mobile-app feature', () => {
  afterEach(async () => {
    await t.database.db.execute(sql`UPDATE projects SET settings = settings - 'sip'`);
  });

  it('are switched on only with the licence, and sent to devices only while it lasts', async () => {
    const admin = await adminClient(t);
    const panel = (
      await admin.put('/devices', { name: 'Entrance', model: 'AP-100', serial_number: 'MF-DFR', domain_id: t.project.rootGroupId })
    ).json().data as { id: number };
    const forwardsOn = async () => (await admin.get(`/devices/${panel.id}/forwards/settings`)).json().data.auto_forward_rules as boolean;

    await installLicense(
      t,
      mobile(fullLicenseInfo(), (m) => (m.is_domain_forward_rule_enabled = false)),
    );
    for (const [path, body] of [
      ['/settings/domain-forward-rules', { is_enabled: true }],
      ['/settings/sip', { auto_forward_rules: { is_enabled: true } }],
    ] as const) {
      const refused = await admin.patch(path, body);
      expect(refused.statusCode, path).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'feature_not_licensed', details: [{ feature: 'mobile_domain_forward_rule' }] });
    }
    // Off, or the rest of the settings, may still be saved.
    expect((await admin.patch('/settings/domain-forward-rules', { is_enabled: false, device_protocol: 'TCP' })).statusCode).toBe(200);
    expect(await forwardsOn()).toBe(false);

    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    const on = await admin.patch('/settings/domain-forward-rules', { is_enabled: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(await forwardsOn()).toBe(true);

    // The licence loses the feature: the rules stay stored but no longer reach the devices.
    await removeLicenses(t);
    await installLicense(
      t,
      mobile(fullLicenseInfo(), (m) => (m.is_domain_forward_rule_enabled = false)),
    );
    expect((await admin.get('/settings/domain-forward-rules')).json().data.is_enabled).toBe(true);
    expect(await forwardsOn()).toBe(false);
  });
});

describe('white label, a mobile-app feature', () => {
  afterEach(async () => {
    await t.database.db.execute(sql`UPDATE projects SET settings = settings - 'white_label'`);
  });

  it('brands the app with the management company only while it is licensed to the app’s user', async () => {
    const admin = await adminClient(t);
    expect((await admin.patch('/settings/white-label', { name: 'Riverside Management', phone: '+7 495 000-00-00' })).statusCode).toBe(200);
    const u = await makeUser(t.database.db, { projectId: t.project.projectId, groupIds: [t.project.rootGroupId], login: `mf-wl-${++n}` });
    const api = client(t.app, await login(t.app, u.login, u.password));
    const register = async () => {
      const res = await api.put('/mobile-clients', { mobile_client_id: 'mf-wl-install', platform: 'android' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.white_label;
    };

    await installLicense(
      t,
      mobile(fullLicenseInfo(), (m) => (m.is_white_label_enabled = false)),
    );
    expect(await register()).toBeNull();

    await removeLicenses(t);
    await installLicense(t, fullLicenseInfo());
    expect(await register()).toEqual({
      name: 'Riverside Management',
      address: null,
      email: null,
      phone: '+7 495 000-00-00',
      logo_url: null,
    });
  });
});
