import type { Browser, Page } from '@playwright/test';
import { ADMIN, Api, expect, makeUser, realtimeSubscribed, sideMenu, signInFromLogin, snapshot, test } from './support/console';

const RESIDENT = ['can_create_conversations', 'can_create_conversation_messages'];
const OPERATOR = [
  'can_view_descendant_conversations',
  'can_create_conversations',
  'can_create_conversation_messages',
  'can_delete_conversations',
  'can_accept_messages_from_descendant_users',
];

/** A person signed in in a browser of their own, the realtime channel up. */
async function console(browser: Browser, who: { login: string; password: string }): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const live = realtimeSubscribed(page);
  await signInFromLogin(page, who);
  await live;
  return page;
}

const thread = (page: Page) => page.getByTestId('thread');
const bubbles = (page: Page) => page.getByTestId('message');

test('an operator answers a resident’s conversation live, in two browsers', async ({ browser, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const tag = Date.now().toString(36);
  const operator = await makeUser(admin, { permissions: OPERATOR, name: `Operator ${tag}` });
  const resident = await makeUser(admin, { permissions: RESIDENT, name: `Resident ${tag}` });
  const residentPage = await console(browser, resident);
  const operatorPage = await console(browser, operator);

  // The resident starts a conversation from the list, choosing the operator among those they may write to.
  await sideMenu(residentPage).getByRole('menuitem', { name: 'Conversations', exact: true }).click();
  await expect(residentPage).toHaveURL(/\/conversations/);
  await residentPage.getByRole('button', { name: 'New conversation' }).click();
  const dialog = residentPage.getByRole('dialog', { name: 'New conversation' });
  await dialog.getByLabel('Recipient').fill(`Operator ${tag}`);
  await residentPage.getByRole('option', { name: `Operator ${tag}` }).click();
  await dialog.getByLabel('Subject').fill('Water in the basement');
  await dialog.getByLabel('Message').fill('There is water on the floor of the basement, near the bikes.');
  await snapshot(residentPage, 'conversations-start');
  await dialog.getByRole('button', { name: 'Send' }).click();
  await expect(residentPage).toHaveURL(/\/conversation\/\d+$/);
  const id = Number(residentPage.url().split('/').pop());
  await expect(residentPage.getByRole('heading', { name: 'Water in the basement', level: 2 })).toBeVisible();
  await expect(bubbles(residentPage)).toHaveCount(1);

  // The operator's menu tells of it at once, without a reload: one conversation unread.
  const badge = sideMenu(operatorPage).getByTestId('conversations-unread-badge');
  await expect(badge).toHaveText('1');
  await expect(badge).toHaveAttribute('title', '1 conversation with unread messages');
  // The operator's list shows it unread, live, and the bell tells of it.
  await sideMenu(operatorPage).getByRole('menuitem', { name: 'Conversations', exact: true }).click();
  const row = operatorPage.getByRole('row').filter({ hasText: 'Water in the basement' });
  await expect(row).toBeVisible();
  await expect(row.getByTestId('unread-count')).toHaveText('1');
  await expect(row).toContainText(`Resident ${tag}`);
  await expect(operatorPage.getByRole('button', { name: /^Notifications: \d+ unread/ })).toBeVisible();
  await snapshot(operatorPage, 'conversations-list-unread');

  // Opening it reads it, its bell notification too: the badge and the bell's count go.
  await row.getByText('Water in the basement').click();
  await expect(operatorPage).toHaveURL(new RegExp(`/conversation/${id}$`));
  await expect(bubbles(operatorPage).first()).toContainText('near the bikes');
  await expect(badge).toHaveCount(0);
  await expect(operatorPage.getByRole('button', { name: /^Notifications: \d+ unread/ })).toHaveCount(0);
  // The reply reaches the resident's open page without a reload.
  const reply = operatorPage.getByRole('textbox', { name: 'New message' });
  await reply.fill('Thank you, a plumber is on the way.');
  await reply.press('Enter');
  await expect(reply).toHaveValue('');
  await expect(bubbles(residentPage)).toHaveCount(2);
  await expect(bubbles(residentPage).last()).toContainText('a plumber is on the way');
  await expect(bubbles(residentPage).last()).toHaveAttribute('data-mine', 'false');

  // Shift+Enter writes a second line; the resident's answer reaches the operator live.
  const answer = residentPage.getByRole('textbox', { name: 'New message' });
  await answer.fill('Great.');
  await answer.press('Shift+Enter');
  await answer.pressSequentially('The door code is 1234.');
  await residentPage.getByRole('button', { name: 'Send' }).click();
  await expect(bubbles(operatorPage)).toHaveCount(3);
  await expect(bubbles(operatorPage).last()).toContainText('Great.\nThe door code is 1234.');
  await snapshot(residentPage, 'conversations-thread-resident');
  await snapshot(operatorPage, 'conversations-thread-operator');

  // Read on both sides: no unread count in the operator's list.
  await operatorPage.getByRole('link', { name: 'All conversations' }).click();
  await expect(operatorPage.getByRole('row').filter({ hasText: 'Water in the basement' }).getByTestId('unread-count')).toHaveCount(0);

  // The resident may not delete; the operator deletes it behind a confirmation, and the resident's page leaves it.
  await expect(residentPage.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await operatorPage.getByRole('row').filter({ hasText: 'Water in the basement' }).getByText('Water in the basement').click();
  await operatorPage.getByRole('button', { name: 'Delete' }).click();
  const confirm = operatorPage.getByRole('dialog', { name: 'Delete conversation' });
  await expect(confirm).toContainText('Water in the basement');
  await snapshot(operatorPage, 'conversations-delete-confirm');
  await confirm.getByRole('button', { name: 'Approve' }).click();
  await expect(operatorPage).toHaveURL(/\/conversations$/);
  await expect(residentPage).toHaveURL(/\/conversations$/);
  await expect(operatorPage.getByRole('row').filter({ hasText: 'Water in the basement' })).toHaveCount(0);
  await residentPage.context().close();
  await operatorPage.context().close();
});

test('a long conversation loads older messages on scrolling up; the list searches and bulk deletes', async ({ browser, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const tag = Date.now().toString(36);
  const operator = await makeUser(admin, { permissions: OPERATOR, name: `Desk ${tag}` });
  const resident = await makeUser(admin, { permissions: RESIDENT, name: `Tenant ${tag}` });
  const residentApi = await Api.signIn(request, resident);
  const operatorApi = await Api.signIn(request, operator);
  const long = await residentApi.call<{ id: number }>('PUT', '/conversations', {
    subject: `Renovation ${tag}`,
    interlocutor: { id: operator.id },
    message: 'Message 1',
  });
  for (let i = 2; i <= 45; i++)
    await (i % 3 ? residentApi : operatorApi).call('PUT', `/conversations/${long.id}/messages`, { message: `Message ${i}` });
  const other = await residentApi.call<{ id: number }>('PUT', '/conversations', {
    subject: `Parking ${tag}`,
    interlocutor: { id: operator.id },
    message: 'My place is taken',
  });

  const page = await console(browser, operator);
  await page.goto(`/conversation/${long.id}`);
  await expect(bubbles(page).last()).toContainText('Message 45');
  const shown = await bubbles(page).count();
  expect(shown).toBeLessThan(45);
  await expect(page.getByText('This is the beginning of the conversation')).toHaveCount(0);
  // Scrolling to the top brings the older pages, the view staying where it was.
  for (let i = 0; i < 3 && (await bubbles(page).count()) < 45; i++) {
    await thread(page).evaluate((el) => el.scrollTo({ top: 0 }));
    await page.waitForTimeout(300);
  }
  await expect(bubbles(page)).toHaveCount(45);
  await thread(page).evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(page.getByText('This is the beginning of the conversation')).toBeVisible();
  await expect(bubbles(page).first()).toContainText('Message 1');
  await snapshot(page, 'conversations-thread-beginning', { fullPage: false });

  // The list: search by subject, then select both and delete them behind a confirmation.
  await page.getByRole('link', { name: 'All conversations' }).click();
  await page.getByLabel('Search').fill(`Parking ${tag}`);
  await expect(page.getByRole('row').filter({ hasText: `Renovation ${tag}` })).toHaveCount(0);
  await expect(page.getByRole('row').filter({ hasText: `Parking ${tag}` })).toHaveCount(1);
  await page.getByLabel('Search').fill(tag);
  await expect(page.getByRole('row').filter({ hasText: tag })).toHaveCount(2);
  await snapshot(page, 'conversations-list-search');
  for (const subject of [`Renovation ${tag}`, `Parking ${tag}`])
    await page.getByRole('row').filter({ hasText: subject }).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Delete selected' }).click();
  const confirm = page.getByRole('dialog');
  await expect(confirm).toContainText('2');
  await confirm.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('row').filter({ hasText: tag })).toHaveCount(0);
  const left = await residentApi.call<{ id: number }[]>('GET', `/conversations?search=${tag}`);
  expect(left.map((c) => c.id)).not.toContain(other.id);

  // The same pages in Russian.
  await page.getByRole('button', { name: 'Русский' }).click();
  await expect(page.getByRole('button', { name: 'Новое обращение' })).toBeVisible();
  await page.getByRole('button', { name: 'Новое обращение' }).click();
  await expect(page.getByRole('dialog', { name: 'Новое обращение' }).getByLabel('Получатель')).toBeVisible();
  await snapshot(page, 'conversations-start-ru');
  await page.context().close();
});
