import { startOidcProvider, type TestOidcProvider } from '../../apps/server/src/modules/sso/oidc-provider.fixture';
import { ADMIN, Api, expect, makeUser, sideMenu, signInFromLogin, snapshot, test } from './support/console';

// Single sign-on with OpenID Connect (issue 14): an administrator adds the company's provider in the
// console, and a person signs in with it. The provider is a local one the test starts (the server
// tests' own, apps/server/src/modules/sso/oidc-provider.fixture.ts), on 127.0.0.1.

let idp: TestOidcProvider;
test.beforeAll(async () => {
  idp = await startOidcProvider('atrium-e2e', 'e2e-client-secret');
});
test.afterAll(async () => {
  await idp?.close();
});

test('an administrator adds an OpenID Connect provider; a person signs in with it, and someone unknown is refused', async ({
  page,
  request,
}) => {
  const admin = await Api.signIn(request, ADMIN);
  const person = await makeUser(admin, { name: 'Sam Single' });
  const email = `${person.login}@example.com`;
  await admin.call('PATCH', `/users/${person.id}`, { email });

  await signInFromLogin(page, ADMIN);
  await sideMenu(page).getByRole('menuitem', { name: 'Single sign-on' }).click();
  await expect(page).toHaveURL(/\/sso-providers$/);
  await page.getByRole('button', { name: 'Add a provider' }).click();
  const dialog = page.getByRole('dialog');
  const name = `Company ${person.login}`;
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Issuer URL').fill(idp.issuer);
  await dialog.getByLabel('Client ID').fill(idp.clientId);
  await dialog.getByLabel('Client secret').fill(idp.clientSecret);
  await snapshot(page, 'sso-provider-form');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('row', { name: new RegExp(name) })).toContainText('Enabled');
  await snapshot(page, 'sso-providers');

  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login/);
  const button = page.getByRole('link', { name: `Sign in with ${name}` });
  await expect(button).toBeVisible();
  await snapshot(page, 'sso-login-buttons');

  // The provider says the person signing in is Sam: the browser goes there and back, and Sam is in.
  idp.nextUser = { sub: person.login, email, email_verified: true };
  await button.click();
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByRole('button', { name: 'Profile menu' })).toHaveText('Sam Single');

  // Someone the project does not know is refused on the login page.
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  idp.nextUser = { sub: 'stranger', email: 'stranger@example.com', email_verified: true };
  await page.getByRole('link', { name: `Sign in with ${name}` }).click();
  await expect(page.getByRole('alert')).toHaveText('No user of Atrium matches this account. Ask the administrator.');
  await expect(page).toHaveURL(/\/login$/);
  await snapshot(page, 'sso-unknown-user');
});
