import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

// One server for the whole run, on its own port and a fresh data directory (PGlite), started
// and stopped by Playwright itself. Its administrator's credentials are fixed here.
const port = Number(process.env.E2E_PORT ?? 8299);
// The mail relay of the server: tests that read e-mails listen here (tests/support/mailbox.ts).
export const smtpPort = Number(process.env.E2E_SMTP_PORT ?? port - 1);
// The embedded MQTT broker of the server (devices sign in there with their serial and device password).
export const mqttPort = Number(process.env.E2E_MQTT_PORT ?? port - 2);
// The SIP server of the server: UDP and TCP, and the WebSocket the browsers' dialers register over.
export const sipPort = Number(process.env.E2E_SIP_PORT ?? port - 3);
export const sipWsPort = Number(process.env.E2E_SIP_WS_PORT ?? port - 4);
// The media relay's control port: tests/media-relay.spec.ts starts rtpengine there (support/rtpengine.ts);
// while nothing listens, the server sends media end to end and the other specs are unaffected.
export const rtpenginePort = Number(process.env.E2E_RTPENGINE_PORT ?? port - 5);
export const smtpLogin = { user: 'e2e-mailer', password: 'e2e-mail-password' };
export const baseURL = `http://127.0.0.1:${port}`;
/** Debian's Chromium and the flags every test browser starts with (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'atrium-e2e-'));
process.env.E2E_DATA_DIR = dataDir;

/**
 * Specs that must run with no other spec beside them, one after another once the rest is done: each
 * changes what every page or sign-in reads (settings, licences, SSO, the administrator's language, a
 * backup restored over the groups, banned addresses, the media relay every call goes through), or
 * raises the administrator's important popups over other specs' pages, or asserts on something the
 * whole project shares (devices online, every webhook delivery, the built-in role by its count).
 * Every other spec runs in two workers: it works on people, groups, devices and numbers of its own.
 */
export const ALONE = [
  'access-walk', // a revoked card pops up for every administrator; asserts exactly one popup
  'audit-events', // switches the administrator's language
  'backups', // restores groups: rows added meanwhile are removed
  'branch-admin', // finds the built-in role by its permission count (other specs make such roles)
  'conversations', // its operator sees every conversation in the project, and finds its own by subject
  'device-alarms', // alarms pop up for every administrator
  'device-walk', // makes the root group's offline devices notify the administrator
  'devices', // counts the devices online in the whole project
  'general-settings', // mail, SIP, push, white-label settings; restarts the broker every device is on
  'integrations', // the administrator's language; a rule over every device in the project
  'integrations-api', // a webhook hears every denied access in the project
  'ip-blocking', // bans 127.0.0.1 for SIP; "no address is banned"
  'licenses', // licences without SIP, or capping it
  'lists', // the administrator's language, for minutes
  'mail-templates', // the project's invitation template
  'media-relay', // rtpengine on the relay's fixed port: every call goes through it while it runs
  'russian', // the administrator's language
  'sso', // an SSO provider on every sign-in page
].map((name) => `**/${name}.spec.ts`);

export default defineConfig({
  testDir: './tests',
  // The margins are for a slow day: the same CI has run its parallel phase in 8 minutes and in 16 on
  // this machine, and at 16 a ten-page walk passed 45 s and a first page after signing in 10 s.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  // Two cores: the server, the browsers and SIPp share them; a third worker only waits for them.
  workers: 2,
  globalSetup: './global-setup.ts',
  retries: process.env.CI ? 1 : 0,
  reporter: [['list'], ['json']],
  use: {
    baseURL,
    locale: 'en-US',
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
  },
  projects: [
    { name: 'chromium', testIgnore: ALONE, use: { browserName: 'chromium' } },
    // After the others (a dependency), in one worker. A failure above skips these: CI fails either way.
    { name: 'alone', testMatch: ALONE, dependencies: ['chromium'], workers: 1, use: { browserName: 'chromium' } },
  ],
  webServer: {
    command: `node --import tsx ${path.resolve(import.meta.dirname, '../apps/server/src/main.ts')}`,
    url: `${baseURL}/api/v0/info`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: baseURL,
      ADMIN_LOGIN: 'admin',
      ADMIN_PASSWORD: 'e2e-admin-password',
      MQTT_PORT: String(mqttPort),
      MQTT_HOST: '127.0.0.1',
      SIP_PORT: String(sipPort),
      SIP_WS_PORT: String(sipWsPort),
      SIP_HOST: '127.0.0.1',
      RTPENGINE_URL: `udp:127.0.0.1:${rtpenginePort}`,
      LOG_LEVEL: 'warn',
      SMTP_URL: `smtp://${smtpLogin.user}:${smtpLogin.password}@127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'Atrium e2e <atrium@e2e.example>',
      // webhooks (issue 14): the test's receiver listens on 127.0.0.1; a failed delivery is retried after a second
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      SSO_ALLOW_PRIVATE: 'true',
      PUSH_ALLOW_PRIVATE: 'true',
      INTEGRATIONS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_RETRY_BASE_MS: '1000',
    },
  },
});
