import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeUser } from '../../../test/factories/user.factory.js';
import { adminClient } from '../../../test/helpers.js';
import { type RegistrationTestbed, registrationTestbed } from '../../../test/registration-setup.js';

let bed: RegistrationTestbed;
let admin: Awaited<ReturnType<typeof adminClient>>;
let n = 0;
beforeAll(async () => {
  bed = await registrationTestbed();
  admin = await adminClient(bed.t);
});
afterAll(() => bed?.close());
beforeEach(() => bed.switches({}));

const invitee = () =>
  makeUser(bed.t.app.database.db, {
    projectId: bed.t.project.projectId,
    email: `answer${++n}@example.test`,
    groupIds: [bed.t.project.rootGroupId],
  });

describe('the answer to "send registration link" says where the mail went', () => {
  it('relayed to SMTP when the project has SMTP settings', async () => {
    await bed.useSmtp(true);
    const u = await invitee();
    const res = await admin.post(`/users/${u.id}/registration-link`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ email: `answer${n}@example.test`, mail_status: 'queued' });
    await bed.peer.next(`answer${n}@example.test`);
  });

  it('kept in the outbox when no SMTP is configured, where an administrator finds it', async () => {
    await bed.useSmtp(false);
    const u = await invitee();
    const res = await admin.post(`/users/${u.id}/registration-link`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ email: `answer${n}@example.test`, mail_status: 'stored' });
    const outbox = (await admin.get('/outbox')).json().data;
    expect(outbox[0]).toMatchObject({ to: `answer${n}@example.test`, status: 'stored' });
  });
});
