import { ADMIN, Api, expect, signIn, snapshot, test } from './support/console';
import { openMailbox } from './support/mailbox';

test('an invited person follows the e-mailed link, sets a password and signs in', async ({ page, request }) => {
  const mailbox = await openMailbox();
  try {
    const admin = await Api.signIn(request, ADMIN);
    const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
    const tag = Date.now().toString(36);
    const email = `invitee-${tag}@e2e.example`;
    await admin.call('PUT', '/users', { login: `invitee-${tag}`, name: 'Invited Person', email, domains: [profile.domains[0]?.id] });

    // The invitation arrives by e-mail with a link into the console.
    let link = '';
    await expect
      .poll(
        () => {
          link = mailbox.for(email)[0]?.source.match(/https?:\/\/[^\s"<>]+\/registration\/[\w-]+/)?.[0] ?? '';
          return link;
        },
        { timeout: 15_000 },
      )
      .not.toBe('');

    await page.goto(new URL(link).pathname);
    await expect(page.getByRole('heading', { name: 'Accept the invitation' })).toBeVisible();
    await snapshot(page, 'registration-invite');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('invited-password-1');
    await page.getByRole('textbox', { name: 'Repeat the password' }).fill('invited-password-1');
    await page.getByRole('button', { name: 'Register' }).click();
    await expect(page.getByText('Your account is ready. You can sign in now.')).toBeVisible();

    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, { login: `invitee-${tag}`, password: 'invited-password-1' });
    await expect(page.getByRole('heading', { name: 'Welcome, Invited Person' })).toBeVisible();

    // The link is spent: opening it again says so.
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.goto(new URL(link).pathname);
    await expect(page.getByRole('alert')).toContainText("Can't find the user");
  } finally {
    await mailbox.close();
  }
});

test('a person who forgot the password resets it from the e-mailed link and signs in with the new one', async ({ page, request }) => {
  const mailbox = await openMailbox();
  try {
    const admin = await Api.signIn(request, ADMIN);
    const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
    const tag = Date.now().toString(36);
    const who = { login: `forgetful-${tag}`, email: `forgetful-${tag}@e2e.example` };
    await admin.call('PUT', '/users', {
      ...who,
      name: 'Forgetful Person',
      password: 'the-old-password',
      domains: [profile.domains[0]?.id],
      send_registration_link: false,
    });

    await page.goto('/password/recovery');
    await page.getByRole('textbox', { name: 'E-mail' }).fill(who.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect(page.getByText('If the address belongs to an account, a link to reset the password is on its way.')).toBeVisible();

    let link = '';
    await expect
      .poll(
        () => {
          link = mailbox.for(who.email)[0]?.source.match(/https?:\/\/[^\s"<>]+\/password\/reset\/[\w-]+/)?.[0] ?? '';
          return link;
        },
        { timeout: 15_000 },
      )
      .not.toBe('');

    await page.goto(new URL(link).pathname);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('the-new-password-1');
    await page.getByRole('textbox', { name: 'Repeat the password' }).fill('the-new-password-1');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect(page.getByText('Your password is changed. You can sign in now.')).toBeVisible();

    await page.goto('/login');
    await signIn(page, { login: who.login, password: 'the-old-password' });
    await expect(page.getByRole('alert')).toHaveText('Incorrect login/password');
    await signIn(page, { login: who.login, password: 'the-new-password-1' });
    await expect(page.getByRole('heading', { name: 'Welcome, Forgetful Person' })).toBeVisible();
  } finally {
    await mailbox.close();
  }
});
