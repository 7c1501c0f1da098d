import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { API_KEY_PREFIX, featureEnabled, SYSTEM_LOG_CAPACITY, VALIDATION_MESSAGES } from '@atrium/contract';
import fastifyCompress from '@fastify/compress';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyContextConfig,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import helmet from 'helmet';
import type { Config } from './config.js';
import { AttemptCounter } from './core/attempts.js';
import { TokenService } from './core/auth/tokens.js';
import type { Actor, RequestContext } from './core/context.js';
import type { Database } from './core/db/client.js';
import { deviceBrokerUrls } from './core/device-broker.js';
import { AppError, errorBody, prohibited, registerErrorHandler } from './core/errors.js';
import { FileStore } from './core/files.js';
import { fileScriptHashes } from './core/inline-scripts.js';
import { findForbiddenJson, parseJsonBody } from './core/json-body.js';
import { type LicenseDeclaration, LicenseGuard } from './core/license-guard.js';
import { REDACT_PATHS, REDACTED, serializeError } from './core/log-redact.js';
import { MailRepository } from './core/mail/mail.repository.js';
import { Mailer } from './core/mail/mailer.js';
import { describeOperation, polishDocument } from './core/openapi.js';
import { ProjectInfo } from './core/project-info.js';
import { sharedRateStore } from './core/rate-limit-store.js';
import { ACTOR_TABLES, type CachedAnswer, ReadCache, type Stamp } from './core/read-cache.js';
import { RealtimeHub } from './core/realtime.js';
import { AccessRepository } from './modules/access/access.repository.js';
import { accessRoutes } from './modules/access/access.routes.js';
import { AccessService } from './modules/access/access.service.js';
// device alarms (issue 13)
import { AlarmsRepository } from './modules/alarms/alarms.repository.js';
import { alarmsRoutes } from './modules/alarms/alarms.routes.js';
import { AlarmsService } from './modules/alarms/alarms.service.js';
// amenities and reservations (issue 13)
import { amenitiesRoutes } from './modules/amenities/amenities.routes.js';
import { AmenitiesService } from './modules/amenities/amenities.service.js';
import { ReservationsService } from './modules/amenities/reservations.service.js';
// announces and polls (issue 13)
import { AnnouncesRepository } from './modules/announces/announces.repository.js';
import { announcesRoutes } from './modules/announces/announces.routes.js';
import { AnnouncesService } from './modules/announces/announces.service.js';
// API keys (issue 14)
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.js';
import { ApiKeysService, keyMayCall } from './modules/api-keys/api-keys.service.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { AuthRepository } from './modules/auth/auth.repository.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { AuthService } from './modules/auth/auth.service.js';
import { BackupSigner } from './modules/backups/backups.archive.js';
// backups (issue 14)
import { backupsRoutes } from './modules/backups/backups.routes.js';
import { BackupsService } from './modules/backups/backups.service.js';
// conversations (issue 13)
import { conversationsRoutes } from './modules/conversations/conversations.routes.js';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.js';
import { brokerAuthRoutes } from './modules/devices/broker-auth.routes.js';
import { DeviceMailNotices } from './modules/devices/device-notices.js';
import { DevicesRepository } from './modules/devices/devices.repository.js';
import { devicesRoutes } from './modules/devices/devices.routes.js';
import { DevicesService } from './modules/devices/devices.service.js';
import { DomainTypesRepository } from './modules/domain-types/domain-types.repository.js';
import { domainTypesRoutes } from './modules/domain-types/domain-types.routes.js';
import { DomainTypesService } from './modules/domain-types/domain-types.service.js';
import { elevatorsRoutes } from './modules/elevators/elevators.routes.js';
import { ElevatorsService } from './modules/elevators/elevators.service.js';
// emergency alerts, lockdown and muster (issue 13)
import { emergencyRoutes } from './modules/emergency/emergency.routes.js';
import { EmergencyService } from './modules/emergency/emergency.service.js';
import { frontendRoutes } from './modules/frontend/frontend.routes.js';
import { LicenseService } from './modules/frontend/license.service.js';
import { SettingsService } from './modules/frontend/settings.service.js';
import { GroupsRepository } from './modules/groups/groups.repository.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { GroupsService } from './modules/groups/groups.service.js';
import { StructureRepository } from './modules/groups/structure.repository.js';
import { StructureService } from './modules/groups/structure.service.js';
// integrations with Axxon One (issue 14)
import { IntegrationsRepository } from './modules/integrations/integrations.repository.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { IntegrationsService } from './modules/integrations/integrations.service.js';
// IP blocking and recent logs (issue 14)
import { guardIpBlocking } from './modules/ip-blocking/ip-blocking.guard.js';
import { IpBlockingRepository } from './modules/ip-blocking/ip-blocking.repository.js';
import { ipBlockingRoutes } from './modules/ip-blocking/ip-blocking.routes.js';
import { IpBlockingService } from './modules/ip-blocking/ip-blocking.service.js';
import { LicensesRepository } from './modules/licenses/licenses.repository.js';
import { licensesRoutes } from './modules/licenses/licenses.routes.js';
import { LicensesService } from './modules/licenses/licenses.service.js';
// mail templates (issue 14)
import { mailTemplatesRoutes } from './modules/mail-templates/mail-templates.routes.js';
import { MailTemplatesService } from './modules/mail-templates/mail-templates.service.js';
import { markersRoutes } from './modules/markers/markers.routes.js';
import { MarkersService } from './modules/markers/markers.service.js';
// mobile clients and push delivery (issue 14)
import { MobileClientsRepository } from './modules/mobile-clients/mobile-clients.repository.js';
import { mobileClientsRoutes } from './modules/mobile-clients/mobile-clients.routes.js';
import { MobileClientsService } from './modules/mobile-clients/mobile-clients.service.js';
import { PushService } from './modules/mobile-clients/push.service.js';
import { NotificationsRepository } from './modules/notifications/notifications.repository.js';
import { notificationsRoutes } from './modules/notifications/notifications.routes.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import { outboxRoutes } from './modules/outbox/outbox.routes.js';
import { ProfileRepository } from './modules/profile/profile.repository.js';
import { profileRoutes } from './modules/profile/profile.routes.js';
import { ProfileService } from './modules/profile/profile.service.js';
import { ProjectsRepository } from './modules/projects/projects.repository.js';
import { ProjectsService } from './modules/projects/projects.service.js';
import { realtimeRoutes } from './modules/realtime/realtime.routes.js';
import { RegistrationRepository } from './modules/registration/registration.repository.js';
import { registrationRoutes } from './modules/registration/registration.routes.js';
import { RegistrationService } from './modules/registration/registration.service.js';
import { RolesRepository } from './modules/roles/roles.repository.js';
import { rolesRoutes } from './modules/roles/roles.routes.js';
import { RolesService } from './modules/roles/roles.service.js';
import { settingsRoutes } from './modules/settings/apple-wallet.routes.js';
import { AppleWalletService } from './modules/settings/apple-wallet.service.js';
import { ProjectSettingsRepository } from './modules/settings/project-settings.repository.js';
// project settings (issue 14)
import { projectSettingsRoutes } from './modules/settings/project-settings.routes.js';
import { ProjectSettingsService } from './modules/settings/project-settings.service.js';
// single sign-on with OpenID Connect (issue 14)
import { SsoRepository } from './modules/sso/sso.repository.js';
import { ssoRoutes } from './modules/sso/sso.routes.js';
import { SsoService } from './modules/sso/sso.service.js';
// log life (issue 14)
import { LogLifeWorker } from './modules/system/log-life.js';
import { LogLifeRepository } from './modules/system/log-life.repository.js';
import { LogRing } from './modules/system/log-ring.js';
import { collectRouteMetrics, prometheusRoute, registerInstance, systemRoutes } from './modules/system/system.routes.js';
import { sipEdgeRoutes } from './modules/telephony/sip-edge.routes.js';
import { telephonyOf } from './modules/telephony/telephony.js';
import { telephonyRoutes } from './modules/telephony/telephony.routes.js';
// two-factor sign-in (issue 14)
import { TwoFactorRepository } from './modules/two-factor/two-factor.repository.js';
import { twoFactorRoutes } from './modules/two-factor/two-factor.routes.js';
import { TwoFactorService } from './modules/two-factor/two-factor.service.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { type InviteSender, UsersService } from './modules/users/users.service.js';
// webhooks (issue 14)
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';

