import type { Page, Request } from '@playwright/test';
import { ADMIN, Api, expect, fieldByLabel, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// An administrator sets up the telephony of a building in the console: a virtual number for a
// resident, a forward rule group ringing it, a SIP trunk to an outside provider; edits them (the
// masked passwords never go back to the server) and deletes them. The SIP password rule is said
// in the form before anything is sent.

/** The body of the next PATCH the page sends to `path` (an edit's save). */
const nextPatch = (page: Page, path: RegExp) =>
  page.waitForRequest((r: Request) => r.method() === 'PATCH' && path.test(new URL(r.url()).pathname), { timeout: 15_000 });

async function pick(page: Page, combobox: string, text: string) {
  await page.getByRole('combobox', { name: combobox, exact: true }).fill(text);
  await page
    .getByRole('option', { name: new RegExp(text) })
    .first()
    .click();
}

test('an administrator sets up a virtual number, a forward rule group and a SIP trunk, edits and deletes them', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const group = profile.domains[0];
  if (!group) throw new Error('the administrator has no group');
  const stamp = Date.now().toString(36).toUpperCase();
  await makeUser(admin, { name: `Resident ${stamp}` });

  await signInFromLogin(page, ADMIN);

  // A virtual number for the resident; the SIP password rule is checked in the form.
  await sideMenu(page).getByRole('menuitem', { name: 'Virtual numbers', exact: true }).click();
  await expect(page).toHaveURL(/\/virtual-numbers$/);
  await page.getByRole('link', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/virtual-numbers\/add$/);
  await page.getByRole('textbox', { name: 'Number', exact: true }).fill('77');
  await fieldByLabel(page, 'SIP password').fill('secret123');
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Flat ${stamp}`);
  await pick(page, 'Group', group.name);
  await pick(page, 'User', `Resident ${stamp}`);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('The SIP password must include digits, lowercase and uppercase Latin letters')).toBeVisible();
  await expect(page).toHaveURL(/\/virtual-numbers\/add$/);
  // "Generate" fills a free number and a password that passes the rule.
  await page.getByRole('button', { name: 'Generate number and password' }).click();
  await expect(page.getByText('The SIP password must include digits, lowercase and uppercase Latin letters')).toHaveCount(0);
  const number = await page.getByRole('textbox', { name: 'Number', exact: true }).inputValue();
  expect(number).toMatch(/^\d{2,16}$/);
  expect(number).not.toBe('77');
  await snapshot(page, 'virtual-number-create');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/virtual-numbers\/\d+$/);
  await expect(page.getByText(`Virtual number ${number}`).first()).toBeVisible();

  // Editing the name leaves the password (shown masked) out of the save.
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Flat ${stamp} door`);
  const renamed = nextPatch(page, /\/sip-numbers\/\d+$/);
  await page.getByRole('button', { name: 'Save' }).click();
  const renameBody = (await renamed).postDataJSON();
  expect(renameBody).toEqual({ name: `Flat ${stamp} door` });
  await expect(page.getByText('Done')).toBeVisible();

  // Forwarding by the number's own rules needs a number; no answer waits 10 s by default.
  await page.getByRole('radio', { name: 'Own rules' }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Forwarding needs at least one number')).toBeVisible();
  await page.getByRole('switch', { name: 'Forward when there is no answer' }).check();
  await expect(page.getByRole('spinbutton', { name: 'No answer within, s' })).toHaveValue('10');
  await page.getByRole('textbox', { name: 'Forward to numbers' }).fill('+442079460958');
  await expect(page.getByText('Forwarding needs at least one number')).toHaveCount(0);
  await snapshot(page, 'virtual-number-edit');
  const forwarded = nextPatch(page, /\/sip-numbers\/\d+$/);
  await page.getByRole('button', { name: 'Save' }).click();
  expect((await forwarded).postDataJSON()).toEqual({
    forward_mode: 'manual',
    forward_rules: { redirect_if_no_answer: { timeout: 10, numbers: ['+442079460958'] }, redirect_if_error: null },
  });
  await expect(page.getByText('Done')).toBeVisible();

  // A forward rule group ringing the new number for 60 s by default.
  await sideMenu(page).getByRole('menuitem', { name: 'Forward rules', exact: true }).click();
  await page.getByRole('link', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/forward-rules\/add$/);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Concierge ${stamp}`);
  await pick(page, 'Group', group.name);
  await page.getByRole('textbox', { name: 'Numbers', exact: true }).fill(number);
  await expect(page.getByRole('spinbutton', { name: 'Ring for, s' })).toHaveValue('60');
  await snapshot(page, 'forward-rule-create');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/forward-rules\/\d+$/);
  await expect(page.getByText(`Forward rule group Concierge ${stamp}`).first()).toBeVisible();
  await page.getByRole('spinbutton', { name: 'Ring for, s' }).fill('30');
  const regrouped = nextPatch(page, /\/forward-rules\/\d+$/);
  await page.getByRole('button', { name: 'Save' }).click();
  expect((await regrouped).postDataJSON()).toMatchObject({ params: { numbers: [number], timeout: 30 } });
  await expect(page.getByText('Done')).toBeVisible();
  await snapshot(page, 'forward-rule-edit');

  // A SIP trunk: the outgoing number must not contain spaces.
  await sideMenu(page).getByRole('menuitem', { name: 'SIP trunks', exact: true }).click();
  await page.getByRole('link', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/sip-trunks\/add$/);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Provider ${stamp}`);
  await page.getByRole('textbox', { name: 'Outgoing number', exact: true }).fill('+44 20 7946 0958');
  await page.getByRole('textbox', { name: 'Termination URI', exact: true }).fill('sip:sip.provider.example:5060');
  await page.getByRole('textbox', { name: 'Login', exact: true }).fill('atrium');
  await fieldByLabel(page, 'Password').fill('Trunk-secret-1');
  await pick(page, 'Groups', group.name);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Must not contain spaces')).toBeVisible();
  await page.getByRole('textbox', { name: 'Outgoing number', exact: true }).fill('+442079460958');
  await snapshot(page, 'sip-trunk-create');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/sip-trunks\/\d+$/);
  await expect(page.getByText(`SIP trunk Provider ${stamp}`).first()).toBeVisible();
  // The password comes back masked and is not sent again with a change of login.
  await expect(fieldByLabel(page, 'Password')).toHaveValue('********');
  await page.getByRole('textbox', { name: 'Login', exact: true }).fill('atrium-2');
  const relogged = nextPatch(page, /\/sip-trunks\/\d+$/);
  await page.getByRole('button', { name: 'Save' }).click();
  expect((await relogged).postDataJSON()).toEqual({ login: 'atrium-2' });
  await expect(page.getByText('Done')).toBeVisible();
  await snapshot(page, 'sip-trunk-edit');

  // The lists show what was made. Opened afresh: after a save, react-admin marks a list it read before
  // the create (without the new record) as fresh for the console's 10 s stale time.
  await page.goto('/sip-trunks');
  await expect(page.getByRole('row').filter({ hasText: `Provider ${stamp}` })).toContainText('+442079460958');
  await snapshot(page, 'sip-trunk-list');
  await page.goto('/forward-rules');
  await expect(page.getByRole('row').filter({ hasText: `Concierge ${stamp}` })).toContainText(number);
  await snapshot(page, 'forward-rule-list');
  await page.goto('/virtual-numbers');
  const row = page.getByRole('row').filter({ hasText: `Flat ${stamp} door` });
  await expect(row).toContainText(number);
  await snapshot(page, 'virtual-number-list');
  await sideMenu(page).getByRole('menuitem', { name: 'Call history', exact: true }).click();
  await expect(page).toHaveURL(/\/call-history$/);
  await expect(page.getByRole('textbox', { name: 'From number' })).toBeVisible();
  await snapshot(page, 'call-history');

  // Deleting: the group and the trunk from their pages; the number once it is no longer the resident's.
  await sideMenu(page).getByRole('menuitem', { name: 'Forward rules', exact: true }).click();
  await page
    .getByRole('row')
    .filter({ hasText: `Concierge ${stamp}` })
    .getByText(`Concierge ${stamp}`)
    .click();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/forward-rules$/);
  await expect(page.getByText(`Concierge ${stamp}`)).toHaveCount(0);

  await sideMenu(page).getByRole('menuitem', { name: 'SIP trunks', exact: true }).click();
  await page
    .getByRole('row')
    .filter({ hasText: `Provider ${stamp}` })
    .getByText(`Provider ${stamp}`)
    .click();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/sip-trunks$/);
  await expect(page.getByText(`Provider ${stamp}`)).toHaveCount(0);

  await sideMenu(page).getByRole('menuitem', { name: 'Virtual numbers', exact: true }).click();
  await row.getByText(`Flat ${stamp} door`).click();
  await expect(page).toHaveURL(/\/virtual-numbers\/\d+$/);
  // The resident's only number is their master number, which the server refuses to delete (spec comms §8)…
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('A user’s main number cannot be deleted')).toBeVisible();
  await expect(page).toHaveURL(/\/virtual-numbers\/\d+$/);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // …so it becomes a spare first.
  await page.getByRole('radio', { name: 'Nobody' }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Done')).toBeVisible();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/virtual-numbers$/);
  await expect(page.getByText(`Flat ${stamp} door`)).toHaveCount(0);
});
