import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { featureEnabled, VALIDATION_MESSAGES } from '@atrium/contract';
import fastifyCompress from '@fastify/compress';
import fastifyHelmet from '@fastify/helmet';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, {
  type FastifyBaseLogger,
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
import type { Config } from './config.js';
import { TokenService } from './core/auth/tokens.js';
import type { Actor, RequestContext } from './core/context.js';
import type { Database } from './core/db/client.js';
import { AppError, errorBody, registerErrorHandler } from './core/errors.js';
import { FileStore } from './core/files.js';
import { findForbiddenJson, parseJsonBody } from './core/json-body.js';
import { REDACT_PATHS, REDACTED, serializeError } from './core/log-redact.js';
import { MailRepository } from './core/mail/mail.repository.js';
import { Mailer } from './core/mail/mailer.js';
import { describeOperation, polishDocument } from './core/openapi.js';
import { ReadCache } from './core/read-cache.js';
import { RealtimeHub } from './core/realtime.js';
import { AccessRepository } from './modules/access/access.repository.js';
import { accessRoutes } from './modules/access/access.routes.js';
import { AccessService } from './modules/access/access.service.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { AuthRepository } from './modules/auth/auth.repository.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { AuthService } from './modules/auth/auth.service.js';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.js';
import { DevicesRepository } from './modules/devices/devices.repository.js';
import { devicesRoutes } from './modules/devices/devices.routes.js';
import { DevicesService } from './modules/devices/devices.service.js';
import { DomainTypesRepository } from './modules/domain-types/domain-types.repository.js';
import { domainTypesRoutes } from './modules/domain-types/domain-types.routes.js';
import { DomainTypesService } from './modules/domain-types/domain-types.service.js';
import { elevatorsRoutes } from './modules/elevators/elevators.routes.js';
import { ElevatorsService } from './modules/elevators/elevators.service.js';
import { frontendRoutes } from './modules/frontend/frontend.routes.js';
import { LicenseService } from './modules/frontend/license.service.js';
import { SettingsService } from './modules/frontend/settings.service.js';
import { GroupsRepository } from './modules/groups/groups.repository.js';
import { groupsRoutes } from './modules/groups/groups.routes.js';
import { GroupsService } from './modules/groups/groups.service.js';
import { StructureRepository } from './modules/groups/structure.repository.js';
import { StructureService } from './modules/groups/structure.service.js';
import { markersRoutes } from './modules/markers/markers.routes.js';
import { MarkersService } from './modules/markers/markers.service.js';
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
import { collectRouteMetrics, prometheusRoute, systemRoutes } from './modules/system/system.routes.js';
import { telephonyRoutes } from './modules/telephony/telephony.routes.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { type InviteSender, UsersService } from './modules/users/users.service.js';

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
  settings: SettingsService;
  roles: RolesService;
  users: UsersService;
  groups: GroupsService;
  structure: StructureService;
  domainTypes: DomainTypesService;
  mailer: Mailer;
  registration: RegistrationService;
  devices: DevicesService;
  access: AccessService;
  markers: MarkersService;
  elevators: ElevatorsService;
  appleWallet: AppleWalletService;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    services: Services;
    realtime: RealtimeHub;
    files: FileStore;
    readCache: ReadCache;
    sipWs: { port: number | null; udp: number | null };
  }
  interface FastifyRequest {
    actor: Actor;
    ctx: RequestContext;
    /** The read cache's generation when a cacheable read started; undefined when not cacheable. */
    cacheGeneration: number | undefined;
  }
  interface FastifyContextConfig {
    /** Routes that need no sign-in. */
    public?: boolean;
    /**
     * A read whose answer depends only on the caller, the URL and the database: kept in the read
     * cache (core/read-cache.ts) until anything changes.
     */
    cache?: boolean;
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

export async function buildApp({ config, database, serveWeb }: BuildOptions): Promise<AppInstance> {
  const app = Fastify({
    // Errors are logged without a failed query's values, and no secret-named field reaches a line (core/log-redact.ts).
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            serializers: { err: logError, error: logError },
            redact: { paths: REDACT_PATHS, censor: REDACTED },
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
  // One line per request at info: method, route (not the URL, which may carry a search or a token), status, time; the request id is on every line.
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      { method: req.method, route: req.routeOptions.url ?? null, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
  // Counts and latencies per route for System info and GET /metrics (modules/system).
  collectRouteMetrics(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  /**
   * The SIP server's ports once it listens (modules/telephony/sip-runtime.ts sets them): the CSP lets
   * the dialer reach the WebSocket; panels' forwards name the UDP port.
   */
  const sipWs: { port: number | null; udp: number | null } = { port: null, udp: null };
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
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  const projectsRepo = new ProjectsRepository(database.db);
  const projects = new ProjectsService(database.db, projectsRepo);
  const tokens = new TokenService(config.jwtSecret ?? (await projects.jwtSecret()));
  const realtime = new RealtimeHub(database);
  await realtime.start();
  const readCache = await ReadCache.attach(database);
  const files = new FileStore(path.join(config.dataDir, 'files'));
  const licenses = new LicenseService(projectsRepo);
  const mailer = new Mailer(new MailRepository(database.db), { log: app.log, defaultSmtp: config.smtp });
  const settings = new SettingsService(projectsRepo);
  const notifications = new NotificationsService(new NotificationsRepository(database.db), realtime);
  const devices = new DevicesService(database.db, new DevicesRepository(database.db), {
    publish: (...a) => realtime.publish(...a),
    notify: (...a) => notifications.notify(...a),
  });
  const access = new AccessService(database.db, new AccessRepository(database.db), devices, notifications, {
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    publish: (...a) => realtime.publish(...a),
    ukey2License: async () => {
      const { ukey2 } = await licenses.serverFeatures();
      return { enabled: ukey2.is_enabled, count: ukey2.license_count };
    },
    faceIdForGuests: async () => featureEnabled(await licenses.serverFeatures(), 'face_id_guests'),
  });
  const services: Services = {
    ...administrationServices(database.db, realtime, files, () => services.registration),
    auth: new AuthService(database.db, new AuthRepository(database.db), tokens, readCache),
    projects,
    notifications,
    profile: new ProfileService(database.db, new ProfileRepository(database.db), licenses, files, notifications),
    licenses,
    settings,
    mailer,
    registration: new RegistrationService(database.db, new RegistrationRepository(database.db), mailer, settings, config.publicUrl),
    devices,
    markers: new MarkersService(database.db),
    access,
    elevators: new ElevatorsService(database.db, devices, access),
    appleWallet: new AppleWalletService(database.db),
  };
  services.users.onMarkers((tx, actor, userId, ids) => services.markers.applyToUser(tx, actor, userId, ids));
  // A user's groups decide the doors their identifiers open.
  services.users.onMembershipChange(
    (tx, userIds, change) => services.access.aroundUsers(tx, userIds, change),
    () => services.devices.dispatch(),
  );
  app.decorate('config', config);
  app.decorate('sipWs', sipWs);
  app.decorate('database', database);
  app.decorate('services', services);
  app.decorate('realtime', realtime);
  app.decorate('files', files);
  app.decorate('readCache', readCache);
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.decorateRequest('cacheGeneration', undefined);
  // A write answered here is visible to the caller's next read: the cache moves on before the
  // answer leaves (other instances hear of it through the database's change feed).
  app.addHook('onSend', async (req) => {
    if (!READ_METHODS.has(req.method)) readCache.invalidate();
  });
  app.addHook('onClose', async () => realtime.stop());
  // The retry worker runs once the app is ready and is stopped (after in-flight sends) on close.
  app.addHook('onReady', async () => mailer.start());
  app.addHook('onClose', async () => mailer.stop());
  // Each instance sweeps for device tasks to send; on close, the events it holds are written first.
  app.addHook('onReady', async () => services.devices.start());
  app.addHook('onClose', async () => services.devices.stop());

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
  // Security headers on every answer: the console, the API, uploaded files and the API docs (CONSOLE_CSP below).
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        ...CONSOLE_CSP,
        // The web dialer's SIP WebSocket, on its own port (spec comms §7: 8443), once the SIP server listens.
        connectSrc: ["'self'", () => (sipWs.port ? `ws://*:${sipWs.port} wss://*:${sipWs.port}` : "'self'")],
      },
    },
    // The console opens no cross-origin windows and embeds nothing cross-origin; these defaults would only break downloads.
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // HTTPS is the reverse proxy's to announce; a plain-HTTP install must not be pinned to HTTPS.
    strictTransportSecurity: false,
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
    errorResponseBuilder: () => new AppError('too_many_attempts'),
  });

  await app.register(
    async (api) => {
      const typed = api.withTypeProvider<ZodTypeProvider>() as AppInstance;
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
        const actor = token ? await services.auth.actorFromToken(token) : null;
        if (!actor) throw new AppError('unauthenticated');
        req.actor = actor;
        req.ctx = { actor, ip: req.ip, requestId: String(req.id) };
      });
      typed.addHook('preHandler', async (req, reply) => {
        if (!req.routeOptions.config.cache || req.method !== 'GET') return;
        const hit = readCache.answer(answerKey(req));
        if (hit) return reply.type(hit.contentType).send(hit.payload);
        req.cacheGeneration = readCache.begin();
      });
      typed.addHook('onSend', async (req, reply, payload) => {
        if (req.cacheGeneration === undefined || reply.statusCode !== 200 || typeof payload !== 'string') return;
        const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
        readCache.keepAnswer(req.cacheGeneration, answerKey(req), { payload, contentType });
      });
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
      await typed.register(accessRoutes);
      await typed.register(markersRoutes);
      await typed.register(settingsRoutes);
      await typed.register(elevatorsRoutes);
      await typed.register(telephonyRoutes);
      await typed.register(outboxRoutes);
      await typed.register(dashboardRoutes);
      await typed.register(auditRoutes);
      await typed.register(systemRoutes);
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
      // Built assets carry their content hash in the name: cached for a year and never revalidated.
      // Everything else (index.html, favicon) is revalidated, so a new build is seen at once.
      cacheControl: false,
      setHeaders: (reply, file) => {
        const hashed = /[\\/]assets[\\/][^\\/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(file);
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
 * The Content-Security-Policy of everything Atrium serves. Scripts only from Atrium itself (the
 * console has no inline script); styles may be inline, as MUI's emotion writes them at run time;
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