export type AppInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** Every service, built once per app from the repositories it needs. */
export interface Services {
  auth: AuthService;
  projects: ProjectsService;
  profile: ProfileService;
  notifications: NotificationsService;
  licenses: LicenseService;
  /** Installing, removing and reporting licences (issue 14). */
  licenseAdmin: LicensesService;
  settings: SettingsService;
  roles: RolesService;
  users: UsersService;
  groups: GroupsService;
  structure: StructureService;
  domainTypes: DomainTypesService;
  mailer: Mailer;
  /** Each project's link base (server URL, else PUBLIC_URL) and management company. */
  projectInfo: ProjectInfo;
  registration: RegistrationService;
  devices: DevicesService;
  access: AccessService;
  markers: MarkersService;
  // mail templates (issue 14)
  mailTemplates: MailTemplatesService;
  /** Integrations with Axxon One over gRPC (issue 14). */
  integrations: IntegrationsService;
  // emergency alerts, lockdown and muster (issue 13)
  emergency: EmergencyService;
  // amenities and reservations (issue 13)
  amenities: AmenitiesService;
  reservations: ReservationsService;
  elevators: ElevatorsService;
  appleWallet: AppleWalletService;
  /** Project settings tabs (issue 14). */
  projectSettings: ProjectSettingsService;
  alarms: AlarmsService;
  /** Announces and polls (issue 13). */
  announces: AnnouncesService;
  /** IP blocking (issue 14): bans and whitelist in memory, failures counted per service. */
  ipBlocking: IpBlockingService;
  /** API keys (issue 14). */
  apiKeys: ApiKeysService;
  /** Webhooks (issue 14): signed deliveries of chosen events, by a durable worker. */
  webhooks: WebhooksService;
  /** Mobile clients (issue 14): residents' apps, counted against the mobile app licence. */
  mobileClients: MobileClientsService;
  /** Push delivery (issue 14): notifications sent to the project's push server by a durable worker. */
  push: PushService;
  /** Log life (issue 14): deletes log rows older than each project's general settings keep them. */
  logLife: LogLifeWorker;
  /** Two-factor sign-in with TOTP (issue 14). */
  twoFactor: TwoFactorService;
  /** Single sign-on with OpenID Connect (issue 14). */
  sso: SsoService;
  /** Backups of a project's entities (issue 14). */
  backups: BackupsService;
  /** The licence check of routes that declare a feature, and of services deciding one by a request's value. */
  licenseGuard: LicenseGuard;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    services: Services;
    realtime: RealtimeHub;
    files: FileStore;
    readCache: ReadCache;
    sipWs: { port: number | null; udp: number | null; tls?: number | null };
    /** Every API route as registered, with its config: what the licence test walks. */
    apiRoutes: { method: string; url: string; config: FastifyContextConfig }[];
  }
  interface FastifyRequest {
    actor: Actor;
    ctx: RequestContext;
    /** The read cache's stamp when a cacheable read started; undefined when not cacheable. */
    cacheStamp: Stamp | undefined;
    /** Settles this request's answer for others waiting for the same (ReadCache.startAnswer). */
    cacheSettle: ((answer: CachedAnswer | undefined) => void) | undefined;
  }
  interface FastifyContextConfig {
    /** Routes that need no sign-in. */
    public?: boolean;
    /**
     * A read whose answer depends only on the caller, the URL and the database: kept in the read
     * cache (core/read-cache.ts) until anything changes (`true`), or until one of `tables` (or what
     * the caller is read from) changes, and at most `maxAgeMs` when the answer also depends on time.
     */
    cache?: true | { tables: readonly string[]; maxAgeMs?: number };
    /**
     * A write that touches only tables no cached read depends on (those without the change feed's
     * trigger, core/read-cache.test.ts): answering it leaves the read cache as it is, so a stream
     * of them (conversation messages) does not make every caller sign in again on the next call.
     */
    keepsReadCache?: boolean;
    /**
     * The licensed feature the route belongs to: refused (403) unless the project's licence or the
     * caller's own includes it (core/license-guard.ts). Every route under a licensed area's prefix
     * declares one.
     */
    license?: LicenseDeclaration;
  }
}

