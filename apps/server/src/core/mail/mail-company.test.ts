// Mails carry the management company (white-label settings) in their footer, and every link in them
// leads to the project's server URL, else PUBLIC_URL (issue 14): as a real SMTP peer receives them.
import { MAIL_COMPANY_PLACEHOLDERS, MAIL_TEMPLATE_KINDS } from '@atrium/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGroup, makeUser } from '../../../test/factories/user.factory.js';
import { adminClient, type client } from '../../../test/helpers.js';
import { freshIp, PUBLIC_URL, type RegistrationTestbed, registrationTestbed } from '../../../test/registration-setup.js';
import type { ReceivedMail } from '../../../test/smtp-peer.js';
import { AnnouncesRepository } from '../../modules/announces/announces.repository.js';
import { AnnouncesService } from '../../modules/announces/announces.service.js';
import { projects } from '../../modules/projects/projects.table.js';
import { solidPng } from '../../modules/settings/apple-wallet.service.js';
import { startOidcProvider } from '../../modules/sso/oidc-provider.fixture.js';
import { users } from '../../modules/users/users.table.js';
import { queryRows } from '../db/client.js';
import { ProjectInfo } from '../project-info.js';
import { MailRepository } from './mail.repository.js';
import { Mailer } from './mailer.js';
import { COMPANY_LOGO_CID, companyParams, type MailKind, renderMail, renderTemplate, sampleParams } from './templates.js';

const SERVER_URL = 'https://door.riverside.example';
const COMPANY = {
  name: 'Riverside Management',
  address: '1 River Street, Springfield',
  email: 'office@riverside.example',
  phone: '+1 555 0100',
};

let bed: RegistrationTestbed;
let admin: ReturnType<typeof client>;
let n = 0;
const db = () => bed.t.app.database.db;
const png = solidPng(8, '#336699');

