import { PERMISSION_CODES } from '@atrium/contract';
import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, sideMenu, signIn, signInFromLogin, snapshot, test } from './support/console';
import { openMailbox } from './support/mailbox';

// A long walk (a generated building, a role, users, the manager's own sign-in): 36 s alone, and it
// ran over 60 s once on a CI machine loaded by the suite; the other walks of its length allow 120 s.
test.setTimeout(120_000);

test('an administrator gives a floor manager the users of their floor, and nobody else’s', async ({ page, request }) => {
  const mailbox = await openMailbox();
  try {
    const tag = Date.now().toString(36);
    const house = `House ${tag}`;
    const manager = {
      login: `manager-${tag}`,
      name: `Floor Manager ${tag}`,
      email: `manager-${tag}@e2e.example`,
      password: 'manager-pass-1',
    };
    const roleName = `Floor manager ${tag}`;

    // The administrator generates a building of 3 floors with 4 apartments each.
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'Groups', exact: true }).click();
    await page.getByRole('button', { name: 'Generate' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Parent group' }).fill('Site');
    await page.getByRole('option', { name: 'Site', exact: true }).click();
    const levels = [
      { type: 'Building', count: '1', prefix: `${house} ` },
      { type: 'Floor', count: '3', prefix: `${house} floor ` },
      { type: 'Apartment', count: '4', prefix: 'Apt ' },
    ];
    for (const [i, level] of levels.entries()) {
      if (i > 0) await dialog.getByRole('button', { name: 'Add a level' }).click();
      const row = dialog.getByRole('listitem').nth(i);
      await row.getByRole('combobox', { name: 'Domain type' }).click();
      await page.getByRole('option', { name: level.type, exact: true }).click();
      await row.getByRole('spinbutton', { name: 'Count' }).fill(level.count);
      await row.getByRole('textbox', { name: 'Name prefix' }).fill(level.prefix);
    }
    await dialog.getByRole('listitem').nth(2).getByRole('switch', { name: 'Prefix with the parent number (201, 202…)' }).check();
    await snapshot(page, 'branch-admin-generate');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await expect(dialog.getByRole('heading', { name: 'Generated structure: 16 groups' })).toBeVisible();
    await expect(dialog).toContainText(`${house} floor 2 (2)`);
    await expect(dialog).toContainText('Apt 304 (304)');
    await dialog.getByRole('button', { name: 'Create the groups' }).click();
    await expect(page.getByText('16 groups created')).toBeVisible();
    await expect(dialog).toBeHidden();

    const tree = page.getByRole('table', { name: 'Groups' });
    await tree.getByRole('button', { name: 'Expand Site' }).click();
    await tree.getByRole('button', { name: `Expand ${house} 1` }).click();
    await tree.getByRole('button', { name: `Expand ${house} floor 1` }).click();
    await expect(tree.getByRole('row', { name: /Apt 104/ })).toBeVisible();
    await snapshot(page, 'branch-admin-groups-tree');
    await tree.getByRole('row', { name: new RegExp(`${house} floor 1\\b`) }).click();
    await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue(`${house} floor 1`);
    await snapshot(page, 'branch-admin-group-edit');

    // Residents of the first and of the second floor, made through the API for speed.
    const admin = await Api.signIn(request, ADMIN);
    const groups = await admin.call<{ id: number; name: string; parent_id: number | null }[]>('GET', '/domains/completely');
    const floorId = (n: number) => groups.find((g) => g.name === `${house} floor ${n}`)?.id;
    const apartmentId = (floor: number, name: string) => groups.find((g) => g.name === name && g.parent_id === floorId(floor))?.id;
    const neighbour = { login: `neighbour-${tag}`, name: `Neighbour ${tag}` };
    const stranger = { login: `stranger-${tag}`, name: `Stranger ${tag}` };
    await admin.call('PUT', '/users', { ...neighbour, domains: [apartmentId(1, 'Apt 101')], send_registration_link: false });
    const strangerId = (
      await admin.call<{ id: number }>('PUT', '/users', {
        ...stranger,
        domains: [apartmentId(2, 'Apt 201')],
        send_registration_link: false,
      })
    ).id;

    // A role that may view and edit users only in its holder's groups and below.
    await sideMenu(page).getByRole('menuitem', { name: 'Roles', exact: true }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    // Typed at once: the create form (not the list's Name filter, shown until the form's code has loaded).
    await createForm(page).getByRole('textbox', { name: 'Name', exact: true }).fill(roleName);
    await page.getByRole('textbox', { name: 'Search permissions' }).fill('users of my groups and below');
    await page.getByRole('checkbox', { name: 'View users of my groups and below' }).check();
    await page.getByRole('checkbox', { name: 'Edit users of my groups and below' }).check();
    await expect(page.getByText('2 selected')).toBeVisible();
    await snapshot(page, 'branch-admin-role-editor');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/roles\/\d+$/);
    await sideMenu(page).getByRole('menuitem', { name: 'Roles', exact: true }).click();
    // Bulk delete may pick the new role, not the built-in one the server marks undeletable (no checkbox).
    // The built-in role sorts first; the new one is found by its name, as other specs' roles fill pages.
    const builtin = page
      .getByRole('row')
      .filter({ hasText: 'Administrator' })
      .filter({ hasText: `${PERMISSION_CODES.length} permissions` });
    await expect(builtin).toHaveCount(1);
    await expect(builtin.getByRole('checkbox')).toBeHidden();
    await page.getByRole('textbox', { name: 'Name' }).fill(roleName);
    await expect(page.getByRole('row', { name: new RegExp(roleName) })).toContainText('2 permissions');
    await expect(page.getByRole('row', { name: new RegExp(roleName) }).getByRole('checkbox')).toBeEnabled();
    await snapshot(page, 'branch-admin-roles-list');

    // The floor manager: that role, the first floor, and an invitation by e-mail. Typed at once, before
    // the pickers have their choices: nothing typed is lost.
    await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
    // The roles list stays on screen (with its own Create link) until the users list has loaded.
    await expect(page).toHaveURL(/\/users$/);
    await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
    await page.getByRole('link', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/users\/(create|add)$/);
    const userForm = createForm(page);
    await userForm.getByRole('textbox', { name: 'Login', exact: true }).fill(manager.login);
    await userForm.getByRole('textbox', { name: 'Name', exact: true }).fill(manager.name);
    await userForm.getByRole('textbox', { name: 'E-mail' }).fill(manager.email);
    await page.getByRole('combobox', { name: 'Groups' }).fill(`${house} floor 1`);
    // Pickers name a group by its path, so floors of several houses can be told apart.
    await page.getByRole('option', { name: new RegExp(`^Site › ${house} \\d+ › ${house} floor 1 \\(1\\)$`) }).click();
    await page.getByRole('combobox', { name: 'Role' }).click();
    await page.getByRole('option', { name: roleName }).click();
    await expect(userForm.getByRole('textbox', { name: 'Login', exact: true })).toHaveValue(manager.login);
    await expect(userForm.getByRole('textbox', { name: 'Name', exact: true })).toHaveValue(manager.name);
    await expect(page.getByRole('switch', { name: 'Send a registration link by e-mail' })).toBeChecked();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/users\/\d+$/);
    await expect(page.getByText('Not activated yet')).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Role' })).toHaveText(roleName);
    await snapshot(page, 'branch-admin-user-edit');
    await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
    // Found by a search, as other specs' users fill the administrator's pages.
    await page.getByRole('textbox', { name: 'Search (login, name, e-mail)' }).fill(manager.login);
    await expect(page.getByRole('row', { name: new RegExp(manager.login) })).toBeVisible();
    await snapshot(page, 'branch-admin-users-list');
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/login/);

    // The manager accepts the invitation from the e-mail and signs in.
    let link = '';
    await expect
      .poll(() => {
        link = mailbox.for(manager.email)[0]?.source.match(/https?:\/\/[^\s"<>]+\/registration\/[\w-]+/)?.[0] ?? '';
        return link;
      })
      .not.toBe('');
    await page.goto(new URL(link).pathname);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(manager.password);
    await page.getByRole('textbox', { name: 'Repeat the password' }).fill(manager.password);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signIn(page, manager);
    await expect(page.getByRole('heading', { name: `Welcome, ${manager.name}` })).toBeVisible();

    // The menu offers only what the role allows: no roles, nothing of the areas it has no permission for.
    const menu = sideMenu(page);
    await expect(menu.getByRole('menuitem', { name: 'Users', exact: true })).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: 'Roles', exact: true })).toHaveCount(0);
    // (Identifiers are everyone's: anyone sees their own cards and keys.)
    await expect(menu.getByRole('menuitem')).toHaveText([
      /^Common$/i,
      'Home',
      'Notifications',
      /^Users management$/i,
      'Users',
      'Groups',
      /^Access management$/i,
      'Identifiers',
      // Conversations are everyone's too: a resident writes to the management and reads the answers.
      /^Communications$/i,
      'Conversations',
    ]);

    // The users of the first floor and its apartments, nobody else.
    await sideMenu(page).getByRole('menuitem', { name: 'Users', exact: true }).click();
    const list = page.getByRole('main');
    await expect(list.getByRole('row', { name: new RegExp(neighbour.login) })).toBeVisible();
    await expect(list.getByRole('row', { name: new RegExp(manager.login) })).toBeVisible();
    await expect(list.getByRole('row', { name: new RegExp(stranger.login) })).toHaveCount(0);
    await expect(list.getByRole('row', { name: /\badmin\b/ })).toHaveCount(0);
    await snapshot(page, 'branch-admin-manager-users-list');

    // …whom they may also edit.
    await list.getByRole('row', { name: new RegExp(neighbour.login) }).click();
    await expect(page.getByRole('textbox', { name: 'Login' })).toHaveValue(neighbour.login);
    await page.getByRole('textbox', { name: 'Description' }).fill('Key holder of floor 1');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Done')).toBeVisible();

    // Another floor's user is out of reach, even by address.
    await page.goto(`/users/${strangerId}`);
    await expect(page.getByText('This record cannot be opened')).toBeVisible();
    await expect(page.getByText('It does not exist, or you are not allowed to see it.')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Back to the list' })).toBeVisible();
    await snapshot(page, 'branch-admin-manager-stranger');
  } finally {
    await mailbox.close();
  }
});

/** The form of a create page: the one with a Save button. */
const createForm = (page: Page) => page.locator('form').filter({ has: page.getByRole('button', { name: 'Save' }) });