export interface BuildOptions {
  config: Config;
  database: Database;
  /** Serve the built console from this folder (default: config.webDist when it exists). */
  serveWeb?: boolean;
}

/**
 * Builds the Fastify app. Load order: compilers and error handler first (every route relies on
 * them), then shared decorations (config, database, services), then the API under /api/v0 with
 * its auth hook, then the OpenAPI docs and the static console with its history fallback.
 */
/** Fastify's error serializer type: always an object with type, message and stack. */
const logError = (err: unknown) => serializeError(err) as { [key: string]: unknown; type: string; message: string; stack: string };

/** The warning of a server without LICENSE_PUBLIC_KEY: in the log at start and in the printed sign-in (main.ts). */
export const DEVELOPMENT_LICENSE_WARNING =
  'DEVELOPMENT LICENCE: LICENSE_PUBLIC_KEY is not set, so every feature is on without limits and licence files signed with the development key (in the repository) are accepted. Set LICENSE_PUBLIC_KEY on a production server (NODE_ENV=production refuses to start without it).';

/** The parts of an app whose stop has begun and not ended (a shutdown that hangs names them). */
export const partsStopping = new WeakMap<object, Set<string>>();

/** How long a closing server waits for the connections still open (requests in flight, websockets saying goodbye). */
export const CLOSE_GRACE_MS = 10_000;

/**
 * A close waits for requests in flight, not for ever: Node's server.close ends idle keep-alive
 * connections at once but waits for every other connection, and one that never ends (a stuck
 * request, a websocket whose peer never answers its close) held a shutdown, and a test's teardown,
 * past a minute. After `graceMs` from the start of the close, what is still open is cut, and said.
 */
export function cutConnectionsLeftOnClose(app: FastifyInstance, graceMs: number): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    const timer = setTimeout(() => {
      if (!open.size) return;
      app.log.warn({ connections: open.size }, `closing: ${open.size} connection(s) still open after ${graceMs / 1000} s, cut`);
      for (const socket of open) socket.destroy();
    }, graceMs);
    timer.unref();
    app.server.once('close', () => clearTimeout(timer));
    done();
  });
}

