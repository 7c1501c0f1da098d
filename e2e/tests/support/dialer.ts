import { SimDevice } from '@atrium/device-sim';
import type { Browser, Page } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, mqttPort } from '../../playwright.config';
import { type Api, expect, makeUser, signInFromLogin, workerMark } from './console';

/** The web dialer in a browser: a user's softphone, its button, its call cards. */

let seq = 0;

/** The browsers of softphone tests: a fake camera and microphone, allowed without asking (`test.use(withFakeMedia)`). */
export const withFakeMedia = {
  launchOptions: {
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  },
};

/** A virtual number not used yet (numbers are unique in a project). */
export const newNumber = (prefix: string): string => `${prefix}${Date.now().toString().slice(-5)}${workerMark}${++seq}`;

export async function groupOf(admin: Api): Promise<number> {
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const id = profile.domains[0]?.id;
  if (!id) throw new Error('the administrator has no group');
  return id;
}

export interface Softphone {
  page: Page;
  number: string;
  numberId: number;
  name: string;
}

/**
 * A user holding `permissions` with a master virtual number, signed in in a browser of their own
 * (microphone and camera allowed), the dialer registered. `initScript` runs in every document of that
 * browser from its first script on, the sign-in page included.
 */
export async function softphone(
  browser: Browser,
  admin: Api,
  name: string,
  permissions: string[],
  initScript?: () => void,
): Promise<Softphone> {
  const user = await makeUser(admin, { permissions, name });
  const number = newNumber('7');
  const sip = await admin.call<{ id: number }>('PUT', '/sip-numbers', {
    number,
    password: `Sip${number}pass`,
    domain_id: await groupOf(admin),
    user_id: user.id,
    purpose: 'master_sip_number',
  });
  const context = await browser.newContext({ permissions: ['microphone', 'camera'] });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  await signInFromLogin(page, user);
  await expect(registered(page)).toBeVisible({ timeout: 20_000 });
  return { page, number, numberId: sip.id, name };
}

export const dialerButton = (page: Page) => page.locator('[data-floating-button="dialer"]');
export const registered = (page: Page) => page.locator('[data-registration="registered"]');
export const ringing = (page: Page) => page.locator('[data-ringing="true"]');
export const callCard = (page: Page) => page.getByTestId('dialer-call');

/** Dials `number` on the keypad (opening the dialer first when it is closed). */
export async function dial(page: Page, number: string): Promise<void> {
  if (!(await page.getByTestId('dialer-keypad').isVisible())) await dialerButton(page).click();
  const keypad = page.getByTestId('dialer-keypad');
  const display = page.getByTestId('dialer-keypad-display');
  for (const digit of number) await keypad.getByRole('button', { name: digit, exact: true }).click();
  await expect(display).toHaveText(number);
  // A dial the dialer does not place (its registration renewing at that moment on a busy machine:
  // it warns and keeps the number) is placed again once registered; a placed one empties the keypad.
  await expect(async () => {
    await expect(registered(page)).toBeVisible();
    if ((await display.textContent()) === number) await page.getByRole('button', { name: 'Voice call' }).click();
    await expect(display).not.toHaveText(number, { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
}

/**
 * A door panel: the device (simulated on the broker, initialised through the API) and its virtual
 * number, which SIPp calls with. `name` and `serialPrefix` tell one test's panels from another's.
 */
export async function doorPanel(
  admin: Api,
  name: string,
  serialPrefix: string,
): Promise<{ sim: SimDevice; number: string; password: string; name: string }> {
  const stamp = `${Date.now().toString(36)}${workerMark}${++seq}`.toUpperCase();
  const fullName = `${name} ${stamp}`;
  const serial = `${serialPrefix}${stamp}`;
  const domainId = await groupOf(admin);
  const device = await admin.call<{ id: number }>('PUT', '/devices', {
    name: fullName,
    model: 'AP-100',
    serial_number: serial,
    domain_id: domainId,
  });
  const { password } = await admin.call<{ password: string }>('POST', `/devices/${device.id}/init/apply`, {});
  const sim = new SimDevice({ url: `mqtt://127.0.0.1:${mqttPort}`, serial, password, type: 'panel', model: 'AP-100', reconnectMs: 0 });
  await sim.start();
  const number = newNumber('6');
  const sipPassword = `Panel${number}Pw`;
  await admin.call('PUT', '/sip-numbers', { number, password: sipPassword, domain_id: domainId, device_id: device.id });
  return { sim, number, password: sipPassword, name: fullName };
}
