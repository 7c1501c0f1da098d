import net from 'node:net';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { openDatabase } from './core/db/client.js';

/** Resolves true when nothing listens on host:port. */
function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.once('listening', () => srv.close(() => resolve(true)));
    srv.listen(port, host);
  });
}

async function startEmbeddedBroker(config: Config): Promise<(() => Promise<void>) | null> {
  if (config.mqttUrl) return null;
  if (!(await portFree(config.mqttPort, config.host))) {
    console.warn(
      `\n! MQTT port ${config.mqttPort} is already in use (another MQTT broker is probably running there).\n` +
        `  Atrium is running without its embedded broker, so devices cannot connect yet. Either:\n` +
        `    - use the broker that is there:   MQTT_URL=mqtt://127.0.0.1:${config.mqttPort} npm start\n` +
        `    - or run the embedded one elsewhere: MQTT_PORT=1884 npm start\n`,
    );
    return null;
  }
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker();
  const server = net.createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(config.mqttPort, config.host, resolve));
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => broker.close(() => resolve()));
  };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  if (!(await portFree(config.port, config.host))) {
    console.error(`Port ${config.port} is already in use. Choose another one, for example: PORT=8081 npm start`);
    process.exit(1);
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const stopBroker = await startEmbeddedBroker(config);
  const app = await buildApp({ config, database });
  const boot = await app.services.projects.bootstrap({ adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  await app.listen({ port: config.port, host: config.host });

  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
  const lines = [``, `Atrium is running at ${config.publicUrl}`, `  database: ${where}`];
  lines.push(`  MQTT: ${config.mqttUrl ?? (stopBroker ? `embedded broker on port ${config.mqttPort}` : 'not running (see above)')}`);
  lines.push(`  API docs: ${config.publicUrl}/api/docs`);
  if (boot.created) {
    lines.push(
      ``,
      `First start: created a project and its administrator.`,
      `  Sign in at ${config.publicUrl}/login`,
      `  login:    ${boot.login}`,
    );
    lines.push(
      boot.generatedPassword
        ? `  password: ${boot.generatedPassword}   (shown only this once; it is stored hashed)`
        : `  password: the one given in ADMIN_PASSWORD`,
    );
  } else {
    lines.push(`  Sign in at ${config.publicUrl}/login with your existing account.`);
  }
  console.log(`${lines.join('\n')}\n`);

  const shutdown = async () => {
    await app.close();
    await stopBroker?.();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((e: unknown) => {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'EADDRINUSE')
    console.error(`A port Atrium needs is already in use: ${err.message}. Set PORT or MQTT_PORT to a free one.`);
  else console.error(`Atrium could not start: ${err.message ?? String(e)}`);
  process.exit(1);
});
