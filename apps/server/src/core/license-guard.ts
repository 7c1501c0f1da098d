import {
  type ErrorCode,
  type LicenseFeature,
  type LicenseInfo,
  licensed,
  type MobileAppFeature,
  mobileAppFeatures,
  userLicenseInEffect,
} from '@atrium/contract';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from './context.js';
import { type Db, queryRows } from './db/client.js';
import { AppError } from './errors.js';

/**
 * What a route declares in `config.license`: the feature it belongs to. A public route (no one signed
 * in) names how its project is found from the request, as a guest's key names it; a null project
 * means there is nothing to serve and the handler answers as it would (not found, invalid key).
 */
export type LicenseDeclaration = LicenseFeature | { feature: LicenseFeature; project: (req: FastifyRequest) => Promise<number | null> };

/**
 * The URL prefixes (under /api/v0) that belong wholly to one licensed feature: every route there
 * declares it (license-guard.test.ts walks the registered routes). Features decided by a value of the
 * request rather than its URL (a licence plate is an identifier of one type) are asserted by their
 * service through the same guard.
 */
export const LICENSED_PREFIXES: Readonly<Record<string, LicenseFeature>> = {
  '/elevators': 'elevator',
  '/amenities': 'amenity',
  '/guest-access': 'guest_access',
  '/identifiers/guest': 'guest_access',
  '/access-rules/available-for-guest': 'guest_access',
  '/ukey2': 'ukey2',
};

/** The licensed feature a URL's prefix belongs to, if any. */
export function licensedAreaOf(url: string): LicenseFeature | undefined {
  const path = url.replace(/^\/api\/v0/, '');
  for (const [prefix, feature] of Object.entries(LICENSED_PREFIXES)) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return feature;
  }
  return undefined;
}

/**
 * Declares `feature` on every route the plugin `app` registers from here on (a route's own
 * declaration stays): for route files that are wholly one licensed area, so a route added there
 * later cannot be left out.
 */
export function declareLicense(app: FastifyInstance, feature: LicenseFeature): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, license: route.config?.license ?? feature };
  });
}

/**
 * The refusal of each feature: the codes the checks older than this guard answer with (SIP, the
 * mobile app, UKEY2), so a client sees one answer per feature wherever it is refused.
 */
const REFUSAL: Readonly<Partial<Record<LicenseFeature, ErrorCode>>> = {
  sip: 'sip_disabled',
  sip_trunks: 'sip_disabled',
  web_dialer: 'sip_disabled',
  mobile_app: 'mobile_app_not_licensed',
  ukey2: 'ukey2_not_licensed',
};

export const notLicensed = (feature: LicenseFeature): AppError => new AppError(REFUSAL[feature] ?? 'feature_not_licensed', [{ feature }]);

/**
 * The licence rule of spec core §3 on the server: a licensed feature is refused only when both the
 * project's licence (the server's features) and the caller's own licence leave it off; a call without
 * a user (a guest's page) has only the project's.
 */
export class LicenseGuard {
  constructor(
    private readonly db: Db,
    private readonly serverFeatures: (projectId: number) => Promise<LicenseInfo>,
  ) {}

  private async userLicense(actor: Actor): Promise<LicenseInfo | null> {
    const [row] = await queryRows<{ info: unknown }>(
      this.db,
      sql`SELECT license_info AS info FROM users WHERE id = ${actor.userId} AND project_id = ${actor.projectId}`,
    );
    return row ? userLicenseInEffect(row.info, Date.now()).info : null;
  }

  async allows(feature: LicenseFeature, projectId: number, actor?: Actor): Promise<boolean> {
    const server = await this.serverFeatures(projectId);
    if (licensed(server, null, feature)) return true;
    return actor ? licensed(server, await this.userLicense(actor), feature) : false;
  }

  /**
   * The mobile app's own features in effect for the actor (licenses.ts mobileAppFeatures: the
   * project's licence or the actor's own, each with the mobile app on), or for the project alone.
   */
  async mobileFeatures(projectId: number, actor?: Actor): Promise<MobileAppFeature[]> {
    return mobileAppFeatures(await this.serverFeatures(projectId), actor ? await this.userLicense(actor) : null);
  }

  /** Refuses (403, the feature in the details) unless the mobile app's feature is in effect for the actor. */
  async assertMobile(actor: Actor, feature: MobileAppFeature): Promise<void> {
    if (!(await this.mobileFeatures(actor.projectId, actor)).includes(feature)) throw new AppError('feature_not_licensed', [{ feature }]);
  }

  /** Refuses (403) unless the feature is licensed to the actor's project or to the actor. */
  async assert(actor: Actor, feature: LicenseFeature): Promise<void> {
    if (!(await this.allows(feature, actor.projectId, actor))) throw notLicensed(feature);
  }

  /**
   * The one check of declared routes, before anything else handles them (the body's validation and
   * the read cache included): a route with `config.license` is served only when its feature is
   * licensed, and an unlicensed caller learns nothing of what the route would accept.
   */
  register(api: FastifyInstance): void {
    api.addHook('preValidation', async (req) => {
      const declared = req.routeOptions.config.license;
      if (!declared) return;
      if (typeof declared === 'string') {
        if (!req.actor) throw notLicensed(declared);
        return this.assert(req.actor, declared);
      }
      if (req.actor) return this.assert(req.actor, declared.feature);
      const projectId = await declared.project(req);
      if (projectId !== null && !(await this.allows(declared.feature, projectId))) throw notLicensed(declared.feature);
    });
  }
}
