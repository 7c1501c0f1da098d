// Where residents download the mobile app: kept in the white-label tab, published in the public
// server settings for the profile's download dialog.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, buildTestApp, client, type TestApp } from '../../../test/helpers.js';

let t: TestApp;
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await adminClient(t);
});
afterAll(() => t?.close());
afterEach(async () => {
  await t.database.db.execute(sql`UPDATE projects SET settings = settings - 'white_label'`);
});

const published = async () => (await client(t.app).get('/frontend/server/settings')).json().data.mobile_app;

describe('mobile app download links', () => {
  it('are none until set, then kept in the white-label tab and published to everyone; empty clears one', async () => {
    expect(await published()).toEqual({ app_store_url: null, google_play_url: null });
    const saved = await admin.patch('/settings/white-label', {
      app_store_url: 'https://apps.apple.com/app/id000000001',
      google_play_url: 'https://play.google.com/store/apps/details?id=example.atrium',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data).toMatchObject({
      app_store_url: 'https://apps.apple.com/app/id000000001',
      google_play_url: 'https://play.google.com/store/apps/details?id=example.atrium',
    });
    expect(await published()).toEqual({
      app_store_url: 'https://apps.apple.com/app/id000000001',
      google_play_url: 'https://play.google.com/store/apps/details?id=example.atrium',
    });
    // The other fields of the tab are left as they are.
    await admin.patch('/settings/white-label', { name: 'Riverside' });
    expect((await published()).app_store_url).toBe('https://apps.apple.com/app/id000000001');
    await admin.patch('/settings/white-label', { google_play_url: '' });
    expect(await published()).toEqual({ app_store_url: 'https://apps.apple.com/app/id000000001', google_play_url: null });
    expect((await admin.get('/settings/white-label')).json().data.google_play_url).toBeNull();
  });

  it('must be web addresses', async () => {
    for (const bad of ['javascript:alert(1)', 'not a url', 'ftp://files.example/app.apk', 5]) {
      const res = await admin.patch('/settings/white-label', { app_store_url: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().message).toBe('invalid data sent');
    }
    expect(await published()).toEqual({ app_store_url: null, google_play_url: null });
  });
});