export async function buildApp({ config, database, serveWeb }: BuildOptions): Promise<AppInstance> {
  // System info's recent logs (issue 14): every line goes to standard output and the last ones stay in memory.
  const logRing = new LogRing(SYSTEM_LOG_CAPACITY);
  const app = Fastify({
    // Errors are logged without a failed query's values, and no secret-named field reaches a line (core/log-redact.ts).
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            serializers: { err: logError, error: logError },
            redact: { paths: REDACT_PATHS, censor: REDACTED },
            stream: logRing,
          },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{8,64}$/.test(given) ? given : randomUUID();
    },
    // Whose X-Forwarded-For sets req.ip (sign-in limits, audit): TRUST_PROXY, none by default.
    trustProxy: config.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    // Fastify's own two lines per request give way to ours (onResponse below).
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  cutConnectionsLeftOnClose(app, CLOSE_GRACE_MS);
  // One line per request at info: method, route (not the URL, which may carry a search or a token), status, time; the request id is on every line.
  // Hooks that run on every request and never wait take Fastify's callback form: an async hook costs
  // a promise and a turn of the microtask queue per request.
  app.addHook('onResponse', (req, reply, done) => {
    req.log.info(
      { method: req.method, route: req.routeOptions.url ?? null, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    done();
  });
  // Counts and latencies per route for System info and GET /metrics (modules/system).
  collectRouteMetrics(app);
  app.decorate('logRing', logRing);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  /**
   * The SIP server's ports once it listens (modules/telephony/sip-runtime.ts sets them): the CSP lets
   * the dialer reach the WebSocket; panels' forwards name the UDP port.
   */
  const sipWs: { port: number | null; udp: number | null; tls?: number | null } = { port: null, udp: null };
  // One JSON parser for every body (core/json-body.ts): empty is none; NUL, __proto__ and deep nesting are a 400.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    try {
      done(null, parseJsonBody(String(text)));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  // A NUL in the query string or a path parameter would reach PostgreSQL, which cannot store it.
  app.addHook('preValidation', async (req) => {
    // A call without a body is a call with an empty one: each field the route needs is then named as missing.
    if (req.body === undefined && ['POST', 'PUT', 'PATCH'].includes(req.method) && !req.isMultipart()) req.body = {};
    for (const [where, values] of [
      ['query', req.query],
      ['params', req.params],
    ] as const) {
      const bad = findForbiddenJson(values);
      if (bad !== null) throw new AppError('invalid_data', [{ field: bad || where, message: VALIDATION_MESSAGES.invalid_value }]);
    }
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });

  const projectsRepo = new ProjectsRepository(database.db);
  const projects = new ProjectsService(database.db, projectsRepo);
  const tokenSecret = config.jwtSecret ?? (await projects.jwtSecret()); // two-factor sign-in (issue 14) derives its keys from it too
  const tokens = new TokenService(tokenSecret);
  const realtime = new RealtimeHub(database);
  await realtime.start();
  const readCache = await ReadCache.attach(database);
  const files = new FileStore(path.join(config.dataDir, 'files'));
  // Every link Atrium hands out uses the project's server URL, else PUBLIC_URL; mails show its company.
  const projectInfo = new ProjectInfo(database.db, config.publicUrl, files, readCache);
  const licensesRepo = new LicensesRepository(database.db);
  const licenses = new LicenseService(licensesRepo, { publicKey: config.license.publicKey });
  const licenseGuard = new LicenseGuard(database.db, (projectId) => licenses.serverFeatures(projectId));
  // Said at every start, where whoever runs the server looks: nothing is refused and anyone can sign a licence this server takes.
  if (licenses.development) app.log.warn({ license: 'development' }, DEVELOPMENT_LICENSE_WARNING);
  const mailer = new Mailer(new MailRepository(database.db), { log: app.log, defaultSmtp: config.smtp, projectInfo });
  // project settings (issue 14): the server settings call reads them; devices is assigned below.
  const projectSettings = new ProjectSettingsService(database.db, new ProjectSettingsRepository(database.db), files, {
    brokerMode: () => (config.mqttUrl ? 'external' : devices.brokerConnected() === null ? 'none' : 'embedded'),
    brokerConnected: () => devices.brokerConnected(),
    deviceBroker: (serverUrl) => deviceBrokerUrls(config, serverUrl),
    sendBrokerSettings: (ctx, payload) => devices.sendBrokerSettings(ctx, payload),
    pushAllowPrivate: config.push.allowPrivate,
    assertMobileFeature: (actor, feature) => licenseGuard.assertMobile(actor, feature),
  });
  const settings = new SettingsService(projectSettings);
  const notifications = new NotificationsService(new NotificationsRepository(database.db), realtime, () => services.push.wake());
  const devicesRepo = new DevicesRepository(database.db, database.copyFrom, () => database.copyPipelined === true);
  // device notices by mail (issue 14): the general settings' administrator e-mail, through the outbox.
  const deviceMail = new DeviceMailNotices(database.db, devicesRepo, mailer, (...a) => projectSettings.deviceNoticeRecipient(...a));
  const devices = new DevicesService(database.db, devicesRepo, {
    // webhooks (issue 14) hear a device going online or offline; never waited for.
    publish: (...a) => {
      void services.webhooks.onPublish(...a);
      return realtime.publish(...a);
    },
    publishMany: (projectId, events) => {
      for (const e of events) void services.webhooks.onPublish(projectId, e.topic, e.event, e.data, e.audience);
      return realtime.publishMany(projectId, events);
    },
    notify: (...a) => notifications.notify(...a),
    mailAdmin: (...a) => deviceMail.send(...a),
  });
  const access = new AccessService(database.db, new AccessRepository(database.db), devices, notifications, {
    dataDir: config.dataDir,
    links: projectInfo,
    publish: (...a) => realtime.publish(...a),
    ukey2License: async (projectId) => {
      const { ukey2 } = await licenses.serverFeatures(projectId);
      return { enabled: ukey2.is_enabled, count: ukey2.license_count };
    },
    faceIdForGuests: async (projectId) => featureEnabled(await licenses.serverFeatures(projectId), 'face_id_guests'),
    licenseGuard,
  });
  // an init (first or again) and a device's own request are followed by a full sync of what it must hold
  devices.attachFullSync((tx, ids, actor) => access.queueSync(tx, actor, ids, { identifierIds: null, scheduleIds: null }));
  // amenities and reservations (issue 13): a reservation's QR is an identifier of the access area.
  const amenities = new AmenitiesService(database.db, access, devices, files);
  const auth = new AuthService(database.db, new AuthRepository(database.db), tokens, readCache);
  const services: Services = {
    // API keys and webhooks (issue 14): a key is given a role by the rule users management applies.
    apiKeys: new ApiKeysService(database.db, { assertAssignable: (a, r) => services.roles.assertAssignable(a, r) }, readCache),
    webhooks: new WebhooksService(database.db, {
      log: app.log,
      allowPrivate: config.webhooks.allowPrivate,
      onDataChange: (h) => database.onDataChange(h),
      live: () => database.live(),
      ...config.webhooks.worker,
    }),
    // mobile clients and push delivery (issue 14): acting on another user's apps is acting on that user.
    mobileClients: new MobileClientsService(new MobileClientsRepository(database.db), {
      serverFeatures: (projectId) => licenses.serverFeatures(projectId),
      assertMayManage: (actor, id) => services.users.assertMayManage(actor, id),
      assertMayView: async (actor, id) => {
        await services.users.get(actor, id);
      },
      whiteLabel: (projectId) => projectSettings.mobileWhiteLabel(projectId),
    }),
    push: new PushService(database.db, { log: app.log, allowPrivate: config.push.allowPrivate, ...config.push.worker }),
    // IP blocking (issue 14)
    ipBlocking: new IpBlockingService(database.db, new IpBlockingRepository(database.db), new AttemptCounter(database.db), app.log),
    logLife: new LogLifeWorker(new LogLifeRepository(database.db), { log: app.log }),
    ...administrationServices(database.db, realtime, files, () => services.registration),
    auth,
    // two-factor sign-in (issue 14): sign-in asks it who needs a code (auth.onSecondFactor below).
    twoFactor: new TwoFactorService(database.db, new TwoFactorRepository(database.db), {
      secret: tokenSecret,
      attempts: new AttemptCounter(database.db),
      completeSignIn: (...a) => auth.completeSignIn(...a),
      project: async (id) => {
        const p = await projectsRepo.byId(id);
        return p ? { id: p.id, uid: p.uid, name: p.name } : undefined;
      },
      assertMayManage: (actor, id) => services.users.assertMayManage(actor, id),
      issuer: 'Atrium',
    }),
    // single sign-on with OpenID Connect (issue 14)
    sso: new SsoService(database.db, new SsoRepository(database.db), {
      secret: tokenSecret,
      links: projectInfo,
      completeSignIn: (...a) => auth.completeSignIn(...a),
      project: async (id) => {
        const p = await projectsRepo.byId(id);
        return p ? { id: p.id, uid: p.uid, name: p.name } : undefined;
      },
      secondFactor: { required: (ids) => services.twoFactor.required(ids), challenge: (...a) => services.twoFactor.challenge(...a) },
      allowPrivate: config.sso.allowPrivate,
      log: app.log,
    }),
    projects,
    notifications,
    profile: new ProfileService(database.db, new ProfileRepository(database.db), licenses, files, notifications),
    licenses,
    licenseGuard,
    licenseAdmin: new LicensesService(licensesRepo, licenses, notifications, { serverUrl: config.license.serverUrl, log: app.log }),
    settings,
    mailer,
    projectInfo,
    registration: new RegistrationService(database.db, new RegistrationRepository(database.db), mailer, settings, projectInfo),
    devices,
    markers: new MarkersService(database.db),
    // backups (issue 14): a restore re-syncs the project's devices with what they must hold now
    backups: new BackupsService(database.db, files, new BackupSigner(tokenSecret), {
      queueFullSync: (tx, actor, ids) => access.queueSync(tx, actor, ids, { identifierIds: null, scheduleIds: null }),
      dispatch: () => devices.dispatch(),
    }),
    // mail templates (issue 14)
    mailTemplates: new MailTemplatesService(database.db, mailer, projectInfo),
    // integrations with Axxon One (issue 14): passwords sealed under the token secret
    integrations: new IntegrationsService(database.db, new IntegrationsRepository(database.db), {
      secret: tokenSecret,
      log: app.log,
      onDataChange: (h) => database.onDataChange(h),
      live: () => database.live(),
      allowPrivate: config.integrations.allowPrivate,
    }),
    // emergency alerts, lockdown and muster (issue 13): sound links signed with the token secret
    emergency: new EmergencyService(database.db, devices, files, {
      links: projectInfo,
      secret: config.jwtSecret ?? (await projects.jwtSecret()),
      realtime,
      log: app.log,
    }),
    access,
    elevators: new ElevatorsService(database.db, devices, access),
    appleWallet: new AppleWalletService(database.db),
    projectSettings,
    amenities,
    reservations: new ReservationsService(database.db, amenities, access, devices),
    // device alarms (issue 13): raised and cleared by device events; SOS calls from telephony's history.
    alarms: new AlarmsService(database.db, new AlarmsRepository(database.db), {
      publish: (...a) => realtime.publish(...a),
      notify: (...a) => notifications.notify(...a),
      sosCalls: () => telephonyOf(app).calls,
    }),
    // announces and polls (issue 13): delivered through the mail outbox by a worker reading its tables.
    announces: new AnnouncesService(new AnnouncesRepository(database.db), mailer, notifications, {
      projectInfo,
      mailsPerSecond: config.announceMailsPerSecond,
      log: app.log,
    }),
  };
  devices.onEvents(
    (events) => services.alarms.onDeviceEvents(events),
    (types) => services.alarms.wantsDeviceEvents(types),
  );
  auth.onSecondFactor(services.twoFactor); // two-factor sign-in (issue 14)
  services.users.onMarkers((tx, actor, userId, ids) => services.markers.applyToUser(tx, actor, userId, ids));
  // Users' mobile-app licences count against the project's licence (issue 14).
  services.users.onLicenseWrite((projectId) => services.licenseAdmin.mobileAppCheck(projectId));
  // New users get the licence the general settings give them: the basic one, or their client type's (issue 14).
  services.users.onNewUser((projectId) => services.licenseAdmin.basicLicense(projectId));
  services.structure.onNewUser(
    (projectId) => services.licenseAdmin.basicLicense(projectId),
    (projectId) => services.licenseAdmin.mobileAppCheck(projectId),
  );
  services.registration.onSelfRegistered((tx, projectId, type) => services.licenseAdmin.selfRegisteredLicense(tx, projectId, type));
  // A user's groups decide the doors their identifiers open.
  services.users.onMembershipChange(
    (tx, userIds, change) => services.access.aroundUsers(tx, userIds, change),
    () => services.devices.dispatch(),
  );
  app.decorate('config', config);
  app.decorate('sipWs', sipWs);
  const apiRoutes: AppInstance['apiRoutes'] = [];
  app.decorate('apiRoutes', apiRoutes);
  app.decorate('database', database);
  app.decorate('services', services);
  app.decorate('realtime', realtime);
  app.decorate('files', files);
  app.decorate('readCache', readCache);
  // IP blocking (issue 14): before every route, a banned address is refused from memory; failures are counted per service.
  guardIpBlocking(
    app,
    () => services.ipBlocking,
    (t) => tokens.signedHere(t),
  );
  app.addHook('onReady', async () => services.ipBlocking.start(database));
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.decorateRequest('cacheStamp', undefined);
  app.decorateRequest('cacheSettle', undefined);
  // A write answered here is visible to the caller's next read: the answer leaves once the change
  // feed has brought its writes back to this instance's cache (other instances hear them the same way).
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (READ_METHODS.has(req.method) || req.routeOptions.config?.keepsReadCache) return done(null, payload);
    readCache.settle().then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  });
  // A shutdown that hangs says which part it waits for (each part of the server stops in its own hook).
  const parts = new Set<string>();
  partsStopping.set(app, parts);
  const stopping = async (name: string, stop: () => unknown): Promise<void> => {
    parts.add(name);
    const slow = setTimeout(() => app.log.warn({ part: name }, `still stopping ${name} after 10 s`), 10_000);
    try {
      await stop();
    } finally {
      clearTimeout(slow);
      parts.delete(name);
    }
  };
  app.addHook('onClose', () => stopping('realtime', () => realtime.stop()));
  // The retry worker runs once the app is ready and is stopped (after in-flight sends) on close.
  app.addHook('onReady', async () => mailer.start());
  app.addHook('onClose', () => stopping('mailer', () => mailer.stop()));
  // Each instance sweeps for device tasks to send; on close, the events it holds are written first.
  app.addHook('onReady', async () => services.devices.start());
  app.addHook('onClose', () => stopping('device tasks', () => services.devices.stop()));
  // amenities (issue 13): each instance sweeps reservations' statuses by time (rows claimed with SKIP LOCKED).
  app.addHook('onReady', async () => services.reservations.start(10_000, (e) => app.log.error({ err: e }, 'reservation sweep failed')));
  app.addHook('onClose', () => stopping('reservations', () => services.reservations.stop()));
  // Licences (issue 14): usage per day and notices of licences about to end, every hour.
  app.addHook('onReady', async () => services.licenseAdmin.start());
  app.addHook('onClose', () => stopping('licences', () => services.licenseAdmin.stop()));
  // Announces (issue 13): scheduled starts and recipients still to reach are read from the tables at start.
  app.addHook('onReady', async () => {
    services.announces.startWorker();
    // An announce started or scheduled through another instance (or the listener reconnected): look now.
    await database.onDataChange((table) => {
      if (table === null || table === 'announces') services.announces.wake();
    });
  });
  // Webhooks (issue 14): the delivery worker and the events it turns into deliveries; after a write
  // was answered, the audit events it recorded (never on the request path).
  devices.onEvents(
    (events) => services.webhooks.onDeviceEvents(events),
    (types) => services.webhooks.wantsDeviceEvents(types),
  );
  // Integrations (issue 14): access events launch Axxon One macros in the background, never awaited here.
  devices.onEvents(
    (events) => services.integrations.onDeviceEvents(events),
    (types) => services.integrations.wantsDeviceEvents(types),
  );
  app.addHook('onReady', async () => services.integrations.start());
  app.addHook('onClose', () => stopping('integrations', () => services.integrations.stop()));
  app.addHook('onResponse', (req, _reply, done) => {
    if (!READ_METHODS.has(req.method) && req.actor) void services.webhooks.afterRequest(req.actor.projectId, String(req.id));
    done();
  });
  app.addHook('onReady', async () => services.webhooks.start());
  app.addHook('onReady', async () => services.push.start()); // push delivery (issue 14)
  app.addHook('onClose', () => stopping('push', () => services.push.stop()));
  app.addHook('onClose', () => stopping('webhooks', () => services.webhooks.stop()));
  app.addHook('onClose', () => stopping('announces', () => services.announces.stopWorker()));
  // Log life (issue 14): each instance prunes old log rows hourly (rows claimed with SKIP LOCKED).
  app.addHook('onReady', async () => services.logLife.start());
  app.addHook('onClose', () => stopping('log life', () => services.logLife.stop()));
  // After the workers' own hooks: its first report to the other instances finds them started.
  registerInstance(app);

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Atrium API', version: 'v0' },
      servers: [{ url: '/api/v0' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    // Signed-out calls (sign-in, registration, public settings) say so: no bearer token needed.
    // Every operation gets an operationId, a description and a tag, every parameter a description (core/openapi.ts).
    transform: (args) => {
      const out = jsonSchemaTransform(args);
      const isPublic = (args.route.config as { public?: boolean } | undefined)?.public;
      const method = String(Array.isArray(args.route.method) ? args.route.method[0] : args.route.method);
      const schema = describeOperation(method, args.url, out.schema as Record<string, unknown>);
      return { ...out, schema: (isPublic ? { ...schema, security: [] } : schema) as typeof out.schema };
    },
    // Schemas used by reference (a recursive one, such as a generated group tree) are defined once.
    transformObject: (doc) => polishDocument(jsonSchemaTransformObject(doc) as never),
  });
  // Security headers on every answer: the console, the API, uploaded files and the API docs (CONSOLE_CSP
  // below). Helmet builds them again only when a part that changes does: the SIP WebSocket port, or the
  // console's index.html (its inline script is allowed by hash), not per request.
  const consoleScripts = fileScriptHashes(path.join(config.webDist, 'index.html'));
  let security: { port: number | null; scripts: string[]; headers: Record<string, string> } | undefined;
  app.addHook('onRequest', (req, reply, done) => {
    // Only a page can run an inline script: the API and the hashed assets keep the last headers.
    const page = !req.url.startsWith('/api/') && !req.url.startsWith('/assets/');
    const scripts = page || !security ? consoleScripts() : security.scripts;
    if (security?.port !== sipWs.port || security.scripts !== scripts)
      security = { port: sipWs.port, scripts, headers: securityHeaders(sipWs.port, scripts) };
    reply.headers(security.headers);
    done();
  });
  // Compressed answers (brotli or gzip, as the client accepts) above 1 KB: the console's scripts, lists and the OpenAPI document.
  await app.register(fastifyCompress, { threshold: 1024, encodings: ['br', 'gzip'] });
  // Areas folded: some 150 calls read better as a list of areas, each opened when wanted.
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'none' } });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(fastifyMultipart, { limits: { fileSize: 50 * 1024 * 1024, files: 1, fields: 20 } });
  // Only routes that ask for it (public pages such as a guest's key) are limited, per client address.
  await app.register(fastifyRateLimit, {
    global: false,
    // Counted in the database, so the limit holds however many instances share the clients.
    store: sharedRateStore(new AttemptCounter(database.db)),
    errorResponseBuilder: () => new AppError('too_many_attempts'),
  });

  await app.register(
    async (api) => {
      const typed = api.withTypeProvider<ZodTypeProvider>() as AppInstance;
      typed.addHook('onRoute', (r) => {
        // The config as it ends up: a plugin's own onRoute hook (core/license-guard.ts declareLicense) runs after this one.
        for (const method of [r.method].flat())
          apiRoutes.push({
            method,
            url: r.url,
            get config() {
              return (r.config ?? {}) as FastifyContextConfig;
            },
          });
      });
      typed.addHook('onRequest', async (req) => {
        if (req.routeOptions.config.public) return;
        const header = req.headers.authorization;
        // Only the realtime socket takes the token from the URL (a browser cannot set its headers);
        // anywhere else it would end up in logs and browser history.
        const query = req.routeOptions.url === '/api/v0/ws' ? (req.query as Record<string, unknown> | undefined) : undefined;
        const token = header?.startsWith('Bearer ')
          ? header.slice(7)
          : typeof query?.access_token === 'string'
            ? query.access_token
            : undefined;
        // API keys (issue 14): `Authorization: Bearer atr_…` or `X-Api-Key: atr_…` is a key, never a session.
        const apiKey = token?.startsWith(API_KEY_PREFIX)
          ? token
          : typeof req.headers['x-api-key'] === 'string'
            ? req.headers['x-api-key']
            : undefined;
        if (apiKey !== undefined) {
          const keyActor = await services.apiKeys.actorFromKey(apiKey);
          if (!keyActor) throw new AppError('unauthenticated');
          if (!keyMayCall(req.routeOptions.url)) throw prohibited([{ message: 'api keys cannot call this' }]);
          req.actor = keyActor;
          req.ctx = { actor: keyActor, ip: req.ip, requestId: String(req.id) };
          return;
        }
        const actor = token ? await services.auth.actorFromToken(token) : null;
        if (!actor) throw new AppError('unauthenticated');
        req.actor = actor;
        req.ctx = { actor, ip: req.ip, requestId: String(req.id) };
      });
      // Before the read cache: an answer kept while the feature was licensed is not served after.
      licenseGuard.register(typed);
      typed.addHook('preHandler', async (req, reply) => {
        const cache = req.routeOptions.config.cache;
        if (!cache || req.method !== 'GET') return;
        const key = answerKey(req);
        let hit = readCache.answer(key);
        const being = hit ? undefined : readCache.answerBeingRead(key);
        if (being) hit = await being;
        if (hit) return reply.type(hit.contentType).send(hit.payload);
        // An answer also depends on who asks: what the caller is read from counts too.
        req.cacheStamp = readCache.stamp(cache === true ? undefined : [...ACTOR_TABLES, ...cache.tables]);
        // Others asking the same meanwhile wait for this read instead of each making their own.
        if (req.cacheStamp) req.cacheSettle = readCache.startAnswer(key, req.cacheStamp);
      });
      typed.addHook('onSend', (req, reply, payload, done) => {
        if (req.cacheStamp !== undefined) {
          if (reply.statusCode !== 200 || typeof payload !== 'string') req.cacheSettle?.(undefined);
          else {
            const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
            const cache = req.routeOptions.config.cache;
            const answer = { payload, contentType };
            readCache.keepAnswer(req.cacheStamp, answerKey(req), answer, cache === true ? undefined : cache?.maxAgeMs);
            req.cacheSettle?.(answer);
          }
        }
        done(null, payload);
      });
      // However a request ended (an error before its answer, the client gone), no one waits for it any more.
      typed.addHook('onResponse', (req, _reply, done) => {
        req.cacheSettle?.(undefined);
        done();
      });
      typed.addHook('onRequestAbort', async (req) => req.cacheSettle?.(undefined));
      await typed.register(authRoutes);
      await typed.register(profileRoutes);
      await typed.register(notificationsRoutes);
      await typed.register(frontendRoutes);
      await typed.register(realtimeRoutes);
      await typed.register(domainTypesRoutes);
      await typed.register(groupsRoutes);
      await typed.register(usersRoutes);
      await typed.register(rolesRoutes);
      await typed.register(registrationRoutes);
      await typed.register(devicesRoutes);
      // RabbitMQ asks who may sign in to its MQTT plugin (AMQP_URL).
      if (config.amqpUrl) await typed.register(brokerAuthRoutes);
      await typed.register(accessRoutes);
      await typed.register(markersRoutes);
      await typed.register(mailTemplatesRoutes); // mail templates (issue 14)
      await typed.register(integrationsRoutes); // integrations with Axxon One (issue 14)
      // emergency alerts, lockdown and muster (issue 13)
      await typed.register(emergencyRoutes);
      await typed.register(amenitiesRoutes); // amenities and reservations (issue 13)
      await typed.register(settingsRoutes);
      await typed.register(projectSettingsRoutes);
      await typed.register(elevatorsRoutes);
      await typed.register(telephonyRoutes);
      // Kamailio at the SIP edge asks where calls go and reports them (SIP_EDGE=kamailio).
      if (config.sip.edge) await typed.register(sipEdgeRoutes);
      await typed.register(conversationsRoutes); // conversations (issue 13)
      await typed.register(alarmsRoutes);
      await typed.register(announcesRoutes); // announces and polls (issue 13)
      await typed.register(outboxRoutes);
      await typed.register(dashboardRoutes);
      await typed.register(auditRoutes);
      await typed.register(apiKeysRoutes); // API keys (issue 14)
      await typed.register(webhooksRoutes); // webhooks (issue 14)
      await typed.register(mobileClientsRoutes); // mobile clients (issue 14)
      await typed.register(backupsRoutes); // backups (issue 14)
      await typed.register(systemRoutes);
      await typed.register(ipBlockingRoutes); // IP blocking (issue 14)
      await typed.register(twoFactorRoutes); // two-factor sign-in (issue 14)
      await typed.register(ssoRoutes); // single sign-on with OpenID Connect (issue 14)
      await typed.register(licensesRoutes);
      typed.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: '/api/v0' },
  );
  // Prometheus' text at /metrics, outside the API: its own bearer check (modules/system).
  await app.register(prometheusRoute);

  const webRoot = config.webDist;
  const hasWeb = (serveWeb ?? true) && existsSync(path.join(webRoot, 'index.html'));
  // wildcard: files are looked up per request, so a rebuilt console is served without a restart.
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: true,
      index: ['index.html'],
      // The build writes name.br and name.gz beside each file (apps/web vite.config.ts precompress):
      // sent as they are, so no request waits for brotli's top level; fastify-compress leaves an
      // answer that already has a content-encoding alone.
      preCompressed: true,
      // Built assets carry their content hash in the name: cached for a year and never revalidated.
      // Everything else (index.html, favicon) is revalidated, so a new build is seen at once.
      cacheControl: false,
      setHeaders: (reply, file) => {
        // `file` is the one sent: a build's compressed copy (name.js.br) is as hashed as name.js.
        const hashed = /[\\/]assets[\\/][^\\/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+(\.br|\.gz)?$/.test(file);
        reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0] ?? '';
    // A missing file (an old chunk after a rebuild) is a 404, so the console sees a chunk load error, not HTML.
    const isFile = /\/[^/]+\.[a-z0-9]+$/i.test(url);
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (url.startsWith('/api/') || url === '/api' || !hasWeb || !read || isFile) {
      return reply.status(404).send(errorBody('not_found', String(req.id)));
    }
    // History fallback: client routes of the console (GET and HEAD) load index.html, always revalidated.
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').sendFile('index.html');
  });
  return app;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The Content-Security-Policy of everything Atrium serves. Scripts only from Atrium itself, and the
 * console's one inline script (index.html's first paint) by its hash; styles may be inline, as MUI's
 * emotion writes them at run time (a hash in style-src would turn that off, so index.html's inline
 * style needs none);
 * images also from data: and blob: (avatars being cropped, QR codes); connections to Atrium itself,
 * WebSockets included; no frame may embed Atrium, no plugin runs, forms post only to Atrium.
 */
