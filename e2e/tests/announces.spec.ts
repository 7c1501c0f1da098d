import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';
import { openMailbox } from './support/mailbox';

/** The link of the announce in a resident's mail. */
const linkIn = (source: string) => /https?:\/\/[^\s"<>]+\/announce\/[0-9a-f]{64}/.exec(source)?.[0];

async function answerOnTokenPage(page: Page, link: string, picks: { question: string; answer: string }[]) {
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Hall repairs', level: 1 })).toBeVisible();
  for (const p of picks) await page.getByRole('radiogroup', { name: p.question }).getByLabel(p.answer, { exact: true }).check();
}

test('a poll sent to a building is answered from the token page by three residents and shows its results', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const admin = await Api.signIn(request, ADMIN);
  const tag = Date.now().toString(36);
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const building = await admin.call<{ id: number }>('PUT', '/domains', { name: `Building ${tag}`, parent_id: profile.domains[0]?.id });
  const flats: { id: number }[] = [];
  for (const n of [1, 2])
    flats.push(await admin.call<{ id: number }>('PUT', '/domains', { name: `Flat ${n} ${tag}`, parent_id: building.id }));
  const residents = ['Ann', 'Boris', 'Chen'].map((name, i) => ({
    name: `${name} ${tag}`,
    email: `${name.toLowerCase()}-${tag}@residents.example`,
    flat: flats[i % 2]!,
  }));
  for (const r of residents)
    await admin.call('PUT', '/users', {
      login: `res-${r.email.split('@')[0]}`,
      name: r.name,
      email: r.email,
      password: `pass-${tag}-word`,
      domains: [r.flat.id],
      send_registration_link: false,
    });
  const mailbox = await openMailbox();
  try {
    // The manager writes the poll in the console.
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Announces and polls' }).click();
    await expect(page).toHaveURL(/\/announces$/);
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/announces\/add$/);
    // Fields by their accessible name: a required field's label also shows an asterisk, hidden from
    // assistive technology (and so from the name), though it is in the label's text.
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Hall poll ${tag}`);
    await page.getByRole('textbox', { name: 'Mail subject', exact: true }).fill('Hall repairs');
    await page.getByLabel('Poll', { exact: true }).check();
    const editor = page.locator('.ProseMirror');
    await editor.click();
    await editor.pressSequentially('We plan to repaint the entrance hall in May. ');
    await page.getByRole('button', { name: 'Bold' }).click();
    await editor.pressSequentially('Please vote by Friday.');
    await page.getByRole('textbox', { name: 'Question', exact: true }).first().fill('Paint the hall in May?');
    await page.getByRole('textbox', { name: 'Answer', exact: true }).nth(0).fill('Yes');
    await page.getByRole('textbox', { name: 'Answer', exact: true }).nth(1).fill('No');
    await page.getByLabel('Groups').fill(`Building ${tag}`);
    await page.getByRole('option', { name: new RegExp(`Building ${tag}$`) }).click();
    await page.getByLabel('Send via').click();
    await page.getByRole('option', { name: 'E-mail and the app' }).click();
    await page.getByLabel('Sign with my name and e-mail').check();
    await snapshot(page, 'announces-form');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/announces\/\d+$/);
    const id = Number(page.url().split('/').pop());

    // Started: it is sent to every resident of the building's flats, then shows as sent.
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByRole('dialog')).toContainText(`Building ${tag}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
    await expect(page.getByText('Sent', { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText('This announce has been started')).toBeVisible();
    await snapshot(page, 'announces-sent');

    // Each resident gets one mail with their own link, and answers the poll without signing in.
    await expect.poll(() => residents.every((r) => mailbox.for(r.email).length === 1), { timeout: 20_000 }).toBe(true);
    const links = residents.map((r) => linkIn(mailbox.for(r.email)[0]!.source) as string);
    expect(new Set(links).size).toBe(3);
    const votes = ['Yes', 'Yes', 'No'];
    for (const [i, link] of links.entries()) {
      const context = await browser.newContext();
      const resident = await context.newPage();
      await answerOnTokenPage(resident, link, [{ question: 'Paint the hall in May?', answer: votes[i]! }]);
      await expect(resident.getByText(`Hello, ${residents[i]!.name}`)).toBeVisible();
      await expect(resident.locator('strong')).toHaveText('Please vote by Friday.');
      if (i === 0) await snapshot(resident, 'announces-token-page');
      await resident.getByRole('button', { name: 'Send my answer' }).click();
      await expect(resident.getByText(/Thank you, your answer was received/)).toBeVisible();
      if (i === 0) await snapshot(resident, 'announces-token-answered');
      // Once per link: coming back shows the answer given, not the form.
      await resident.reload();
      await expect(resident.getByText(/Thank you, your answer was received/)).toBeVisible();
      await expect(resident.getByRole('button', { name: 'Send my answer' })).toHaveCount(0);
      await context.close();
    }

    // The results: a bar per answer and who answered what.
    await page.goto(`/announces/${id}`);
    await page.getByRole('link', { name: 'See the responses' }).click();
    await expect(page).toHaveURL(new RegExp(`/announces/response\\?announce_id=${id}$`));
    await expect(page.getByText('3 of 3 recipients answered (100%)')).toBeVisible();
    const chart = page.getByRole('region', { name: 'Results of question 1: Paint the hall in May?' });
    await expect(chart.getByRole('listitem').filter({ hasText: 'Yes' })).toContainText('2 (67%)');
    await expect(chart.getByRole('listitem').filter({ hasText: 'No' })).toContainText('1 (33%)');
    await expect(page.getByRole('row').filter({ hasText: residents[2]!.name })).toContainText('1. No');
    await snapshot(page, 'announces-responses');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    const csv = await (await file.createReadStream()).toArray();
    const text = Buffer.concat(csv).toString('utf8');
    expect(text.split('\n')[0]).toBe('user,email,answered_at,1. Paint the hall in May?');
    for (const r of residents) expect(text).toContain(r.email);

    // The list tells how far each announce got.
    await sideMenu(page).getByRole('menuitem', { name: 'Announces and polls' }).click();
    const row = page.getByRole('row').filter({ hasText: `Hall poll ${tag}` });
    await expect(row).toContainText('Sent');
    await expect(row).toContainText('3 / 3');
    await snapshot(page, 'announces-list');
  } finally {
    await mailbox.close();
  }
});

test('the token page of an unknown link says so, in Russian too', async ({ page }) => {
  await page.goto(`/announce/${'0'.repeat(64)}`);
  await expect(page.getByText('This link does not lead to an announce.')).toBeVisible();
  await page.getByRole('button', { name: 'Русский' }).click();
  await expect(page.getByText('Эта ссылка не ведёт к объявлению.')).toBeVisible();
  await snapshot(page, 'announces-token-missing-ru');
});
