import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  type LicenseInfo,
  licensed,
  type MobileClient,
  type MobileClientInfo,
  type MobileWhiteLabel,
  mobileAppFeatures,
  type RegisteredMobileClient,
  type RegisterMobileClientBody,
  userLicenseInEffect,
} from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import { hashToken } from '../../core/auth/tokens.js';
import type { Actor, RequestContext } from '../../core/context.js';
import { AppError, notFound, prohibited } from '../../core/errors.js';
import type { MobileClientRow, MobileClientsRepository } from './mobile-clients.repository.js';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

export function toMobileClientInfo(r: MobileClientRow): MobileClientInfo {
  return {
    id: r.id,
    mobile_client_id: r.mobileClientId,
    platform: r.platform as MobileClientInfo['platform'],
    info: r.info,
    auth_at: iso(r.authAt),
    vendor_id: r.vendorId,
    sip_number: r.sipNumber,
    ukey2: r.ukey2,
  };
}

function toMobileClient(r: MobileClientRow): MobileClient {
  return { ...toMobileClientInfo(r), has_push_token: r.pushToken !== null, is_sdk: r.isSdk, created_at: iso(r.createdAt) };
}

const sameSecret = (given: string, stored: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** An install's secret: 256 random bits, shown to the app once. */
const newClientSecret = (): string => randomBytes(32).toString('base64url');

export interface MobileClientsOptions {
  /** The server's licence features of the project (modules/frontend LicenseService). */
  serverFeatures: (projectId: number) => Promise<LicenseInfo>;
  /** An administrator acts on another user: the rules of users management (scope, more privileged users). */
  assertMayManage: (actor: Actor, userId: number) => Promise<void>;
  /** The user as the actor may view it (not found otherwise). */
  assertMayView: (actor: Actor, userId: number) => Promise<void>;
  /** The project's management company (white-label tab), for apps licensed for white label. */
  whiteLabel?: (projectId: number) => Promise<MobileWhiteLabel>;
}

/**
 * Mobile clients (issue 14): a signed-in user's app registers itself after each sign-in, lists and
 * removes its own; an administrator sees a user's apps and may remove one. Each app counts against
 * the mobile app licence: the project's count, the user's own count and the counts of the groups
 * they belong to. An app built on the mobile SDK also presents the project's SDK api key.
 */
export class MobileClientsService {
  constructor(
    private readonly repo: MobileClientsRepository,
    private readonly opts: MobileClientsOptions,
  ) {}

  private assertUser(actor: Actor): void {
    // An API key is no one's phone.
    if (actor.apiKeyId !== undefined && actor.apiKeyId !== null) throw prohibited([{ actor: 'api_key' }]);
  }

  async register(ctx: RequestContext, body: RegisterMobileClientBody, sdkKey: string | undefined): Promise<RegisteredMobileClient> {
    const { actor } = ctx;
    this.assertUser(actor);
    const [server, context] = await Promise.all([
      this.opts.serverFeatures(actor.projectId),
      this.repo.context(actor.projectId, actor.userId),
    ]);
    const isSdk = body.is_sdk === true || sdkKey !== undefined;
    if (isSdk) {
      const sdk = context.sdk ?? {};
      if (!sdk.is_enabled) throw new AppError('mobile_sdk_disabled');
      if (!sdkKey || !sdk.api_key || !sameSecret(sdkKey, sdk.api_key)) throw new AppError('mobile_sdk_key_invalid');
    }
    // In effect now: a user's mobile-app block outside its period counts as off.
    const user: LicenseInfo = userLicenseInEffect(context.userLicense, Date.now()).info;
    if (!licensed(server, user, 'mobile_app')) {
      throw new AppError('mobile_app_not_licensed', [{ field: 'license_info', message: 'mobile app is not licensed' }]);
    }
    const { row, secret } = await this.repo.transaction(async (tx) => {
      const held = await this.repo.holder(actor.projectId, body.mobile_client_id, tx);
      const before = held?.userId ?? null;
      // Naming an install's id is no proof of holding the phone: moving it from another user takes the
      // secret issued to the install, or anyone could take another's phone and its push token.
      const moves = before !== null && before !== actor.userId;
      if (moves && !(held?.secretHash && body.client_secret && sameSecret(hashToken(body.client_secret), held.secretHash))) {
        throw prohibited([{ field: 'mobile_client_id', message: 'the install is registered to another user' }]);
      }
      // A new secret for a new install, one that moved (the old holder's copy no longer moves it) and
      // one registered before secrets existed; a re-registration by its holder keeps its secret.
      const secret = before === null || moves || !held?.secretHash ? newClientSecret() : undefined;
      const saved = await this.repo.upsert(
        tx,
        actor.projectId,
        actor.userId,
        body,
        isSdk,
        secret === undefined ? undefined : hashToken(secret),
        before,
      );
      // Another user's registration of the same id got in between (no row to lock when we read).
      if (!saved) throw prohibited([{ field: 'mobile_client_id', message: 'the install is registered to another user' }]);
      // Only an app new to this user takes a licence: one already counted signs in again even over a reduced count.
      if (before !== actor.userId) await this.assertWithinLicense(tx, actor.projectId, actor.userId, server, user);
      await recordAudit(tx, ctx, {
        entity: 'mobile_client',
        entityId: saved.id,
        action: before === null ? 'create' : 'update',
        after: {
          mobile_client_id: saved.mobileClientId,
          platform: saved.platform,
          is_sdk: isSdk,
          ...(moves ? { from_user: before } : {}),
        },
      });
      return { row: saved, secret };
    });
    const features = mobileAppFeatures(server, user);
    return {
      ...toMobileClient(row),
      license_features: features,
      // The company's brand goes to an app only while white label is licensed to its user.
      white_label: features.includes('mobile_white_label') && this.opts.whiteLabel ? await this.opts.whiteLabel(actor.projectId) : null,
      ...(secret === undefined ? {} : { client_secret: secret }),
    };
  }

  private async assertWithinLicense(
    tx: Parameters<Parameters<MobileClientsRepository['transaction']>[0]>[0],
    projectId: number,
    userId: number,
    server: LicenseInfo,
    user: LicenseInfo,
  ): Promise<void> {
    const used = await this.repo.counts(tx, projectId, userId);
    const projectMax = server.mobile_app.license_count;
    if (projectMax !== null && used.project > projectMax) {
      const message = 'exceeding the maximum mobile apps in the project';
      throw new AppError('mobile_app_limit_project', [
        { field: 'mobile_client_id', message, params: { max_count: projectMax, used: used.project } },
      ]);
    }
    const userMax = user.mobile_app.is_enabled ? user.mobile_app.license_count : null;
    if (userMax !== null && used.user > userMax) {
      const message = 'exceeding the maximum mobile apps of the user';
      throw new AppError('mobile_app_limit_user', [
        { field: 'mobile_client_id', message, params: { max_count: userMax, used: used.user } },
      ]);
    }
    const breach = used.groups.find((g) => g.used > g.max);
    if (breach) {
      const message = 'exceeding the maximum mobile apps in the group';
      const params = { domain_id: breach.id, domain: breach.name, max_count: breach.max, used: breach.used };
      throw new AppError('mobile_app_limit_group', [{ field: 'mobile_client_id', message, params }]);
    }
  }

  /**
   * Whether a door may open for '#' pressed on a call by `number` (the call record `callId`): a number
   * a mobile app calls with opens only while remote opening is licensed to the app's user (the
   * server's licence or the user's own, with the mobile app). A number no app uses (a desk phone, the
   * web dialer) is not a mobile app's and is not asked about.
   */
  async remoteOpenAllowed(callId: string, number: string): Promise<boolean> {
    const holders = await this.repo.appUsersOfNumber(callId, number);
    for (const h of holders) {
      const server = await this.opts.serverFeatures(h.projectId);
      const user = userLicenseInEffect(h.license, Date.now()).info;
      if (!mobileAppFeatures(server, user).includes('mobile_remote_open')) return false;
    }
    return true;
  }

  async listOwn(actor: Actor): Promise<MobileClient[]> {
    return (await this.repo.ofUser(actor.projectId, actor.userId)).map(toMobileClient);
  }

  async removeOwn(ctx: RequestContext, id: number): Promise<void> {
    this.assertUser(ctx.actor);
    await this.remove(ctx, ctx.actor.userId, id);
  }

  /** An administrator: the user's apps, read-only, when the user is theirs to view. */
  async listOfUser(actor: Actor, userId: number): Promise<MobileClientInfo[]> {
    await this.opts.assertMayView(actor, userId);
    return (await this.repo.ofUser(actor.projectId, userId)).map(toMobileClientInfo);
  }

  /** An administrator removes a user's app: with the rules of acting on that user. */
  async removeOfUser(ctx: RequestContext, userId: number, id: number): Promise<void> {
    if (userId !== ctx.actor.userId) await this.opts.assertMayManage(ctx.actor, userId);
    await this.remove(ctx, userId, id);
  }

  private async remove(ctx: RequestContext, userId: number, id: number): Promise<void> {
    await this.repo.transaction(async (tx) => {
      const gone = await this.repo.remove(tx, ctx.actor.projectId, userId, id);
      if (!gone) throw notFound();
      await recordAudit(tx, ctx, {
        entity: 'mobile_client',
        entityId: id,
        action: 'delete',
        before: { user_id: userId, mobile_client_id: gone.mobileClientId, platform: gone.platform },
      });
    });
  }
}
