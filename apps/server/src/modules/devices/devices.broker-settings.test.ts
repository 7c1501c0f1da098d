// The MQTT broker settings reach the devices: a change of the broker tab (and a sending again) gives
// every initialised mqtt device a broker_settings task, and once the devices' outcomes are known (or
// the deadline passed) the operator who sent them is notified with the outcome per device. Every
// device is the simulator on a real embedded broker.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrokerSettingsSentData } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';
import { queryRows } from '../../core/db/client.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
let h: DeviceHarness;
const work = mkdtempSync(path.join(tmpdir(), 'atrium-broker-send-'));
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
  h = await deviceHarness(t);
});
afterAll(async () => {
  await h?.close();
  await t?.close();
});

function certPair(name: string) {
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
      '30',
      '-subj',
      `/CN=${name}`,
    ],
    { stdio: 'pipe' },
  );
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

function upload(useUserCerts: boolean, pair?: { cert: Buffer; key: Buffer }) {
  const boundary = '----atrium-broker-send-test';
  const parts: Buffer[] = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="use_user_certs"\r\n\r\n${useUserCerts}\r\n`),
  ];
  for (const [field, data] of pair
    ? ([
        ['certfile', pair.cert],
        ['keyfile', pair.key],
      ] as const)
    : []) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${field}.pem"\r\n\r\n`),
      data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return admin.raw('POST', '/settings/broker', Buffer.concat(parts), { 'content-type': `multipart/form-data; boundary=${boundary}` });
}

const brokerTasks = () =>
  queryRows<{ id: number; device_id: number; state: string; error: string | null }>(
    t.database.db,
    sql`SELECT id, device_id, state, error FROM device_tasks WHERE type = 'broker_settings' ORDER BY id`,
  );
const notices = () =>
  queryRows<{ data: BrokerSettingsSentData; significance: string; user_id: number }>(
    t.database.db,
    sql`SELECT data, significance, user_id FROM notifications WHERE type = 'device_broker_settings_sent' ORDER BY id`,
  );

describe('broker settings sent to the devices', () => {
  it('gives every initialised mqtt device the task, and tells the sender the outcome per device', async () => {
    const ok = await h.device({ serial: 'BRS-OK' });
    const failing = await h.device({ serial: 'BRS-FAIL' });
    const away = await h.device({ serial: 'BRS-AWAY' });
    // Neither an uninitialised device nor one on protocol none is told.
    const fresh = (
      await admin.put('/devices', { name: 'Fresh', model: 'AP-100', serial_number: 'BRS-FRESH', domain_id: t.project.rootGroupId })
    ).json().data as { id: number };
    const unmanaged = (
      await admin.put('/devices', { name: 'Unmanaged', model: 'AP-100', serial_number: 'BRS-NONE', domain_id: t.project.rootGroupId })
    ).json().data as { id: number };
    await admin.post(`/devices/${unmanaged.id}/init/apply`, {});
    await admin.post(`/devices/${unmanaged.id}/protocol`, { protocol: 'none' });
    failing.sim.failureRate = 1;
    await away.sim.stop();
    await expect.poll(async () => (await admin.get(`/devices/${away.id}`)).json().data.online, { timeout: 10_000 }).toBe(false);

    const pair = certPair('broker-one');
    const fingerprint = new X509Certificate(pair.cert).fingerprint256;
    const saved = await upload(true, pair);
    expect(saved.statusCode, saved.body).toBe(200);

    await expect.poll(() => ok.sim.broker, { timeout: 10_000 }).not.toBeNull();
    const told = ok.sim.broker!;
    expect(told.url).toMatch(/^mqtt:\/\/[^@]+:\d+$/);
    expect(told.tls?.fingerprint).toBe(fingerprint);
    expect(told.tls?.url).toMatch(/^mqtts:\/\//);
    const tasks = await brokerTasks();
    expect(tasks.map((x) => x.device_id).sort()).toEqual([ok.id, failing.id, away.id].sort());
    expect(tasks.map((x) => x.device_id)).not.toContain(fresh.id);
    await expect.poll(async () => (await brokerTasks()).find((x) => x.device_id === failing.id)?.state, { timeout: 10_000 }).toBe('error');
    // The device that is away has not answered: no outcome yet, so nothing is said.
    await t.app.services.devices.sweep();
    expect(await notices()).toEqual([]);

    // The deadline passes: the sending is concluded once, whatever the instances sweeping.
    await t.database.db.execute(sql`UPDATE device_broker_sends SET deadline = now() WHERE concluded_at IS NULL`);
    await Promise.all([t.app.services.devices.sweep(), t.app.services.devices.sweep()]);
    await t.app.services.devices.sweep();
    const [first, ...others] = await notices();
    expect(others).toEqual([]);
    expect(first?.significance).toBe('important');
    const data = first!.data;
    expect(data).toMatchObject({ has_error: true, total: 3, completed: 1, failed: 1, timed_out: 1, stopped: 0 });
    const outcome = (id: number) => data.devices.find((d) => d.device_id === id);
    expect(outcome(ok.id)).toMatchObject({ outcome: 'completed', error: null, serial_number: 'BRS-OK' });
    expect(outcome(failing.id)).toMatchObject({ outcome: 'error', error: 'simulated failure' });
    expect(outcome(away.id)).toMatchObject({ outcome: 'timeout' });
    expect(data.device).toContain('BRS-');

    // Saved again unchanged: the devices are told nothing new.
    expect((await upload(true)).statusCode).toBe(200);
    expect((await brokerTasks()).length).toBe(3);

    // Sent again: the task still waiting for the device that was away is superseded; everyone completes.
    failing.sim.failureRate = 0;
    const again = await admin.post('/settings/broker/send');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toEqual({ devices: 3 });
    const old = (await brokerTasks()).find((x) => x.device_id === away.id && x.id === tasks.find((y) => y.device_id === away.id)?.id);
    expect(old).toMatchObject({ state: 'stopped', error: 'superseded' });
    await away.sim.start();
    await expect.poll(async () => (await notices()).length, { timeout: 15_000 }).toBe(2);
    const second = (await notices())[1]!;
    expect(second.significance).toBe('other');
    expect(second.data).toMatchObject({ has_error: false, total: 3, completed: 3 });
    expect(away.sim.broker?.tls?.fingerprint).toBe(fingerprint);

    // Switching the own certificate off is news to the devices: plain MQTT only.
    expect((await upload(false)).statusCode).toBe(200);
    await expect.poll(() => ok.sim.broker?.tls, { timeout: 10_000 }).toBeNull();
    // So is a new server URL: the embedded broker is reached on the project's host.
    expect((await admin.patch('/settings/general', { server_url: 'https://atrium.example.org' })).statusCode).toBe(200);
    await expect.poll(() => ok.sim.broker?.url, { timeout: 10_000 }).toMatch(/^mqtt:\/\/atrium\.example\.org:\d+$/);
    // A change of something else tells them nothing.
    const before = (await brokerTasks()).length;
    expect((await admin.patch('/settings/general', { description: 'Riverside' })).statusCode).toBe(200);
    expect((await brokerTasks()).length).toBe(before);
  });

  it('refuses a sending again to whoever may not change the project settings', async () => {
    const viewer = await makeUser(t.database.db, {
      projectId: t.project.projectId,
      roleId: await makeRole(t.database.db, t.project.projectId, ['can_view_project_settings']),
      groupIds: [t.project.rootGroupId],
    });
    const api = client(t.app, await login(t.app, viewer.login, viewer.password));
    const res = await api.post('/settings/broker/send');
    expect(res.statusCode).toBe(403);
  });
});
