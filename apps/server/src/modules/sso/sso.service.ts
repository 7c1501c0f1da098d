import { createHash, randomBytes } from 'node:crypto';
import {
  type CreateSsoProviderBody,
  DUMMY_PASSWORD,
  type Session,
  SSO_LOGIN_TTL_SECONDS,
  SSO_TICKET_TTL_SECONDS,
  type SsoLoginOption,
  type SsoProvider,
  type TwoFactorChallenge,
  type UpdateSsoProviderBody,
  VALIDATION_MESSAGES,
} from '@atrium/contract';
import * as oidc from 'openid-client';
import { recordAudit } from '../../core/audit.js';
import { SecretBox } from '../../core/auth/secret-box.js';
import { type Actor, can, type RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, invalidField, notFound, prohibited } from '../../core/errors.js';
import { outboundAddresses, type Resolve } from '../../core/outbound.js';
import type { ProjectInfo } from '../../core/project-info.js';
import type { SsoProviderRow, SsoProviderValues, SsoRepository } from './sso.repository.js';

export interface SsoDeps {
  /** The token secret: client secrets are kept encrypted under a key derived from it. */
  secret: string;
  /**
   * Where Atrium is reached (the provider's project's server URL, else PUBLIC_URL; core/project-info.ts):
   * the provider sends the browser back to `<that>/api/v0/sso/callback`.
   */
  links: Pick<ProjectInfo, 'link'>;
  completeSignIn(c: { userId: number; project: Session['project'] }, ip: string, requestId: string): Promise<Session>;
  project(projectId: number): Promise<Session['project'] | undefined>;
  /** Two-factor sign-in (issue 14) holds here too: a user with TOTP on gets a challenge. */
  secondFactor: {
    required(userIds: readonly number[]): Promise<ReadonlySet<number>>;
    challenge(c: { userId: number; project: Session['project'] }, login: string): Promise<TwoFactorChallenge>;
  };
  log: { warn(obj: object, msg: string): void };
  /**
   * A provider at a loopback, private or special-purpose address allowed (SSO_ALLOW_PRIVATE): off,
   * an anonymous sign-in start cannot make the server fetch from inside the site.
   */
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (tests put a resolver of their own here). */
  resolve?: Resolve;
}

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Where the browser goes after the provider: the console's login page, told the outcome in the fragment. */
const consoleUrl = (fragment: Record<string, string>) => `/login#${new URLSearchParams(fragment).toString()}`;

/**
 * Single sign-on with OpenID Connect (issue 14): providers per project, and the authorization code
 * flow with PKCE (S256), state and nonce, through openid-client. A finished sign-in leaves a
 * one-time ticket the console exchanges for its session, so no token ever travels in a URL.
 */
