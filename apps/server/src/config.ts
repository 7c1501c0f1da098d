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

const EnvSchema = z.object({
  // PORT=0 asks the system for a free port (tests, several instances on one machine).
  PORT: port('PORT', 8080, 0),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url('DATABASE_URL', ['postgres:', 'postgresql:']),
  MQTT_URL: url('MQTT_URL', ['mqtt:', 'mqtts:', 'tcp:', 'ws:', 'wss:']),
  MQTT_PORT: port('MQTT_PORT', 1883),
  PUBLIC_URL: url('PUBLIC_URL', ['http:', 'https:']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  ADMIN_LOGIN: z.string().min(1).max(255).optional(),
  ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').optional(),
  WEB_DIST: z.string().optional(),
  SMTP_URL: url('SMTP_URL', ['smtp:', 'smtps:']),
  SMTP_FROM: z.string().min(3, 'SMTP_FROM must be an address such as Atrium <atrium@example.org>').optional(),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  mqttUrl: string | undefined;
  mqttPort: number;
  publicUrl: string;
  logLevel: string;
  jwtSecret: string | undefined;
  adminLogin: string | undefined;
  adminPassword: string | undefined;
  webDist: string;
  /** The server's own SMTP, for projects without SMTP settings (SMTP_URL, SMTP_FROM). */
  smtp: { host: string; port: number; secure: boolean; user: string | null; password: string | null; from: string } | null;
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
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    mqttUrl: e.MQTT_URL,
    mqttPort: e.MQTT_PORT,
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    logLevel: e.LOG_LEVEL,
    jwtSecret: e.JWT_SECRET,
    adminLogin: e.ADMIN_LOGIN,
    adminPassword: e.ADMIN_PASSWORD,
    webDist: path.resolve(e.WEB_DIST ?? path.join(import.meta.dirname, '../../web/dist')),
    smtp: e.SMTP_URL ? smtpFromUrl(e.SMTP_URL, e.SMTP_FROM) : null,
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
