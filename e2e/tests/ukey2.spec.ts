import { ADMIN, Api, expect, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// UKEY2 keys are shown, not changed, in their own pages (spec entities §2: /ukey2 and /ukey2/:id/edit,
// view only): an administrator issues a resident's key under Identifiers, finds it in the UKEY2 list
// and reads it on a page without a form.

test('an administrator finds a resident’s UKEY2 key in its list and reads it without a form', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number }[] }>('GET', '/profile');
  const stamp = Date.now().toString(36).toUpperCase();
  const resident = await admin.call<{ id: number }>('PUT', '/users', {
    login: `ukey-${stamp.toLowerCase()}`,
    name: `Key holder ${stamp}`,
    domains: [profile.domains[0]?.id],
    send_registration_link: false,
  });
  const key = await admin.call<{ id: number }>('PUT', '/identifiers', {
    name: `Phone key ${stamp}`,
    type: 'ukey2',
    value: `C0${Date.now().toString(16).toUpperCase()}`,
    owner_id: resident.id,
  });
  // A card of the same person is not a UKEY2 key.
  await admin.call('PUT', '/identifiers', {
    name: `Card ${stamp}`,
    value: `D0${Date.now().toString(16).toUpperCase()}`,
    owner_id: resident.id,
  });
  try {
    await signInFromLogin(page, ADMIN);
    await sideMenu(page).getByRole('menuitem', { name: 'UKEY2', exact: true }).click();
    await expect(page).toHaveURL(/\/ukey2$/);
    const main = page.getByRole('main');
    await main.getByRole('textbox', { name: 'Search' }).fill(stamp);
    // The list takes the search into its address after a pause: a click before that opens the key and
    // is then undone by the list's own navigation (the row matches before the search applies, when
    // the list is short).
    await expect(page).toHaveURL(new RegExp(`filter=.*${stamp}`));
    const rows = main.getByRole('row').filter({ hasText: stamp });
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(`Phone key ${stamp}`);
    await expect(rows.first()).toContainText(`Key holder ${stamp}`);
    await expect(main.getByRole('button', { name: 'Create' })).toHaveCount(0);
    await snapshot(page, 'ukey2-list');

    await rows.first().click();
    await expect(page).toHaveURL(new RegExp(`/ukey2/${key.id}$`));
    await expect(main.getByRole('heading', { name: `UKEY2 key Phone key ${stamp}` })).toBeVisible();
    await expect(main.getByRole('table')).toContainText(`Key holder ${stamp} (ukey-${stamp.toLowerCase()})`);
    await expect(main.getByText('this page only shows them')).toBeVisible();
    await expect(main.getByRole('textbox')).toHaveCount(0);
    await expect(main.getByRole('button', { name: 'Save' })).toHaveCount(0);
    await snapshot(page, 'ukey2-view');
  } finally {
    await admin.call('DELETE', `/identifiers/${key.id}`).catch(() => undefined);
  }
});
