import { createPublicKey } from 'node:crypto';
import net, { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const port = (name: string, fallback: number, min = 1) =>
  z.coerce
    .number({ message: `${name} must be a port number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be between ${min} and 65535`)
    .max(65535, `${name} must be between ${min} and 65535`)
    .default(fallback);

const url = (name: string, protocols: string[]) =>
  z
    .string()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    )
    .optional();

/** Names proxy-addr (Fastify's trustProxy) accepts in place of addresses. */
const PROXY_PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_PRESETS.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  // A prefix length, or (IPv4) a netmask such as 255.255.255.0, as proxy-addr allows.
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && net.isIPv4(prefix);
}

/**
 * Which proxies may set X-Forwarded-For (and so the client IP that sign-in limits and the audit
 * log see), in the forms Fastify's trustProxy takes: false (default: the socket's address, no
 * header is believed), true (any caller: only behind a proxy that overwrites the header), or a
 * comma list of proxy addresses and CIDRs. Not a hop count: Fastify 5.12.1 dropped it (it could
 * not check the nearest peer) and now trusts no one when given a number.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): boolean | string[] => {
    const lower = v.toLowerCase();
    if (lower === 'false') return false;
    if (lower === 'true') return true;
    if (/^\d+$/.test(v)) {
      ctx.addIssue({ code: 'custom', message: 'TRUST_PROXY takes no hop count (Fastify ignores it): list the proxy addresses or CIDRs' });
      return z.NEVER;
    }
    const entries = v.split(',').map((e) => e.trim());
    const bad = entries.filter((e) => !isAddressOrCidr(e));
    if (bad.length) {
      ctx.addIssue({
        code: 'custom',
        message: `TRUST_PROXY must be false, true or a comma list of proxy addresses and CIDRs (not ${bad.map((b) => JSON.stringify(b)).join(', ')})`,
      });
      return z.NEVER;
    }
    return entries;
  })
  .default(false);

const EnvSchema = z.object({
  // PORT=0 asks the system for a free port (tests, several instances on one machine).
  PORT: port('PORT', 8080, 0),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url('DATABASE_URL', ['postgres:', 'postgresql:']),
  MQTT_URL: url('MQTT_URL', ['mqtt:', 'mqtts:', 'tcp:', 'ws:', 'wss:']),
  // RabbitMQ as the devices' broker: Atrium reads and writes over AMQP; MQTT_URL is then the MQTT listener devices use.
  AMQP_URL: url('AMQP_URL', ['amqp:', 'amqps:']),
  // The durable quorum queue every instance consumes devices' messages from: one name for all instances of a site.
  AMQP_QUEUE: z
    .string()
    .regex(
      /^(?!amq\.)[\w.:-]{1,255}$/,
      'AMQP_QUEUE must be 1 to 255 letters, digits, dots, colons, dashes or underscores, not starting with amq. (RabbitMQ keeps those)',
    )
    .default('atrium.devices'),
  // Who may ask /broker-auth/rabbitmq (RabbitMQ's HTTP auth backend): addresses and CIDRs, `loopback`.
  BROKER_AUTH_FROM: z
    .string()
    .default('loopback')
    .refine(
      (v) => v.split(',').every((a) => a.trim() === 'loopback' || isIP(a.trim().split('/')[0] ?? '') !== 0),
      'BROKER_AUTH_FROM must be a comma list of addresses, CIDRs (10.0.0.0/8) or loopback',
    ),
  MQTT_PORT: port('MQTT_PORT', 1883),
  // MQTT over TLS of the embedded broker, opened when the broker tab has own certificates (0: any free port).
  MQTTS_PORT: port('MQTTS_PORT', 8883, 0),
  MQTT_HOST: z.string().min(1).optional(),
  MQTT_DYNSEC: z.enum(['true', 'false'], 'MQTT_DYNSEC must be true or false').default('false'),
  // Several instances on one external broker: each reads devices' messages through a shared subscription.
  MQTT_SHARED_SUBSCRIPTION: z.enum(['true', 'false'], 'MQTT_SHARED_SUBSCRIPTION must be true or false').default('false'),
  // Atrium's client id at MQTT_URL: its session (and what the broker keeps for it) outlives a restart.
  MQTT_CLIENT_ID: z
    .string()
    .regex(/^[\w.-]{1,64}$/, 'MQTT_CLIENT_ID must be 1 to 64 letters, digits, dots, dashes or underscores')
    .optional(),
  // The device plane thread's nice value (0: the process's priority; above: under a flood on a busy machine the HTTP thread runs first).
  DEVICE_PLANE_NICE: z.coerce
    .number()
    .int('DEVICE_PLANE_NICE must be 0 to 19')
    .min(0, 'DEVICE_PLANE_NICE must be 0 to 19')
    .max(19, 'DEVICE_PLANE_NICE must be 0 to 19')
    .default(0),
  PUBLIC_URL: url('PUBLIC_URL', ['http:', 'https:']),
  // The SIP server (registrar and proxy): UDP and TCP on SIP_PORT, WebSocket for browsers on SIP_WS_PORT (0: any free port).
  SIP_ENABLED: z.enum(['true', 'false'], 'SIP_ENABLED must be true or false').default('true'),
  SIP_PORT: port('SIP_PORT', 5060, 0),
  SIP_WS_PORT: port('SIP_WS_PORT', 8443, 0),
  SIP_HOST: z.string().min(1).optional(),
  // Who answers SIP: Atrium's own server (embedded) or Kamailio at the edge, which asks Atrium over HTTP (deploy/kamailio).
  SIP_EDGE: z.enum(['embedded', 'kamailio'], 'SIP_EDGE must be embedded or kamailio').default('embedded'),
  // Who may ask /sip-edge (Kamailio's addresses): addresses and CIDRs, `loopback`.
  SIP_EDGE_FROM: z
    .string()
    .default('loopback')
    .refine(
      (v) => v.split(',').every((a) => a.trim() === 'loopback' || isIP(a.trim().split('/')[0] ?? '') !== 0),
      'SIP_EDGE_FROM must be a comma list of addresses, CIDRs (10.0.0.0/8) or loopback',
    ),
  // Kamailio's JSON-RPC (jsonrpcs over HTTP) addresses, comma list: how the console's "stop call" ends a call at the edge.
  SIP_EDGE_RPC: z
    .string()
    .default('')
    .refine(
      (v) => v.split(',').every((u) => u.trim() === '' || /^https?:\/\/\S+$/.test(u.trim())),
      'SIP_EDGE_RPC must be a comma list of http(s) URLs (http://10.0.0.5:5071/RPC)',
    ),
  // Kamailio's SIP WebSocket as browsers reach it: where the console's dialer registers at the edge.
  SIP_EDGE_WS_URL: z
    .string()
    .default('')
    .refine(
      (v) => v === '' || /^wss?:\/\/[^\s/:]+(:\d+)?(\/\S*)?$/.test(v),
      'SIP_EDGE_WS_URL must be a ws:// or wss:// address (wss://sip.example.org:8443)',
    ),
  SIP_PUBLIC_HOST: z.string().min(1).optional(),
  SIP_TLS_CERT: z.string().min(1).optional(),
  SIP_TLS_KEY: z.string().min(1).optional(),
  // SIP over TLS for devices (RFC 3261 §26), opened when SIP_TLS_CERT and SIP_TLS_KEY are given (0: any free port).
  SIP_TLS_PORT: port('SIP_TLS_PORT', 5061, 0),
  // rtpengine's NG control socket: the media relay between WebRTC browsers and plain-RTP panels.
  RTPENGINE_URL: z
    .string()
    .regex(/^(udp:)?(\[[^\]]+\]|[^:\s]+):\d{1,5}$/, 'RTPENGINE_URL must look like udp:127.0.0.1:22222')
    .optional(),
  // An rtpengine binary Atrium runs itself (when RTPENGINE_URL names none): the SIP tab's RTP range and addresses reach it.
  RTPENGINE_BIN: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  // How System info names this instance among several on one database (default host:pid).
  INSTANCE_NAME: z.string().min(1).max(100).optional(),
  METRICS_TOKEN: z.string().min(32, 'METRICS_TOKEN must be at least 32 characters').optional(),
  ADMIN_LOGIN: z.string().min(1).max(255).optional(),
  ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').optional(),
  WEB_DIST: z.string().optional(),
  SMTP_URL: url('SMTP_URL', ['smtp:', 'smtps:']),
  SMTP_FROM: z.string().min(3, 'SMTP_FROM must be an address such as Atrium <atrium@example.org>').optional(),
  // announces (issue 13): recipients handed to the mail server per second (what the SMTP provider accepts)
  ANNOUNCE_MAILS_PER_SECOND: z.coerce.number().int().min(1).max(10_000, 'ANNOUNCE_MAILS_PER_SECOND must be 1 to 10000').default(20),
  TRUST_PROXY: trustProxy,
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100, 'DB_STATEMENT_TIMEOUT_MS must be at least 100').optional(),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100, 'DB_ACQUIRE_TIMEOUT_MS must be at least 100').optional(),
  // licences (issue 14): the issuer's Ed25519 public key (PEM, or the base64 of its SPKI DER) and the licence server
  LICENSE_PUBLIC_KEY: z
    .string()
    .refine(isEd25519PublicKey, 'LICENSE_PUBLIC_KEY must be an Ed25519 public key (PEM, or base64 of its SPKI DER)')
    .optional(),
  LICENSE_SERVER_URL: url('LICENSE_SERVER_URL', ['http:', 'https:']),
  // The operator's word that this is a production server (the usual NODE_ENV=production): it must then name its licence issuer.
  NODE_ENV: z.string().trim().optional(),
  // webhooks (issue 14): whether endpoints may be private or loopback addresses (tests, a closed site)
  WEBHOOKS_ALLOW_PRIVATE: z.enum(['true', 'false'], 'WEBHOOKS_ALLOW_PRIVATE must be true or false').default('false'),
  SSO_ALLOW_PRIVATE: z.enum(['true', 'false'], 'SSO_ALLOW_PRIVATE must be true or false').default('false'),
  PUSH_ALLOW_PRIVATE: z.enum(['true', 'false'], 'PUSH_ALLOW_PRIVATE must be true or false').default('false'),
  INTEGRATIONS_ALLOW_PRIVATE: z.enum(['true', 'false'], 'INTEGRATIONS_ALLOW_PRIVATE must be true or false').default('false'),
  WEBHOOKS_RETRY_BASE_MS: z.coerce.number().int().min(10, 'WEBHOOKS_RETRY_BASE_MS must be at least 10').optional(),
  WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100, 'WEBHOOKS_TIMEOUT_MS must be at least 100').optional(),
  WEBHOOKS_POLL_MS: z.coerce.number().int().min(10, 'WEBHOOKS_POLL_MS must be at least 10').optional(),
  // push delivery to mobile apps (issue 14): the push worker's retry base, attempt time-out and poll
  PUSH_RETRY_BASE_MS: z.coerce.number().int().min(10, 'PUSH_RETRY_BASE_MS must be at least 10').optional(),
  PUSH_TIMEOUT_MS: z.coerce.number().int().min(100, 'PUSH_TIMEOUT_MS must be at least 100').optional(),
  PUSH_POLL_MS: z.coerce.number().int().min(10, 'PUSH_POLL_MS must be at least 10').optional(),
});

/** An Ed25519 public key as PEM or as the base64 of its SPKI DER (licences). */
function isEd25519PublicKey(v: string): boolean {
  try {
    const key = v.includes('BEGIN') ? createPublicKey(v) : createPublicKey({ key: Buffer.from(v, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519';
  } catch {
    return false;
  }
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  mqttUrl: string | undefined;
  /**
   * RabbitMQ (AMQP_URL): the devices use its MQTT plugin (MQTT_URL names that listener, for them),
   * Atrium reads their messages over AMQP as one of the competing consumers of a durable queue, and
   * RabbitMQ asks Atrium who may sign in (/broker-auth/rabbitmq).
   */
  amqpUrl: string | undefined;
  /** The durable quorum queue of devices' messages the instances share as competing consumers (AMQP_QUEUE, default atrium.devices). */
  amqpQueue: string;
  /** The addresses RabbitMQ's auth backend asks from (BROKER_AUTH_FROM); every other caller gets 404. */
  brokerAuthFrom: string[];
  mqttPort: number;
  /** MQTT over TLS of the embedded broker with the project's own certificate (MQTTS_PORT). */
  mqttsPort: number;
  /** Where the embedded broker listens (MQTT_HOST; default HOST). It refuses every client without valid credentials. */
  mqttHost: string;
  /** MQTT_URL is a Mosquitto whose dynamic-security plugin Atrium manages with the account in MQTT_URL (MQTT_DYNSEC). */
  mqttDynsec: boolean;
  /**
   * Atrium's client id at MQTT_URL (MQTT_CLIENT_ID; default from the host name and HTTP port), stable
   * across restarts: its session keeps the events Atrium has not acknowledged while it is away.
   */
  mqttClientId?: string;
  /**
   * Read devices' messages at MQTT_URL through a shared subscription (MQTT_SHARED_SUBSCRIPTION), so that
   * several instances each get a share. Off by default: Mosquitto 2.0 does not restore a shared
   * subscription after its own restart, and drops what devices send until Atrium subscribes again.
   */
  mqttShared?: boolean;
  /** The device plane thread's nice value (DEVICE_PLANE_NICE, 0–19; 0 leaves it at the process's priority). */
  devicePlaneNice?: number;
  publicUrl: string;
  logLevel: string;
  jwtSecret: string | undefined;
  /** A bearer token Prometheus may scrape GET /metrics with (METRICS_TOKEN); a user's token with can_view_system_info works too. */
  metricsToken: string | undefined;
  /** INSTANCE_NAME: this instance's name in System info (host:pid when unset). */
  instanceName: string | undefined;
  adminLogin: string | undefined;
  adminPassword: string | undefined;
  webDist: string;
  /** The server's own SMTP, for projects without SMTP settings (SMTP_URL, SMTP_FROM). */
  smtp: { host: string; port: number; secure: boolean; user: string | null; password: string | null; from: string } | null;
  /** Announce recipients handed to the mail server per second (ANNOUNCE_MAILS_PER_SECOND, default 20). */
  announceMailsPerSecond: number;
  /** Fastify's trustProxy: whose X-Forwarded-For is believed (TRUST_PROXY; default none). */
  trustProxy: boolean | string[];
  /**
   * The SIP server: where it binds (SIP_HOST, default HOST), the address phones and browsers reach
   * it at (SIP_PUBLIC_HOST, default PUBLIC_URL's host), its ports, and a certificate and key (PEM
   * files) that make the WebSocket port wss and open SIP over TLS on `tlsPort`.
   */
  sip: {
    enabled: boolean;
    /**
     * SIP_EDGE=kamailio: Kamailio answers SIP (registrations, digest, NAT, WebSocket) and asks Atrium
     * where calls go and tells it what became of them (/sip-edge, only from SIP_EDGE_FROM); Atrium's
     * own SIP server does not start. Absent or null: the embedded server.
     */
    edge?: { from: string[]; rpc?: string[]; wsUrl?: string | null } | null;
    host: string;
    publicHost: string;
    port: number;
    wsPort: number;
    tls: { certFile: string; keyFile: string } | null;
    /** SIP over TLS for devices (SIP_TLS_PORT, default 5061; 0: any free port), with `tls`; null or absent: not opened. */
    tlsPort?: number | null;
    /** rtpengine's NG control address (RTPENGINE_URL); absent: no media relay, media end to end. */
    rtpengineUrl?: string;
    /**
     * rtpengine's binary (RTPENGINE_BIN) when Atrium runs the media relay itself (and RTPENGINE_URL is
     * not set): started with the project's RTP port range and addresses, again when they change.
     */
    rtpengineBin?: string;
  };
  /** PostgreSQL time-outs (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS); undefined: the defaults of core/db/client.ts. */
  dbTimeouts: { statementTimeoutMs?: number; acquireTimeoutMs?: number };
  /**
   * Licences (issue 14): the issuer's public key (LICENSE_PUBLIC_KEY; unset: the development issuer's,
   * and a project without licences runs on the built-in development licence) and the licence server.
   */
  license: { publicKey: string | undefined; serverUrl: string | undefined };
  /** NODE_ENV=production: the operator declares a production server, which never runs on the development licence. */
  production: boolean;
  /**
   * Webhooks (issue 14): private and loopback endpoint addresses allowed (WEBHOOKS_ALLOW_PRIVATE); the
   * wait before the first retry (WEBHOOKS_RETRY_BASE_MS, doubling after) and one attempt's time-out (WEBHOOKS_TIMEOUT_MS).
   */
  webhooks: { allowPrivate: boolean; worker: { retryBaseMs?: number; timeoutMs?: number; pollMs?: number } };
  /** Single sign-on: an identity provider at a loopback, private or special-purpose address allowed (SSO_ALLOW_PRIVATE: one inside the site). */
  sso: { allowPrivate: boolean };
  /**
   * Push delivery: a push server at a loopback, private or special-purpose address allowed
   * (PUSH_ALLOW_PRIVATE: one inside the site); the wait before the first retry (PUSH_RETRY_BASE_MS,
   * doubling after), one attempt's time-out, the poll.
   */
  push: { allowPrivate: boolean; worker: { retryBaseMs?: number; timeoutMs?: number; pollMs?: number } };
  /** Integrations: a video system at a loopback, private or special-purpose address allowed (INTEGRATIONS_ALLOW_PRIVATE: one inside the site). */
  integrations: { allowPrivate: boolean };
}

export class ConfigError extends Error {}

/** Parses the environment once; a bad value stops the start with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const name = String(i.path[0] ?? 'environment');
      return i.message.includes(name) ? `  ${i.message}` : `  ${name}: ${i.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (Boolean(e.SIP_TLS_CERT) !== Boolean(e.SIP_TLS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  SIP_TLS_CERT and SIP_TLS_KEY go together: the certificate and its key, as PEM files');
  }
  if (e.AMQP_URL && (!e.MQTT_URL || e.MQTT_DYNSEC === 'true')) {
    throw new ConfigError(
      'Invalid configuration:\n  AMQP_URL (RabbitMQ) needs MQTT_URL: the MQTT listener of that RabbitMQ the devices connect to (without MQTT_DYNSEC: RabbitMQ asks Atrium through its HTTP auth backend)',
    );
  }
  if (e.MQTT_DYNSEC === 'true' && !e.MQTT_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  MQTT_DYNSEC=true needs MQTT_URL: the Mosquitto broker, with its dynamic-security admin account in it',
    );
  }
  const production = e.NODE_ENV?.toLowerCase() === 'production';
  // Kamailio reads registrations and credentials from Atrium's PostgreSQL; PGlite is this process's alone.
  if (e.SIP_EDGE === 'kamailio' && !e.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  SIP_EDGE=kamailio needs DATABASE_URL: Kamailio reads the numbers and keeps registrations in the same PostgreSQL database (deploy/kamailio/README.md)',
    );
  }
  // Without an issuer key every project without a licence has every feature without limits (the
  // development licence), and anyone may sign licences with the development key shipped in the
  // repository: a production server must not start that way unnoticed.
  if (production && !e.LICENSE_PUBLIC_KEY) {
    throw new ConfigError(
      "Invalid configuration:\n  LICENSE_PUBLIC_KEY is required when NODE_ENV=production: without it every feature is on without limits (the development licence). Set it to your licence issuer's Ed25519 public key (npm run license -- --new-key issuer.pem prints it)",
    );
  }
  return {
    production,
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    mqttUrl: e.MQTT_URL,
    amqpUrl: e.AMQP_URL,
    amqpQueue: e.AMQP_QUEUE,
    brokerAuthFrom: e.BROKER_AUTH_FROM.split(',').map((a) => a.trim()),
    mqttPort: e.MQTT_PORT,
    mqttsPort: e.MQTTS_PORT,
    mqttHost: e.MQTT_HOST ?? e.HOST,
    mqttDynsec: e.MQTT_DYNSEC === 'true',
    mqttShared: e.MQTT_SHARED_SUBSCRIPTION === 'true',
    mqttClientId:
      e.MQTT_CLIENT_ID ??
      `atrium-server-${os
        .hostname()
        .replace(/[^\w.-]/g, '-')
        .slice(0, 40)}-${e.PORT}`,
    devicePlaneNice: e.DEVICE_PLANE_NICE,
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    logLevel: e.LOG_LEVEL,
    jwtSecret: e.JWT_SECRET,
    metricsToken: e.METRICS_TOKEN,
    instanceName: e.INSTANCE_NAME,
    adminLogin: e.ADMIN_LOGIN,
    adminPassword: e.ADMIN_PASSWORD,
    webDist: path.resolve(e.WEB_DIST ?? path.join(import.meta.dirname, '../../web/dist')),
    smtp: e.SMTP_URL ? smtpFromUrl(e.SMTP_URL, e.SMTP_FROM) : null,
    announceMailsPerSecond: e.ANNOUNCE_MAILS_PER_SECOND,
    trustProxy: e.TRUST_PROXY,
    sip: {
      enabled: e.SIP_ENABLED === 'true',
      edge:
        e.SIP_EDGE === 'kamailio'
          ? {
              from: e.SIP_EDGE_FROM.split(',').map((a) => a.trim()),
              rpc: e.SIP_EDGE_RPC.split(',')
                .map((u) => u.trim())
                .filter(Boolean),
              wsUrl: e.SIP_EDGE_WS_URL || null,
            }
          : null,
      host: e.SIP_HOST ?? e.HOST,
      publicHost: e.SIP_PUBLIC_HOST ?? new URL(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).hostname,
      port: e.SIP_PORT,
      wsPort: e.SIP_WS_PORT,
      tls: e.SIP_TLS_CERT && e.SIP_TLS_KEY ? { certFile: path.resolve(e.SIP_TLS_CERT), keyFile: path.resolve(e.SIP_TLS_KEY) } : null,
      tlsPort: e.SIP_TLS_PORT,
      ...(e.RTPENGINE_URL ? { rtpengineUrl: e.RTPENGINE_URL } : {}),
      ...(e.RTPENGINE_BIN ? { rtpengineBin: e.RTPENGINE_BIN } : {}),
    },
    dbTimeouts: {
      ...(e.DB_STATEMENT_TIMEOUT_MS ? { statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS } : {}),
      ...(e.DB_ACQUIRE_TIMEOUT_MS ? { acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS } : {}),
    },
    license: { publicKey: e.LICENSE_PUBLIC_KEY, serverUrl: e.LICENSE_SERVER_URL },
    sso: { allowPrivate: e.SSO_ALLOW_PRIVATE === 'true' },
    webhooks: {
      allowPrivate: e.WEBHOOKS_ALLOW_PRIVATE === 'true',
      worker: {
        ...(e.WEBHOOKS_RETRY_BASE_MS ? { retryBaseMs: e.WEBHOOKS_RETRY_BASE_MS } : {}),
        ...(e.WEBHOOKS_TIMEOUT_MS ? { timeoutMs: e.WEBHOOKS_TIMEOUT_MS } : {}),
        ...(e.WEBHOOKS_POLL_MS ? { pollMs: e.WEBHOOKS_POLL_MS } : {}),
      },
    },
    integrations: { allowPrivate: e.INTEGRATIONS_ALLOW_PRIVATE === 'true' },
    push: {
      allowPrivate: e.PUSH_ALLOW_PRIVATE === 'true',
      worker: {
        ...(e.PUSH_RETRY_BASE_MS ? { retryBaseMs: e.PUSH_RETRY_BASE_MS } : {}),
        ...(e.PUSH_TIMEOUT_MS ? { timeoutMs: e.PUSH_TIMEOUT_MS } : {}),
        ...(e.PUSH_POLL_MS ? { pollMs: e.PUSH_POLL_MS } : {}),
      },
    },
  };
}

function smtpFromUrl(raw: string, from: string | undefined): NonNullable<Config['smtp']> {
  const u = new URL(raw);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    user: u.username ? decodeURIComponent(u.username) : null,
    password: u.password ? decodeURIComponent(u.password) : null,
    from: from ?? `Atrium <atrium@${u.hostname}>`,
  };
}
