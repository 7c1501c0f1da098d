import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeRole, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, client, login } from '../../../test/helpers.js';
import { freshIp, type RegistrationTestbed, registrationTestbed } from '../../../test/registration-setup.js';
import { composeMail } from '../../core/mail/compose.js';
import { renderMail } from '../../core/mail/templates.js';
import { auditEvents } from '../audit/audit.table.js';
import { users } from '../users/users.table.js';

let bed: RegistrationTestbed;
let admin: Awaited<ReturnType<typeof adminClient>>;
let n = 0;
beforeAll(async () => {
  bed = await registrationTestbed();
  admin = await adminClient(bed.t);
}, 120_000);
afterAll(() => bed?.close());

const db = () => bed.t.app.database.db;
const projectId = () => bed.t.project.projectId;
const root = () => bed.t.project.rootGroupId;
const INVITE = 'Welcome {name}! Your login is {login}.\n\nStart here: {link}';

describe('mail templates', () => {
  it('lists the built-in text for every kind and language, and checks the required placeholders', async () => {
    const list = (await admin.get('/mail-templates')).json().data;
    expect(list).toHaveLength(12);
    const invite = list.find((x: { kind: string; locale: string }) => x.kind === 'invite' && x.locale === 'en');
    expect(invite).toMatchObject({ id: null, is_default: true, subject: 'Your invitation to {project}', required_placeholders: ['link'] });
    expect((await admin.get('/mail-templates?kind=announce&locale=ru')).json().data).toMatchObject([
      { kind: 'announce', locale: 'ru', required_placeholders: ['body', 'link'] },
    ]);
    expect((await admin.get('/mail-templates/types')).json().data.map((x: { kind: string }) => x.kind)).toEqual([
      'invite',
      'self_registration_code',
      'password_reset',
      'announce',
      'device_offline',
      'device_task_failed',
    ]);

    const missing = await admin.put('/mail-templates', { kind: 'announce', locale: 'en', subject: 'News', body: 'Hello {name}' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toEqual([
      { field: 'body', message: 'validation.must_contain', params: { placeholders: '{body}, {link}' } },
    ]);
    expect((await admin.put('/mail-templates', { kind: 'nope', locale: 'en', subject: 'x', body: '{link}' })).statusCode).toBe(400);
    expect((await admin.put('/mail-templates', { kind: 'invite', locale: 'de', subject: 'x', body: '{link}' })).statusCode).toBe(400);
    const huge = await admin.put('/mail-templates', { kind: 'invite', locale: 'en', subject: 'x', body: `{link}${'a'.repeat(20_001)}` });
    expect(huge.statusCode).toBe(400);

    const made = await admin.put('/mail-templates', { kind: 'password_reset', locale: 'en', subject: 'Reset', body: 'Go: {link}' });
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json().data.id;
    // One per kind, language and scope.
    expect(
      (await admin.put('/mail-templates', { kind: 'password_reset', locale: 'en', subject: 'Again', body: '{link}' })).statusCode,
    ).toBe(409);
    const patched = await admin.patch(`/mail-templates/${id}`, { body: 'no link here' });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().details[0]).toMatchObject({
      field: 'body',
      message: 'validation.must_contain',
      params: { placeholders: '{link}' },
    });
    expect((await admin.patch(`/mail-templates/${id}`, { subject: 'Reset it' })).json().data).toMatchObject({
      subject: 'Reset it',
      body: 'Go: {link}',
    });
    expect((await admin.get(`/mail-templates/${id}`)).json().data.is_default).toBe(false);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.entity, 'mail_template'));
    expect(audit.map((a) => a.action)).toEqual(['create', 'update']);
    // Deleting goes back to the built-in text.
    expect((await admin.delete(`/mail-templates/${id}`)).statusCode).toBe(200);
    expect((await admin.get(`/mail-templates/${id}`)).statusCode).toBe(404);
    expect((await admin.get('/mail-templates?kind=password_reset&locale=en')).json().data[0]).toMatchObject({
      id: null,
      subject: 'Password recovery',
    });
  });

  it('previews with sample values and escapes them in the HTML part', async () => {
    const res = await admin.post('/mail-templates/preview', {
      kind: 'invite',
      locale: 'en',
      subject: 'Hi {name} <b>',
      body: '<script>x</script> {name}\n\nGo: {link}\n\n{unknown}',
    });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json().data;
    expect(p.subject).toBe('Hi John Smith <b>');
    expect(p.text).toContain('<script>x</script> John Smith');
    expect(p.html).toContain('&lt;script&gt;x&lt;/script&gt; John Smith');
    expect(p.html).not.toContain('<script>');
    expect(p.html).toContain('<a href="https://atrium.example/link/abc123">');
    expect(p.text).toContain('{unknown}');
    // A value with markup never becomes markup.
    const m = renderMail('invite', 'en', {
      name: '<img src=x onerror=alert(1)>',
      login: 'a"b',
      link: 'https://x.test/?a=1&b="2"',
      project: 'P',
      days: 1,
    });
    expect(m.html).not.toContain('<img');
    expect(m.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(m.html).toContain('href="https://x.test/?a=1&amp;b=&quot;2&quot;"');
  });

  it('sends a preview through the project SMTP', async () => {
    const res = await admin.post('/mail-templates/send-preview', {
      kind: 'password_reset',
      locale: 'ru',
      subject: 'Сброс для {name}',
      body: 'Ссылка: {link}',
      to: 'preview@example.test',
    });
    expect(res.statusCode, res.body).toBe(200);
    const mail = await bed.peer.next('preview@example.test');
    expect(mail.subject).toBe('Сброс для Иван Петров');
    expect(mail.text).toContain('Ссылка: https://atrium.example/link/abc123');
    await bed.useSmtp(false);
    try {
      const failed = await admin.post('/mail-templates/send-preview', {
        kind: 'invite',
        locale: 'en',
        subject: 's',
        body: '{link}',
        to: 'p@example.test',
      });
      expect(failed.statusCode).toBe(502);
      expect(failed.json().code).toBe('test_mail_failed');
    } finally {
      await bed.useSmtp(true);
    }
    const bad = await admin.post('/mail-templates/send-preview', {
      kind: 'invite',
      locale: 'en',
      subject: 's',
      body: '{link}',
      to: 'not-mail',
    });
    expect(bad.statusCode).toBe(400);
  });

  it('resolves group (nearest first), then project, then built-in; for invite, recovery and announce mails', async () => {
    const building = await makeGroup(db(), projectId(), root());
    const flat = await makeGroup(db(), projectId(), building);
    const other = await makeGroup(db(), projectId(), root());
    const put = async (body: object) => {
      const r = await admin.put('/mail-templates', body);
      expect(r.statusCode, r.body).toBe(200);
      return r.json().data.id as number;
    };
    await put({ kind: 'invite', locale: 'en', subject: 'Project invite for {name}', body: INVITE });
    await put({ kind: 'invite', locale: 'en', domain_id: building, subject: 'Building invite', body: `Building. ${INVITE}` });
    const flatT = await put({ kind: 'invite', locale: 'en', domain_id: flat, subject: 'Flat invite', body: `Flat. ${INVITE}` });

    const person = async (groupIds: number[], locale = 'en') => {
      const email = `tpl${++n}@example.test`;
      const u = await makeUser(db(), { projectId: projectId(), name: 'Kim Lee', email, groupIds });
      if (locale !== 'en') await db().update(users).set({ locale }).where(eq(users.id, u.id));
      return { ...u, email };
    };
    const inviteOf = async (u: { id: number; email: string }) => {
      await bed.t.app.services.registration.sendInvite(bed.adminContext(), u.id);
      return bed.peer.next(u.email);
    };
    // In the flat: the flat's own template.
    const inFlat = await inviteOf(await person([flat]));
    expect(inFlat.subject).toBe('Flat invite');
    expect(inFlat.text).toMatch(/^Flat\. Welcome Kim Lee! Your login is /);
    expect(inFlat.html).toContain('<a href="https://atrium.example/registration/');
    // Deleting it: the building's (the nearest ancestor) applies.
    await admin.delete(`/mail-templates/${flatT}`);
    expect((await inviteOf(await person([flat]))).subject).toBe('Building invite');
    // Another branch: the project's. Russian reader: no Russian template, so the built-in Russian text.
    expect((await inviteOf(await person([other]))).subject).toBe('Project invite for Kim Lee');
    expect((await inviteOf(await person([other], 'ru'))).subject).toBe('Приглашение в Test project');
    // Several groups: the deepest template wins.
    expect((await inviteOf(await person([other, building]))).subject).toBe('Building invite');

    // Password recovery uses its template too.
    await put({
      kind: 'password_reset',
      locale: 'en',
      domain_id: building,
      subject: 'Building reset',
      body: 'Reset with {link} for {login}',
    });
    const resetting = await person([building]);
    expect((await bed.call('POST', '/password/recovery', { email: resetting.email }, { ip: freshIp() })).statusCode).toBe(200);
    const reset = await bed.peer.next(resetting.email);
    expect(reset.subject).toBe('Building reset');
    expect(reset.text).toContain(`for ${resetting.login}`);

    // Self-registration (no group yet): the project template.
    await put({ kind: 'self_registration_code', locale: 'en', subject: 'Code {code}', body: 'Your code: {code} ({link})' });
    await bed.switches({ self: true });
    const email = `self${++n}@example.test`;
    const self = await bed.call(
      'POST',
      '/registration/self',
      {
        user_name: 'Olga Petrova',
        user_country: 'lv',
        user_email: email,
        user_type: 'private',
        user_phone: '+37120000000',
        object_name: 'Riverside 12',
        user_password: 'olga-password-1',
      },
      { ip: freshIp() },
    );
    expect(self.statusCode, self.body).toBe(200);
    const code = await bed.peer.next(email);
    expect(code.subject).toMatch(/^Code [A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(code.text).toMatch(/^Your code: [A-Z0-9]{4}-[A-Z0-9]{4} \(https:\/\/atrium\.example\/registration\/confirm\//);

    // Announce: the template wraps the announce body (its safe HTML kept) for the recipient's group.
    await put({
      kind: 'announce',
      locale: 'en',
      domain_id: building,
      subject: '[Building] {subject}',
      body: 'Dear {name},\n\n{body}\n\nMore: {link}\n\n{from}',
    });
    const reader = await person([flat]);
    const a = await composeMail(db(), {
      projectId: projectId(),
      to: reader.email,
      locale: 'en',
      kind: 'announce',
      recipient: { userId: reader.id },
      params: {
        name: 'Kim',
        subject: 'Water',
        body: { text: 'No water', html: '<p><em>No</em> water</p>' },
        reminder: '',
        link_hint: '',
        link: 'https://a.test/x',
        from: '',
      },
    });
    expect(a.subject).toBe('[Building] Water');
    expect(a.text).toBe('Dear Kim,\n\nNo water\n\nMore: https://a.test/x\n');
    expect(a.html).toContain('<p><em>No</em> water</p>');
    const outside = await composeMail(db(), {
      projectId: projectId(),
      to: 'x@example.test',
      locale: 'en',
      kind: 'announce',
      recipient: { groupIds: [other] },
      params: {
        name: 'Kim',
        subject: 'Water',
        body: { text: 'No water', html: '<p>No water</p>' },
        reminder: '',
        link_hint: 'Read online:',
        link: 'https://a.test/x',
        from: '',
      },
    });
    expect(outside.subject).toBe('Water');
    expect(outside.text).toBe('Hello, Kim.\n\nNo water\n\nRead online:\nhttps://a.test/x\n');
  });

  it('lets only those allowed read and change project and group templates', async () => {
    const mine = await makeGroup(db(), projectId(), root());
    const below = await makeGroup(db(), projectId(), mine);
    const foreign = await makeGroup(db(), projectId(), root());
    const as = async (perms: string[], groupIds: number[]) => {
      const u = await makeUser(db(), { projectId: projectId(), roleId: await makeRole(db(), projectId(), perms), groupIds });
      return client(bed.t.app, await login(bed.t.app, u.login, u.password));
    };
    const body = (domain_id?: number) => ({
      kind: 'invite',
      locale: 'ru',
      subject: 'S',
      body: '{link}',
      ...(domain_id ? { domain_id } : {}),
    });

    const nobody = await as([], [mine]);
    expect((await nobody.get('/mail-templates')).statusCode).toBe(403);
    expect((await nobody.post('/mail-templates/preview', body())).statusCode).toBe(403);

    const viewer = await as(['can_view_project_settings'], [mine]);
    expect((await viewer.get('/mail-templates')).statusCode).toBe(200);
    expect((await viewer.put('/mail-templates', body())).statusCode).toBe(403);
    expect((await viewer.post('/mail-templates/send-preview', { ...body(), to: 'a@example.test' })).statusCode).toBe(403);

    const self = await as(['can_manage_self_domain_mail_templates'], [mine]);
    expect((await self.get('/mail-templates')).statusCode).toBe(403);
    expect((await self.put('/mail-templates', body())).statusCode).toBe(403);
    const own = await self.put('/mail-templates', body(mine));
    expect(own.statusCode, own.body).toBe(200);
    expect((await self.put('/mail-templates', body(below))).statusCode).toBe(403);
    expect((await self.get(`/mail-templates?domain_id=${foreign}`)).statusCode).toBe(403);

    const branch = await as(['can_edit_descendant_domains'], [mine]);
    expect((await branch.put('/mail-templates', body(below))).statusCode).toBe(200);
    expect(
      (await branch.get(`/mail-templates?domain_id=${mine}`))
        .json()
        .data.find((x: { kind: string; locale: string }) => x.kind === 'invite' && x.locale === 'ru').id,
    ).toBe(own.json().data.id);
    const theirs = (await admin.put('/mail-templates', body(foreign))).json().data.id;
    expect((await branch.get(`/mail-templates/${theirs}`)).statusCode).toBe(403);
    expect((await branch.patch(`/mail-templates/${theirs}`, { subject: 'x' })).statusCode).toBe(403);
    expect((await branch.delete(`/mail-templates/${theirs}`)).statusCode).toBe(403);
    // Bulk delete: what one may delete goes, the rest is answered one by one.
    const bulk = await branch.post('/mail-templates/delete', { items: [own.json().data.id, theirs, 2147483000] });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.json().data.deleted).toEqual([own.json().data.id]);
    expect(bulk.json().data.not_deleted.map((x: { id: number; code: string }) => [x.id, x.code])).toEqual([
      [theirs, 'action_prohibited'],
      [2147483000, 'not_found'],
    ]);
    expect((await admin.get(`/mail-templates/${theirs}`)).statusCode).toBe(200);

    // A group that is not one of this project's.
    expect((await admin.get('/mail-templates?domain_id=2147483000')).json().code).toBe('invalid_related_entity');
  });
});
