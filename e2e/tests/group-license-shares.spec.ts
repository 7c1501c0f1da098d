import { ADMIN, Api, expect, signInFromLogin, snapshot, test } from './support/console';

// An administrator shares licences out to a building from the licences page: SIP for five people,
// then tries to give a floor of it more than the building has and is told why not.

test('an administrator gives a building its share of the licences, and a floor cannot exceed it', async ({ page, request }) => {
  const admin = await Api.signIn(request, ADMIN);
  const profile = await admin.call<{ domains: { id: number; name: string }[] }>('GET', '/profile');
  const tag = Date.now().toString(36);
  const building = await admin.call<{ id: number }>('PUT', '/domains', { name: `Share tower ${tag}`, parent_id: profile.domains[0]?.id });
  const floor = await admin.call<{ id: number }>('PUT', '/domains', { name: `Share floor ${tag}`, parent_id: building.id });

  await signInFromLogin(page, ADMIN);
  await page.goto('/licenses');
  const shares = page.getByTestId('group-shares');
  await expect(shares.getByRole('heading', { name: 'Group shares' })).toBeVisible();
  const pick = async (name: string) => {
    const box = shares.getByRole('combobox', { name: 'Group' });
    await box.fill(name);
    await page.getByRole('option', { name, exact: true }).click();
  };

  await pick(`Share tower ${tag}`);
  await expect(shares.getByText('No features shared with this group yet.')).toBeVisible();
  await shares.getByText('The group has its own licence share').click();
  await shares.getByRole('button', { name: 'Add a feature' }).click();
  const sip = shares.getByTestId('share-sip');
  await sip.getByRole('spinbutton', { name: 'Count', exact: true }).fill('5');
  await shares.getByRole('button', { name: 'Save the share' }).click();
  await expect(page.getByText('The share of the group is saved')).toBeVisible();
  const saved = await admin.call<{ license_info: { is_enabled: boolean; licenses: { type: string; quantity: number | null }[] } }>(
    'GET',
    `/domains/${building.id}`,
  );
  expect(saved.license_info.is_enabled).toBe(true);
  expect(saved.license_info.licenses).toEqual([expect.objectContaining({ type: 'sip', quantity: 5 })]);

  // The floor asks for more than the building has: refused, with the reason.
  await pick(`Share floor ${tag}`);
  await shares.getByText('The group has its own licence share').click();
  await shares.getByRole('button', { name: 'Add a feature' }).click();
  await shares.getByTestId('share-sip').getByRole('spinbutton', { name: 'Count', exact: true }).fill('8');
  await shares.getByRole('button', { name: 'Save the share' }).click();
  await expect(shares.getByTestId('share-issues')).toContainText('Licence quantity exceeded');
  const refused = await admin.call<{ license_info: { licenses: unknown[] } }>('GET', `/domains/${floor.id}`);
  expect(refused.license_info.licenses).toEqual([]);
  await snapshot(page, 'licenses-group-shares');
});
