import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';
import { openMailbox } from './support/mailbox';

/** The list's row of a template: its kind and its language. */
const template = (page: Page, kind: string, language: string) =>
  page
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: kind, exact: true }) })
    .filter({ has: page.getByRole('cell', { name: language, exact: true }) });

// Mail templates (issue 14): an administrator edits the invitation text, watches the preview, and the
// next invitation Atrium sends is written from it; back to the built-in text afterwards.

test('an administrator edits the invitation template and sees it in the next invitation', async ({ page, request }) => {
  const mailbox = await openMailbox();
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Mail templates', exact: true }).click();
    await expect(page).toHaveURL(/\/mail-templates$/);
    const row = template(page, 'Invitation', 'English');
    await expect(row).toContainText('Invitation');
    await expect(row).toContainText('Built-in');
    await snapshot(page, 'mail-templates-list');

    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Subject' }).fill('Door keys for {name}');
    const body = dialog.getByRole('textbox', { name: 'Text' });
    await body.fill('Hi {name}, your keys wait.');
    // The link is required: the form says so and will not save.
    await expect(dialog.getByText('The value must contain {link}')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
    await body.press('End');
    await body.press('Enter');
    await body.press('Enter');
    await dialog.getByRole('button', { name: '{link}' }).click();
    await expect(body).toHaveValue('Hi {name}, your keys wait.\n\n{link}');
    // The live preview fills the sample values in.
    await expect(dialog.getByTestId('preview-subject')).toHaveText('Subject: Door keys for John Smith');
    await expect(dialog.frameLocator('iframe').getByText('Hi John Smith, your keys wait.')).toBeVisible();
    await snapshot(page, 'mail-templates-edit');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText('Changed');
    await expect(row).toContainText('Door keys for {name}');

    // The next invitation is written from it.
    const admin = await Api.signIn(request, ADMIN);
    const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
    const tag = Date.now().toString(36);
    const email = `tpl-${tag}@e2e.example`;
    await admin.call('PUT', '/users', { login: `tpl-${tag}`, name: 'Tess Keys', email, domains: [profile.domains[0]?.id] });
    await expect.poll(() => mailbox.for(email)[0]?.source ?? '', { timeout: 15_000 }).toContain('Hi Tess Keys, your keys wait.');
    const mail = mailbox.for(email)[0]?.source ?? '';
    expect(mail).toContain('Door keys for Tess Keys');
    expect(mail).toMatch(/https?:\/\/[^\s"<>]+\/registration\/[\w-]+/);

    // Back to the built-in text.
    await row.getByRole('button', { name: 'Edit' }).click();
    await dialog.getByRole('button', { name: 'Back to the built-in text' }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText('Built-in');
    await expect(row).toContainText('Your invitation to {project}');

    // A group has templates of its own: picked by name, its list shows the built-in texts until changed.
    await page.getByRole('combobox', { name: 'Group' }).click();
    await page.getByRole('option').first().click();
    await expect(template(page, 'Announce', 'Russian')).toContainText('Built-in');
    await snapshot(page, 'mail-templates-group');
  } finally {
    await mailbox.close();
  }
});