function multipart(field: string, name: string, data: Buffer) {
  const boundary = '----atrium-mail-company-test';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function setServerUrl(url: string | null) {
  const r = await admin.patch('/settings/general', { server_url: url });
  expect(r.statusCode, r.body).toBe(200);
}
let storedLogo: Buffer = Buffer.alloc(0);
async function setCompany(v: Partial<Record<keyof typeof COMPANY, string | null>>, logo: boolean) {
  const r = await admin.patch('/settings/white-label', v);
  expect(r.statusCode, r.body).toBe(200);
  if (logo) {
    const up = multipart('logo', 'logo.png', png);
    const l = await admin.raw('POST', '/settings/white-label/logo', up.payload, up.headers);
    expect(l.statusCode, l.body).toBe(200);
    // What the server keeps is its own re-encoded copy (core/files.ts): the mails carry that one.
    storedLogo = (await bed.t.app.inject({ method: 'GET', url: l.json().data.logo_url })).rawPayload;
  } else {
    const l = await admin.raw('DELETE', '/settings/white-label/logo');
    expect(l.statusCode, l.body).toBe(200);
  }
}
const clearCompany = () => setCompany({ name: null, address: null, email: null, phone: null }, false);

async function person(locale: 'en' | 'ru' = 'en', groupIds?: number[]) {
  const email = `resident${++n}@mail-company.test`;
  const u = await makeUser(db(), { projectId: bed.t.project.projectId, name: `Resident ${n}`, email, ...(groupIds ? { groupIds } : {}) });
  await db().update(users).set({ locale }).where(eq(users.id, u.id));
  return { ...u, email };
}
const invite = async (userId: number) => bed.t.app.services.registration.sendInvite(bed.adminContext(), userId);

/** The footer as the text part shows it, for a company with every field. */
const fullFooterEn = `${COMPANY.name}\n${COMPANY.address}\nPhone: ${COMPANY.phone}\nE-mail: ${COMPANY.email}`;
const fullFooterRu = `${COMPANY.name}\n${COMPANY.address}\nТелефон: ${COMPANY.phone}\nЭл. почта: ${COMPANY.email}`;

function expectNoFooter(mail: Pick<ReceivedMail, 'text' | 'html'>) {
  for (const part of [mail.text, mail.html]) {
    expect(part).not.toMatch(/Phone:|E-mail:|Телефон:|Эл\. почта:|\{company_/);
    expect(part).not.toContain('<img');
  }
}

beforeAll(async () => {
  bed = await registrationTestbed();
  await bed.useSmtp(true);
  await bed.switches({});
  admin = await adminClient(bed.t);
}, 120_000);
afterAll(() => bed?.close());

describe('the company footer and the placeholders', () => {
  it('leaves out the lines of what the white-label does not have, in every built-in text and both languages', () => {
    for (const kind of MAIL_TEMPLATE_KINDS as readonly MailKind[])
      for (const locale of ['en', 'ru']) {
        const params = sampleParams(kind, locale, 'Test project') as never;
        const empty = renderMail(kind, locale, params, undefined, companyParams(null));
        expectNoFooter(empty);
        const full = renderMail(kind, locale, params, undefined, companyParams({ ...COMPANY, logoKey: 'logos/x.png' }));
        expect(full.text.endsWith(`${locale === 'ru' ? fullFooterRu : fullFooterEn}\n`), `${kind} ${locale}`).toBe(true);
        expect(full.html).toContain(`<p><img src="cid:${COMPANY_LOGO_CID}" alt="${COMPANY.name}"`);
        expect(full.html).toContain(`<p>${COMPANY.name}<br>1 River Street, Springfield<br>`);
        // The logo is drawn in the HTML part only.
        expect(full.text).not.toContain('cid:');
      }
  });

  it('keeps the lines that have a value: a phone alone shows without the others', () => {
    const t = {
      subject: 'S',
      body: 'Hello.\n\n{company_logo}\n\n{company_name}\n{company_address}\nPhone: {company_phone}\nE-mail: {company_email}',
    };
    const onlyPhone = renderTemplate(t, companyParams({ name: null, address: null, email: null, phone: '+7 900 000', logoKey: null }));
    expect(onlyPhone.text).toBe('Hello.\n\nPhone: +7 900 000\n');
    expect(onlyPhone.html).toContain('<p>Hello.</p>\n<p>Phone: +7 900 000</p>');
    expect(onlyPhone.html).not.toContain('<img');
    // Company values are escaped like every other value.
    const html = renderTemplate(
      t,
      companyParams({ name: '<b>A&B</b>', address: null, email: null, phone: null, logoKey: 'logos/a.png' }),
    ).html;
    expect(html).toContain('&lt;b&gt;A&amp;B&lt;/b&gt;');
    expect(html).toContain('alt="&lt;b&gt;A&amp;B&lt;/b&gt;"');
    // A line of template words and unknown marks stays as it is.
    expect(renderTemplate({ subject: 'S', body: 'Call {nobody}' }, companyParams(null)).text).toBe('Call {nobody}\n');
  });

  it('offers the company placeholders for every kind in the template editor, and still asks for the required ones', async () => {
    const types = (await admin.get('/mail-templates/types')).json().data as { kind: string; placeholders: string[] }[];
    expect(types.map((x) => x.kind).sort()).toEqual([...MAIL_TEMPLATE_KINDS].sort());
    for (const x of types) expect(x.placeholders).toEqual(expect.arrayContaining([...MAIL_COMPANY_PLACEHOLDERS]));

    const footerOnly = { kind: 'invite', locale: 'en', subject: 'Welcome', body: 'Hi {name}\n\n{company_name}\nTel. {company_phone}' };
    const refused = await admin.put('/mail-templates', footerOnly);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([expect.objectContaining({ field: 'body', params: { placeholders: '{link}' } })]);
    const preview = await admin.post('/mail-templates/preview', footerOnly);
    expect(preview.statusCode).toBe(400);

    await setServerUrl(SERVER_URL);
    await setCompany({ name: COMPANY.name, phone: null }, true);
    const ok = { ...footerOnly, body: 'Hi {name}\n\n{link}\n\n{company_logo}\n\n{company_name}\nTel. {company_phone}' };
    const shown = await admin.post('/mail-templates/preview', ok);
    expect(shown.statusCode, shown.body).toBe(200);
    const p = shown.json().data as { text: string; html: string };
    // The preview shows the project's real company and links; the logo from its public address.
    expect(p.text).toBe(`Hi John Smith\n\n${SERVER_URL}/link/abc123\n\n${COMPANY.name}\n`);
    expect(p.html).toMatch(/<img src="\/api\/v0\/files\/logos\/[^"]+\.png"/);
    const logo = await bed.t.app.inject({ method: 'GET', url: /src="([^"]+)"/.exec(p.html)?.[1] as string });
    expect(logo.statusCode).toBe(200);
    const saved = await admin.put('/mail-templates', ok);
    expect(saved.statusCode, saved.body).toBe(200);

    // The saved template is the one the next invitation uses; the mail carries the logo inside.
    const u = await person();
    await invite(u.id);
    const mail = await bed.peer.next(u.email);
    expect(mail.subject).toBe('Welcome');
    expect(mail.text).toMatch(new RegExp(`^Hi Resident \\d+\n\n${SERVER_URL}/registration/[A-Za-z0-9_-]+\n\n${COMPANY.name}\\s*$`));
    expect(mail.parts).toEqual([expect.objectContaining({ cid: COMPANY_LOGO_CID, contentType: 'image/png', content: storedLogo })]);

    // A mailed preview carries the logo inside as well.
    const sent = await admin.post('/mail-templates/send-preview', { ...ok, to: 'preview@mail-company.test' });
    expect(sent.statusCode, sent.body).toBe(200);
    const pm = await bed.peer.next('preview@mail-company.test');
    expect(pm.html).toContain(`src="cid:${COMPANY_LOGO_CID}"`);
    expect(pm.parts.map((x) => x.cid)).toEqual([COMPANY_LOGO_CID]);

    expect((await admin.delete(`/mail-templates/${saved.json().data.id}`)).statusCode).toBe(200);
    await clearCompany();
    await setServerUrl(null);
  });
});

describe('the link base', () => {
  it('is the server URL without its trailing slash, else PUBLIC_URL; kept until the read cache moves on', async () => {
    const projectId = bed.t.project.projectId;
    let generation = 1;
    const info = new ProjectInfo(db(), 'https://fallback.example/', null, { begin: () => generation });
    const setRaw = (url: string | null, on: Pick<ReturnType<typeof db>, 'update'> = db()) =>
      on
        .update(projects)
        .set({ settings: sql`jsonb_set(${projects.settings}, '{server_url}', ${JSON.stringify(url)}::jsonb)` })
        .where(eq(projects.id, projectId));
    await setRaw(null);
    expect(await info.linkBase(projectId)).toBe('https://fallback.example');
    await setRaw('https://a.example//');
    // Same generation: the kept answer, no read.
    expect(await info.linkBase(projectId)).toBe('https://fallback.example');
    generation++;
    expect(await info.link(projectId, '/announce/x')).toBe('https://a.example/announce/x');
    // In the caller's transaction, a read of that transaction (the kept answer while it is current).
    await db().transaction(async (tx) => {
      await setRaw('https://b.example', tx);
      generation++;
      expect(await info.linkBase(projectId, tx)).toBe('https://b.example');
    });
    // Without the read cache's generation (changes unheard), every call reads.
    const uncached = new ProjectInfo(db(), 'https://fallback.example', null, { begin: () => undefined });
    await setRaw('');
    expect(await uncached.linkBase(projectId)).toBe('https://fallback.example');
    await setRaw(null);
  });
});

describe('mails as a real SMTP peer receives them', () => {
  it('without a white-label or a server URL: no footer, links to PUBLIC_URL', async () => {
    await clearCompany();
    await setServerUrl(null);
    const u = await person();
    await invite(u.id);
    const mail = await bed.peer.next(u.email);
    expect(mail.text).toMatch(new RegExp(`${PUBLIC_URL}/registration/[A-Za-z0-9_-]+\n`));
    expectNoFooter(mail);
    expect(mail.parts).toEqual([]);
  });

  it('with both: the invitation and the recovery mail (en, ru) name the company, show its logo and link to the server URL', async () => {
    await setServerUrl(`${SERVER_URL}/`);
    await setCompany(COMPANY, true);

    const u = await person();
    await invite(u.id);
    const mail = await bed.peer.next(u.email);
    expect(mail.text).toMatch(new RegExp(`\n${SERVER_URL}/registration/[A-Za-z0-9_-]+\n`));
    expect(mail.text).not.toContain(PUBLIC_URL);
    expect(mail.text.trimEnd().endsWith(fullFooterEn)).toBe(true);
    expect(mail.html).toContain(`<a href="${SERVER_URL}/registration/`);
    expect(mail.html).toContain(`<p><img src="cid:${COMPANY_LOGO_CID}" alt="${COMPANY.name}"`);
    expect(mail.html).toContain(`Phone: ${COMPANY.phone.replace(/\+/g, '+')}<br>E-mail: ${COMPANY.email}</p>`);
    expect(mail.parts).toEqual([
      expect.objectContaining({ cid: COMPANY_LOGO_CID, contentType: 'image/png', disposition: 'inline', content: storedLogo }),
    ]);

    const ru = await person('ru');
    const asked = await bed.call('POST', '/password/recovery', { email: ru.email }, { ip: freshIp() });
    expect(asked.statusCode, asked.body).toBe(200);
    const reset = await bed.peer.next(ru.email);
    expect(reset.text).toMatch(new RegExp(`\n${SERVER_URL}/password/reset/[A-Za-z0-9_-]+\n`));
    expect(reset.text.trimEnd().endsWith(fullFooterRu)).toBe(true);
    expect(reset.parts.map((x) => x.cid)).toEqual([COMPANY_LOGO_CID]);
  });

  it('follows a change at once: a company with only a name and no logo, links back on PUBLIC_URL', async () => {
    await setServerUrl(SERVER_URL);
    await setCompany(COMPANY, true);
    await invite((await person()).id); // read (and kept) with the full company
    await bed.peer.next(`resident${n}@mail-company.test`);

    await setCompany({ name: 'Only A Name', address: null, email: null, phone: null }, false);
    await setServerUrl(null);
    const u = await person();
    await invite(u.id);
    const mail = await bed.peer.next(u.email);
    expect(mail.text).toMatch(new RegExp(`${PUBLIC_URL}/registration/[A-Za-z0-9_-]+\n\n[^\n]+\n\nOnly A Name\\s*$`));
    expect(mail.text).not.toMatch(/Phone:|E-mail:/);
    expect(mail.html).not.toContain('<img');
    expect(mail.parts).toEqual([]);
  });

  it('sends a queued mail without the image when the logo went before it was sent', async () => {
    const sent: { html?: string | null; attachments?: unknown }[] = [];
    const projectId = bed.t.project.projectId;
    const info = bed.t.app.services.projectInfo;
    const mailer = new Mailer(new MailRepository(db()), {
      retryIntervalMs: 0,
      defaultSmtp: { host: '127.0.0.1', port: 25, secure: false, from: 'a@b.example' },
      send: async (_s, m) => {
        sent.push(m);
      },
      projectInfo: info,
    });
    await setCompany(COMPANY, true);
    const q = await mailer.queue(db(), {
      projectId,
      to: 'late@mail-company.test',
      locale: 'en',
      kind: 'password_reset',
      params: { name: 'N', login: 'l', link: 'x', minutes: 5 },
    });
    await setCompany({}, false);
    expect(await mailer.deliver(q.id)).toBe('sent');
    expect(sent[0]?.html).toContain(COMPANY.name);
    expect(sent[0]?.html).not.toContain('<img');
    expect(sent[0]?.html).not.toContain('<p></p>');
    expect(sent[0]?.attachments).toBeUndefined();
    await clearCompany();
  });

  it('an announce to many: links to the server URL, the company footer, the settings read once per batch', async () => {
    await setServerUrl(SERVER_URL);
    await setCompany(COMPANY, true);
    await bed.t.app.services.announces.stopWorker();
    const g = await makeGroup(db(), bed.t.project.projectId, bed.t.project.rootGroupId);
    const people = [];
    for (let i = 0; i < 30; i++) people.push(await person(i % 2 ? 'ru' : 'en', [g]));
    const a = (await admin.put('/announcements', { name: 'Water', subject: 'Water off', domains: [g], send_via: 'email' })).json().data;
    expect((await admin.post(`/announcements/${a.id}/start`)).json().data.status).toBe('sending');

    const reads: number[] = [];
    const info = bed.t.app.services.projectInfo;
    const worker = new AnnouncesService(new AnnouncesRepository(db()), bed.t.app.services.mailer, bed.t.app.services.notifications, {
      projectInfo: {
        of: (id, tx) => {
          reads.push(id);
          return info.of(id, tx);
        },
      },
      mailsPerSecond: 1000,
      intervalMs: 0,
    });
    await worker.tick();
    const [row] = await queryRows<{ status: string }>(db(), sql`SELECT status FROM announces WHERE id = ${a.id}`);
    expect(row?.status).toBe('sent');
    // One chunk of 30 recipients: the project's settings were asked for once.
    expect(reads).toEqual([bed.t.project.projectId]);
    for (const [i, p] of people.entries()) {
      const mail = await bed.peer.next(p.email);
      expect(mail.text).toMatch(new RegExp(`\n${SERVER_URL}/announce/[0-9a-f]{64}\n`));
      expect(mail.text.trimEnd().endsWith(i % 2 ? fullFooterRu : fullFooterEn)).toBe(true);
      expect(mail.parts.map((x) => x.cid)).toEqual([COMPANY_LOGO_CID]);
    }
    bed.t.app.services.announces.startWorker();
    await clearCompany();
    await setServerUrl(null);
  });
});

describe('links that are not in mails', () => {
  it('single sign-on sends the provider back to the server URL, else PUBLIC_URL', async () => {
    const idp = await startOidcProvider();
    try {
      const p = await admin.put('/sso-providers', {
        name: 'IdP',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
      });
      expect(p.statusCode, p.body).toBe(200);
      const redirectUri = async () => {
        const start = await bed.t.app.inject({ method: 'GET', url: `/api/v0/sso/${p.json().data.id}/start` });
        expect(start.statusCode).toBe(302);
        return new URL(String(start.headers.location)).searchParams.get('redirect_uri');
      };
      await setServerUrl(SERVER_URL);
      expect(await redirectUri()).toBe(`${SERVER_URL}/api/v0/sso/callback`);
      await setServerUrl(null);
      expect(await redirectUri()).toBe(`${PUBLIC_URL}/api/v0/sso/callback`);
    } finally {
      await idp.close();
    }
  });
});
