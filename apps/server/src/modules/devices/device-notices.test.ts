// Device notices by mail (issue 14, general settings: offline and task-failed device notifications to
// the administrator e-mail): a real SMTP peer, a simulated device on the embedded broker, and a second
// instance hearing the same device, which must not mail the administrator a second time.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceHarness, deviceHarness } from '../../../test/device-harness.js';
import { adminClient, buildTestApp, type TestApp } from '../../../test/helpers.js';
import { type SmtpPeer, startSmtpPeer } from '../../../test/smtp-peer.js';
import { openDatabase, queryRows } from '../../core/db/client.js';

let t: TestApp;
let peer: SmtpPeer;
let h: DeviceHarness;

const ADMIN_MAIL = 'building-admin@atrium.test';

beforeAll(async () => {
  t = await buildTestApp();
  peer = await startSmtpPeer();
  h = await deviceHarness(t);
});
afterAll(async () => {
  await h?.close();
  await t?.close();
  await peer?.close();
});

const outbox = (subjectLike: string) =>
  queryRows<{ n: number }>(
    t.database.db,
    sql`SELECT count(*)::int AS n FROM mail_outbox WHERE "to" = ${ADMIN_MAIL} AND subject LIKE ${`%${subjectLike}%`}`,
  ).then((r) => r[0]!.n);

const taskState = (id: number) =>
  queryRows<{ state: string }>(t.database.db, sql`SELECT state FROM device_tasks WHERE id = ${id}`).then((r) => r[0]?.state);

async function settings(body: Record<string, unknown>) {
  const admin = await adminClient(t);
  const res = await admin.patch('/settings/general', body);
  expect(res.statusCode, res.body).toBe(200);
}

describe('device notices to the administrator e-mail', () => {
  it('mails nothing while the switches are off, then a failed task and an offline device once each', async () => {
    await settings({
      name: 'Riverside',
      mail_settings: {
        type: 'smtp',
        settings: {
          host: peer.host,
          port: peer.port,
          username: peer.user,
          password: peer.password,
          from_address: 'atrium@riverside.test',
          from_name: 'Atrium',
          encryption: 'none',
        },
      },
      admin_email: ADMIN_MAIL,
      time_zone: 'Europe/Moscow',
      notify_about_offline_device: false,
      notify_about_device_task_failed: false,
    });
    const admin = await adminClient(t);
    const quiet = await h.device({ serial: 'NOTICE-QUIET' });
    quiet.sim.failureRate = 1;
    const quietTask = (await admin.post(`/devices/${quiet.id}/settings/apply`)).json().data.id as number;
    await expect.poll(() => taskState(quietTask), { timeout: 10_000 }).toBe('error');
    await quiet.sim.stop({ graceful: false });
    await expect.poll(async () => (await admin.get(`/devices/${quiet.id}`)).json().data.online, { timeout: 10_000 }).toBe(false);
    await t.app.services.mailer.idle();
    expect(peer.received.filter((m) => m.to.includes(ADMIN_MAIL))).toHaveLength(0);

    await settings({ notify_about_offline_device: true, notify_about_device_task_failed: true, locale: 'en' });
    const d = await h.device({ serial: 'NOTICE-1' });
    d.sim.failureRate = 1;
    const taskId = (await admin.post(`/devices/${d.id}/settings/apply`)).json().data.id as number;
    const failed = await peer.next(ADMIN_MAIL);
    expect(failed.subject).toBe('Riverside: a task of device NOTICE-1 failed');
    expect(failed.text).toContain('The task "apply_settings" of the device "NOTICE-1" (serial number NOTICE-1');
    expect(failed.text).toContain('Error:');
    expect(failed.text).toContain('(Europe/Moscow)');
    expect(await taskState(taskId)).toBe('error');

    // The device drops off without a word; a second instance on the same database hears it go too.
    const own = process.env.TEST_DATABASE_URL ? await cloneConnection() : undefined;
    const second = await buildTestApp({ database: own ?? t.database });
    try {
      await d.sim.stop({ graceful: false });
      await Promise.all([
        second.app.services.devices.onPresence('NOTICE-1', { online: false }),
        t.app.services.devices.onPresence('NOTICE-1', { online: false }),
      ]);
      const offline = await peer.next(ADMIN_MAIL);
      expect(offline.subject).toBe('Riverside: device NOTICE-1 is offline');
      expect(offline.text).toContain('went offline at');
      await t.app.services.mailer.idle();
      await second.app.services.mailer.idle();
      await new Promise((r) => setTimeout(r, 300));
      expect(await outbox('is offline')).toBe(1);
      expect(await outbox('failed')).toBe(1);
      expect(peer.received.filter((m) => m.to.includes(ADMIN_MAIL))).toHaveLength(2);
    } finally {
      await second.app.close();
      await own?.close();
    }
  });

  it('uses the project’s template in the project’s language', async () => {
    const admin = await adminClient(t);
    await settings({ locale: 'ru' });
    const put = await admin.put('/mail-templates', {
      kind: 'device_offline',
      locale: 'ru',
      subject: 'Нет связи: {device}',
      body: 'Устройство {device} ({group}) пропало в {time}.',
    });
    expect(put.statusCode, put.body).toBe(200);
    const refused = await admin.put('/mail-templates', { kind: 'device_offline', locale: 'en', subject: 'x', body: 'no device here' });
    expect(refused.statusCode).toBe(400);
    const d = await h.device({ serial: 'NOTICE-2' });
    await d.sim.stop({ graceful: false });
    const mail = await peer.next(ADMIN_MAIL);
    expect(mail.subject).toBe('Нет связи: NOTICE-2');
    expect(mail.text).toContain('Устройство NOTICE-2 (');
  });

  it('mails nobody when the project has no administrator e-mail left', async () => {
    // The address cannot be removed while a switch is on.
    const admin = await adminClient(t);
    expect((await admin.patch('/settings/general', { admin_email: null })).statusCode).toBe(400);
    await settings({ notify_about_offline_device: false, notify_about_device_task_failed: false, admin_email: null });
    expect(await t.app.services.projectSettings.deviceNoticeRecipient(t.project.projectId, 'device_offline')).toBeNull();
  });
});

async function cloneConnection() {
  const { rows } = (await t.database.db.execute('SELECT current_database() AS db' as never)) as unknown as { rows: { db: string }[] };
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${rows[0]!.db}`;
  return openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
}