const CONSOLE_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  mediaSrc: ["'self'", 'blob:'],
  workerSrc: ["'self'", 'blob:'],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The headers helmet sets, with the web dialer's SIP WebSocket (spec comms §7: 8443) allowed once the SIP server listens. */
function securityHeaders(sipWsPort: number | null, inlineScripts: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        ...CONSOLE_CSP,
        scriptSrc: [...CONSOLE_CSP.scriptSrc, ...inlineScripts],
        connectSrc: ["'self'", sipWsPort ? `ws://*:${sipWsPort} wss://*:${sipWsPort}` : "'self'"],
      },
    },
    // The console opens no cross-origin windows and embeds nothing cross-origin; these defaults would only break downloads.
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // HTTPS is the reverse proxy's to announce; a plain-HTTP install must not be pinned to HTTPS.
    strictTransportSecurity: false,
  })({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}

/** A cached answer is the caller's own: project, user, language and the whole URL. */
const answerKey = (req: FastifyRequest): string =>
  `${req.actor.projectId}:${req.actor.userId}:${req.headers['accept-language'] ?? ''}:${req.url}`;

/** Groups, domain types, users and roles: the services of the administration entities. */
function administrationServices(db: Database['db'], realtime: RealtimeHub, files: FileStore, invites: () => InviteSender | undefined) {
  const roles = new RolesService(db, new RolesRepository(db), realtime);
  const groupsRepo = new GroupsRepository(db);
  return {
    roles,
    users: new UsersService(db, new UsersRepository(db), roles, files, invites),
    groups: new GroupsService(db, groupsRepo, files, roles),
    structure: new StructureService(db, groupsRepo, new StructureRepository(db), roles),
    domainTypes: new DomainTypesService(db, new DomainTypesRepository(db)),
  };
}