export class SsoService {
  private readonly secrets: SecretBox;
  private readonly configs = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    private readonly db: Db,
    private readonly repo: SsoRepository,
    private readonly deps: SsoDeps,
  ) {
    this.secrets = new SecretBox(deps.secret, 'sso client secrets');
  }

  private redirectUri(provider: SsoProviderRow): Promise<string> {
    return this.deps.links.link(provider.projectId, '/api/v0/sso/callback');
  }

  async list(actor: Actor): Promise<SsoProvider[]> {
    assertView(actor);
    return (await this.repo.list(actor.projectId)).map(toDto);
  }

  async get(actor: Actor, id: number): Promise<SsoProvider> {
    assertView(actor);
    const row = await this.repo.find(actor.projectId, id);
    if (!row) throw notFound();
    return toDto(row);
  }

  async create(ctx: RequestContext, body: CreateSsoProviderBody): Promise<SsoProvider> {
    assertChange(ctx.actor);
    const values = await this.values(ctx.actor, body, null);
    const row = await this.db.transaction(async (tx) => {
      const created = await this.repo.insert(tx, ctx.actor.projectId, values as SsoProviderValues);
      await recordAudit(tx, ctx, { entity: 'sso_provider', entityId: created.id, action: 'create', after: toDto(created) });
      return created;
    });
    return toDto(row);
  }

  async update(ctx: RequestContext, id: number, body: UpdateSsoProviderBody): Promise<SsoProvider> {
    assertChange(ctx.actor);
    const before = await this.repo.find(ctx.actor.projectId, id);
    if (!before) throw notFound();
    const values = await this.values(ctx.actor, body, before);
    const row = await this.db.transaction(async (tx) => {
      const updated = await this.repo.update(tx, id, values);
      await recordAudit(tx, ctx, { entity: 'sso_provider', entityId: id, action: 'update', before: toDto(before), after: toDto(updated) });
      return updated;
    });
    return toDto(row);
  }

  async remove(ctx: RequestContext, id: number): Promise<void> {
    assertChange(ctx.actor);
    const before = await this.repo.find(ctx.actor.projectId, id);
    if (!before) throw notFound();
    await this.db.transaction(async (tx) => {
      await this.repo.remove(tx, id);
      await recordAudit(tx, ctx, { entity: 'sso_provider', entityId: id, action: 'delete', before: toDto(before) });
    });
  }

  /** The login page's buttons: every enabled provider, by name only. */
  loginOptions(): Promise<SsoLoginOption[]> {
    return this.repo.enabled();
  }

  /** Starts a sign-in: the provider's authorization URL with a fresh state, nonce and PKCE challenge. */
  async start(providerId: number, redirect: string | undefined): Promise<string> {
    const provider = await this.repo.byId(providerId);
    if (!provider?.isEnabled) throw notFound();
    const config = await this.config(provider);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await this.repo.startLogin({
      state,
      providerId,
      codeVerifier,
      nonce,
      redirect: redirect ?? null,
      expiresAt: new Date(Date.now() + SSO_LOGIN_TTL_SECONDS * 1000),
    });
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: await this.redirectUri(provider),
        scope: provider.scopes,
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      })
      .toString();
  }

  /**
   * The provider's answer: the state is taken (once), the code exchanged with the PKCE verifier, the
   * ID token's signature, issuer, audience and nonce checked by openid-client, and the user matched
   * by the configured claim. Answers where the browser goes next: the console's login page with a
   * one-time ticket, or with the reason it failed.
   */
  async callback(rawQuery: string, ip: string, requestId: string): Promise<string> {
    const params = new URLSearchParams(rawQuery);
    const state = params.get('state');
    const login = state ? await this.repo.takeLogin(state) : undefined;
    const provider = login ? await this.repo.byId(login.providerId) : undefined;
    if (!login || !provider?.isEnabled) return consoleUrl({ sso_error: 'single sign-on failed' });
    const fail = async (reason: string, code: 'sso_failed' | 'sso_user_unknown' = 'sso_failed') => {
      await recordAudit(
        this.db,
        { actor: null, ip, requestId },
        { entity: 'session', action: 'sso_login_failed', after: { provider: provider.id, reason } },
      );
      return consoleUrl({ sso_error: code === 'sso_failed' ? 'single sign-on failed' : 'no user matches the single sign-on account' });
    };
    let claims: Record<string, unknown>;
    try {
      const config = await this.config(provider);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(`${await this.redirectUri(provider)}?${rawQuery}`), {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: state as string,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      claims = (tokens.claims() ?? {}) as Record<string, unknown>;
    } catch (e) {
      this.deps.log.warn({ provider: provider.id, err: e instanceof Error ? e.message : String(e) }, 'single sign-on failed');
      return fail(e instanceof Error ? e.message.slice(0, 200) : 'token exchange failed');
    }
    const value = claims[provider.claim];
    if (typeof value !== 'string' || !value.trim()) return fail(`the ID token has no ${provider.claim}`);
    // An e-mail the provider itself has not verified proves nothing about who signs in.
    if (provider.matchField === 'email' && claims.email_verified === false) return fail('the e-mail is not verified');
    const matches = await this.repo.usersMatching(provider.projectId, provider.matchField as 'email' | 'login', value.trim());
    if (matches.length > 1) return fail('several users match', 'sso_user_unknown');
    let userId = matches[0]?.id;
    if (userId === undefined) {
      if (!provider.autoCreate) return fail('no user matches', 'sso_user_unknown');
      userId = await this.createUser(provider, value.trim(), claims, { ip, requestId });
    }
    const ticket = randomBytes(32).toString('base64url');
    await this.repo.insertTicket({
      ticketHash: sha256(ticket),
      userId,
      projectId: provider.projectId,
      expiresAt: new Date(Date.now() + SSO_TICKET_TTL_SECONDS * 1000),
    });
    return consoleUrl({ sso_ticket: ticket, ...(login.redirect ? { redirect: login.redirect } : {}) });
  }

  /** The console's last step: the one-time ticket for the session (or a two-factor challenge). */
  async exchange(ticket: string, ip: string, requestId: string): Promise<{ sessions: Session[]; two_factor?: TwoFactorChallenge[] }> {
    const row = await this.repo.takeTicket(sha256(ticket));
    const project = row ? await this.deps.project(row.projectId) : undefined;
    if (!row || !project) throw new AppError('invalid_token');
    const c = { userId: row.userId, project };
    if ((await this.deps.secondFactor.required([row.userId])).has(row.userId)) {
      return { sessions: [], two_factor: [await this.deps.secondFactor.challenge(c, await this.loginOf(row.userId))] };
    }
    return { sessions: [await this.deps.completeSignIn(c, ip, requestId)] };
  }

  private async loginOf(userId: number): Promise<string> {
    return (await this.repo.loginOf(userId)) ?? String(userId);
  }

  private async createUser(
    provider: SsoProviderRow,
    value: string,
    claims: Record<string, unknown>,
    ctx: { ip: string; requestId: string },
  ) {
    const email = typeof claims.email === 'string' ? claims.email : provider.matchField === 'email' ? value : null;
    const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 255) : value;
    return this.db.transaction(async (tx) => {
      const id = await this.repo.createUser(tx, {
        projectId: provider.projectId,
        login: value.slice(0, 255),
        name,
        email,
        roleId: provider.defaultRoleId,
        groupId: provider.defaultGroupId,
      });
      await recordAudit(
        tx,
        { actor: { userId: id, projectId: provider.projectId }, ip: ctx.ip, requestId: ctx.requestId },
        { entity: 'user', entityId: id, action: 'sso_create', after: { login: value, provider: provider.id } },
      );
      return id;
    });
  }

  /** The provider's discovered configuration, kept until the provider is changed. */
  private config(p: SsoProviderRow): Promise<oidc.Configuration> {
    const key = `${p.id}:${p.updatedAt.getTime()}`;
    let found = this.configs.get(key);
    if (!found) {
      const secret = p.clientSecret ? this.secrets.open(p.clientSecret) : undefined;
      const insecure = new URL(p.issuer).protocol === 'http:';
      // Checked at each discovery, not only when saved: the name may point elsewhere since, or the policy changed.
      found = this.reachable(p.issuer)
        .then((why) => {
          if (why) throw new Error(`issuer refused: ${why}`);
        })
        .then(() =>
          oidc.discovery(
            new URL(p.issuer),
            p.clientId,
            secret ? { client_secret: secret } : undefined,
            secret ? oidc.ClientSecretPost(secret) : oidc.None(),
            // The ID token's signature is checked against the provider's keys too, not only trusted for coming over TLS.
            {
              timeout: 5,
              execute: insecure ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks],
            },
          ),
        )
        .catch((e: unknown) => {
          this.configs.delete(key);
          this.deps.log.warn({ provider: p.id, err: e instanceof Error ? e.message : String(e) }, 'sign-on provider discovery failed');
          throw new AppError('sso_provider_unavailable');
        });
      this.configs.set(key, found);
    }
    return found;
  }

  /** Why the server may not fetch from this issuer (its address is inside the site, or unknown), or null. */
  private async reachable(issuer: string): Promise<string | null> {
    const found = await outboundAddresses(new URL(issuer).hostname, {
      allowPrivate: this.deps.allowPrivate,
      ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}),
    });
    return found.ok ? null : found.message;
  }

  /** Checked values of a create or update; the secret sealed, kept when the placeholder or nothing is sent. */
  private async values(actor: Actor, body: UpdateSsoProviderBody, before: SsoProviderRow | null): Promise<Partial<SsoProviderValues>> {
    if (body.issuer) {
      const url = new URL(body.issuer);
      // Plain HTTP only to a provider on this machine (a local test provider): anywhere else the code and tokens would travel in the clear.
      if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) throw invalidField('issuer', VALIDATION_MESSAGES.invalid_value);
      const why = await this.reachable(body.issuer);
      if (why) throw invalidField('issuer', why);
    }
    if (body.default_role_id && !(await this.repo.roleInProject(actor.projectId, body.default_role_id)))
      throw new AppError('invalid_related_entity', [{ field: 'default_role_id', entity: 'roles', ids: [body.default_role_id] }]);
    if (body.default_group_id && !(await this.repo.groupInProject(actor.projectId, body.default_group_id)))
      throw new AppError('invalid_related_entity', [{ field: 'default_group_id', entity: 'groups', ids: [body.default_group_id] }]);
    const autoCreate = body.auto_create ?? before?.autoCreate ?? false;
    const groupId = body.default_group_id !== undefined ? body.default_group_id : (before?.defaultGroupId ?? null);
    // A person made on first sign-on must land in a group, or no one could ever see or manage them.
    if (autoCreate && !groupId) throw invalidField('default_group_id', VALIDATION_MESSAGES.required);
    const keepSecret = body.client_secret === undefined || body.client_secret === null || body.client_secret === DUMMY_PASSWORD;
    const v: Partial<SsoProviderValues> = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.issuer !== undefined ? { issuer: body.issuer } : {}),
      ...(body.client_id !== undefined ? { clientId: body.client_id } : {}),
      ...(keepSecret ? {} : { clientSecret: body.client_secret ? this.secrets.seal(body.client_secret) : null }),
      ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
      ...(body.claim !== undefined ? { claim: body.claim } : {}),
      ...(body.match_field !== undefined ? { matchField: body.match_field } : {}),
      ...(body.is_enabled !== undefined ? { isEnabled: body.is_enabled } : {}),
      ...(body.auto_create !== undefined ? { autoCreate: body.auto_create } : {}),
      ...(body.default_role_id !== undefined ? { defaultRoleId: body.default_role_id } : {}),
      ...(body.default_group_id !== undefined ? { defaultGroupId: body.default_group_id } : {}),
    };
    const scopes = v.scopes ?? before?.scopes;
    if (scopes !== undefined && !scopes.split(' ').includes('openid')) throw invalidField('scopes', VALIDATION_MESSAGES.invalid_value);
    return v;
  }
}

function assertView(actor: Actor): void {
  if (!can(actor, 'can_view_project_settings') && !can(actor, 'can_change_project_settings'))
    throw prohibited([{ permission: 'can_view_project_settings' }]);
}
function assertChange(actor: Actor): void {
  if (!can(actor, 'can_change_project_settings')) throw prohibited([{ permission: 'can_change_project_settings' }]);
}

function toDto(r: SsoProviderRow): SsoProvider {
  return {
    id: r.id,
    name: r.name,
    issuer: r.issuer,
    client_id: r.clientId,
    client_secret: null,
    has_client_secret: !!r.clientSecret,
    scopes: r.scopes,
    claim: r.claim,
    match_field: r.matchField as SsoProvider['match_field'],
    is_enabled: r.isEnabled,
    auto_create: r.autoCreate,
    default_role_id: r.defaultRoleId,
    default_group_id: r.defaultGroupId,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
