import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, buildTestApp, client, login, type TestApp } from '../../../test/helpers.js';

/**
 * Two instances on one database, as behind a proxy: System info names the one that answered and
 * lists both with their workers; a worker action may be aimed at the other instance, which carries
 * it out; an instance that closes leaves the list at once, one that dies after its refreshes stop.
 */
let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await buildTestApp({ env: { INSTANCE_NAME: 'front-a' } });
  b = await buildTestApp({ database: a.database, env: { INSTANCE_NAME: 'front-b' } });
});
afterAll(async () => {
  await b.close().catch(() => undefined);
  await a.close();
});

type Worker = { name: string; is_running: boolean };
type Instance = { id: string; name: string; self: boolean; workers: Worker[]; pid: number };
const running = (i: Instance, name: string) => i.workers.find((w) => w.name === name)?.is_running;

describe('several instances on one database', () => {
  it('System info names the answering instance and lists every live one with its workers', async () => {
    const admin = await adminClient(a);
    const info = (await admin.get('/system/info')).json().data as { instance: { id: string; name: string }; instances: Instance[] };
    expect(info.instance).toEqual({ id: a.app.instances.id, name: 'front-a' });
    expect(info.instances.map((i) => [i.name, i.self])).toEqual([
      ['front-a', true],
      ['front-b', false],
    ]);
    expect(running(info.instances[1]!, 'mail')).toBe(true);
    expect(info.instances[1]!.pid).toBe(process.pid);
  });

  it('stops and starts a worker of the other instance, and only there', async () => {
    const admin = await adminClient(a);
    const stopped = await admin.post(`/system/workers/mail/stop?instance=${b.app.instances.id}`);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json().data).toEqual({ name: 'mail', is_running: false, controllable: true });
    expect(b.app.services.mailer.running).toBe(false);
    expect(a.app.services.mailer.running).toBe(true);
    // The list shows it at once, not at the next refresh.
    const info = (await admin.get('/system/info')).json().data as { instances: Instance[] };
    expect(running(info.instances.find((i) => i.name === 'front-b')!, 'mail')).toBe(false);
    expect(running(info.instances.find((i) => i.name === 'front-a')!, 'mail')).toBe(true);
    const started = await admin.post(`/system/workers/mail/start?instance=${b.app.instances.id}`);
    expect(started.json().data.is_running).toBe(true);
    expect(b.app.services.mailer.running).toBe(true);
    // Audited on the asking instance, naming the target.
    const audit = await a.database.db.execute(
      sql`SELECT action FROM audit_events WHERE entity = 'system_worker' AND entity_id = ${`mail@${b.app.instances.id}`} ORDER BY id`,
    );
    expect((audit as unknown as { rows: { action: string }[] }).rows.map((r) => r.action)).toEqual(['stop', 'start']);
  });

  it('refuses an instance that is not running, and a caller without the workers permission', async () => {
    const admin = await adminClient(a);
    const unknown = await admin.post('/system/workers/mail/stop?instance=feedfacefeedface');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('the instance is not running');
    const viewer = await makeUser(a.database.db, {
      projectId: a.project.projectId,
      roleId: await makeRole(a.database.db, a.project.projectId, ['can_view_system_info']),
      groupIds: [a.project.rootGroupId],
    });
    const v = client(a.app, await login(a.app, viewer.login, viewer.password));
    expect((await v.post(`/system/workers/mail/stop?instance=${b.app.instances.id}`)).statusCode).toBe(403);
    expect(b.app.services.mailer.running).toBe(true);
  });

  it('an instance whose refreshes stopped drops off the list after three periods; one that closes, at once', async () => {
    const admin = await adminClient(a);
    await a.database.db.execute(sql`UPDATE instances SET seen_at = now() - interval '31 seconds' WHERE id = ${b.app.instances.id}`);
    let names = ((await admin.get('/system/info')).json().data.instances as Instance[]).map((i) => i.name);
    expect(names).toEqual(['front-a']);
    expect((await admin.post(`/system/workers/mail/stop?instance=${b.app.instances.id}`)).statusCode).toBe(404);
    await b.app.instances.beat();
    names = ((await admin.get('/system/info')).json().data.instances as Instance[]).map((i) => i.name);
    expect(names).toEqual(['front-a', 'front-b']);
    await b.close();
    names = ((await admin.get('/system/info')).json().data.instances as Instance[]).map((i) => i.name);
    expect(names).toEqual(['front-a']);
  });

  it('closes all the same when the database is already away (its row is left for the others to forget)', async () => {
    const c = await buildTestApp({ env: { INSTANCE_NAME: 'front-c' } });
    await c.database.close();
    await expect(c.app.close()).resolves.toBeUndefined();
  });
});
