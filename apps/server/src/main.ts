import { type AppInstance, buildApp, DEVELOPMENT_LICENSE_WARNING } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { openDatabase } from './core/db/client.js';
import { tcpPortFree } from './core/ports.js';
import { finishesWithin } from './core/settle.js';
import { cleanStaleUploads } from './core/uploads.js';
import { type BrokerTls, newInternalCredential } from './gateways/mqtt/broker.js';
import { MosquittoDynsec } from './gateways/mqtt/mosquitto-dynsec.js';
import { type DevicePlane, startDevicePlane } from './gateways/mqtt/worker/host.js';
import type { PlaneBroker } from './gateways/mqtt/worker/protocol.js';
import { type SipRuntime, startSip, takenSipPort } from './modules/telephony/sip-runtime.js';

/**
 * The device plane in its supervised thread (gateways/mqtt/worker): the embedded broker, unless an
 * external one is configured or its port is taken (then says what to do), with MQTT over TLS when
 * the broker tab has own certificates; or Atrium's client of MQTT_URL, which connects in the
 * background and keeps retrying, so the server starts whether or not that broker is up.
 */
async function startDevicePlaneIfFree(config: Config, app: AppInstance, tls: BrokerTls | null): Promise<DevicePlane | null> {
  let broker: PlaneBroker;
  if (config.amqpUrl) {
    // RabbitMQ: the devices on its MQTT plugin, every instance a competing consumer over AMQP.
    broker = { kind: 'amqp', url: config.amqpUrl, queue: config.amqpQueue };
  } else if (config.mqttUrl) {
    // Several instances share an external broker: each device message reaches one of them.
    broker = {
      kind: 'external',
      url: config.mqttUrl,
      ...(config.mqttClientId ? { clientId: config.mqttClientId } : {}),
      shared: config.mqttShared === true,
    };
  } else if (!(await tcpPortFree(config.mqttPort, config.mqttHost))) {
    console.warn(
      `\n! MQTT port ${config.mqttPort} is already in use (another MQTT broker is probably running there).\n` +
        `  Atrium is running without its embedded broker, so devices cannot connect yet. Either:\n` +
        `    - use the broker that is there:   MQTT_URL=mqtt://127.0.0.1:${config.mqttPort} npm start\n` +
        `    - or run the embedded one elsewhere: MQTT_PORT=1884 npm start\n`,
    );
    return null;
  } else {
    // Devices sign in as themselves (serial number and device password); anonymous clients are refused.
    broker = { kind: 'embedded', port: config.mqttPort, host: config.mqttHost, internal: newInternalCredential(), tls };
  }
  const devices = app.services.devices;
  const plane = await startDevicePlane({
    broker,
    databaseUrl: config.databaseUrl ?? null,
    statementTimeoutMs: config.dbTimeouts.statementTimeoutMs,
    ...(config.devicePlaneNice !== undefined ? { nice: config.devicePlaneNice } : {}),
    services: devices,
    log: app.log,
  });
  if (broker.kind === 'embedded') devices.attachAccounts(plane.accounts);
  devices.attachGateway(plane);
  return plane;
}

/**
 * Starts the SIP server unless it is switched off or one of its ports is taken (then says what to do);
 * when only the SIP over TLS port is taken, it starts without TLS and says so.
 */
async function startSipIfFree(config: Config, app: AppInstance): Promise<SipRuntime | null> {
  // Kamailio answers SIP at the edge and asks Atrium over HTTP (/sip-edge): nothing to listen on here.
  if (!config.sip.enabled || config.sip.edge) return null;
  const taken = await takenSipPort(config.sip.host, config.sip.port, config.sip.wsPort);
  if (taken) {
    console.warn(
      `\n! SIP port ${taken} is already in use (another SIP server is probably running there).\n` +
        `  Atrium is running without its SIP server, so phones and the web dialer cannot register yet. Either:\n` +
        `    - choose other ports:  SIP_PORT=5070 SIP_WS_PORT=8444 npm start\n` +
        `    - or switch it off:    SIP_ENABLED=false npm start\n`,
    );
    return null;
  }
  const tlsPort = config.sip.tls ? config.sip.tlsPort : null;
  if (tlsPort && !(await tcpPortFree(tlsPort, config.sip.host))) {
    console.warn(
      `\n! SIP over TLS port ${tlsPort} is already in use (another SIP server is probably running there).\n` +
        `  Atrium's SIP server runs without TLS, so devices set to TLS cannot register yet. Choose another port:\n` +
        `    SIP_TLS_PORT=5062 npm start\n`,
    );
    return startSip(app, { ...config, sip: { ...config.sip, tlsPort: null } });
  }
  return startSip(app, config);
}

/**
 * MQTT_DYNSEC: sets up Mosquitto's dynamic-security plugin for Atrium (devices may do nothing by
 * default, Atrium's account gets the whole atrium/v1 tree), retrying in the background while the
 * broker is away. Resolves the manager of device accounts once done.
 */
function manageMosquitto(config: Config, app: AppInstance): { ready: Promise<MosquittoDynsec | null>; stop(): void } {
  let stopped = false;
  const ready = (async () => {
    for (let attempt = 1; config.mqttUrl && !stopped; attempt++) {
      let dynsec: MosquittoDynsec | null = null;
      try {
        dynsec = await MosquittoDynsec.connect({ url: config.mqttUrl });
        await dynsec.setup();
        // Accounts of devices deleted while Atrium was away go; from now on they follow the devices.
        await dynsec.reconcile(await app.services.devices.serials());
        return dynsec;
      } catch (e) {
        await dynsec?.close();
        if (attempt === 1) app.log.warn({ err: (e as Error).message }, 'mosquitto dynamic security: setup failed, retrying every 10 s');
        await new Promise((r) => setTimeout(r, 10_000).unref());
      }
    }
    return null;
  })();
  // Until the plugin is set up, account changes wait for it a while, then fail (an init answers
  // 503; a deletion is tried again at the devices' next sweep).
  const manager = async (): Promise<MosquittoDynsec> => {
    const dynsec = (await finishesWithin(ready, 10_000)) ? await ready : null;
    if (!dynsec) throw new Error('mosquitto dynamic security is not set up yet');
    return dynsec;
  };
  app.services.devices.attachAccounts({
    upsertDevice: async (serial, password) => (await manager()).upsertDevice(serial, password),
    enableDevice: async (serial) => (await manager()).enableDevice(serial),
    disableDevice: async (serial) => (await manager()).disableDevice(serial),
    removeDevice: async (serial) => (await manager()).removeDevice(serial),
    endSessions: async (serial) => (await manager()).endSessions(serial),
  });
  return {
    ready,
    stop: () => {
      stopped = true;
    },
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
  if (!(await tcpPortFree(config.port, config.host))) {
    console.error(`Port ${config.port} is already in use. Choose another one, for example: PORT=8081 npm start`);
    process.exit(1);
  }
  // Uploads a crashed run was reading are of no use to anyone now.
  await cleanStaleUploads(config.dataDir);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, ...config.dbTimeouts });
  const app = await buildApp({ config, database });
  // Own certificates of the broker tab (issue 14): MQTT over TLS on MQTTS_PORT.
  const ownTls = async () => {
    const pair = await app.services.projectSettings.brokerTls();
    return pair ? { port: config.mqttsPort, ...pair } : null;
  };
  const plane = await startDevicePlaneIfFree(config, app, config.mqttUrl ? null : await ownTls());
  const mosquitto = config.mqttDynsec ? manageMosquitto(config, app) : null;
  // Project settings, broker tab (issue 14): restart reopens the embedded broker on its port.
  app.services.projectSettings.attachBroker(plane?.port ? plane.brokerControl(ownTls, config.mqttsPort) : null);
  const sip = await startSipIfFree(config, app);
  const boot = await app.services.projects.bootstrap({ adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  await app.listen({ port: config.port, host: config.host });

  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
  const lines = [``, `Atrium is running at ${config.publicUrl}`, `  database: ${where}`];
  lines.push(
    `  MQTT: ${config.amqpUrl && config.mqttUrl ? `${new URL(config.mqttUrl).host} (RabbitMQ; Atrium reads over AMQP at ${new URL(config.amqpUrl).host})` : config.mqttUrl ? `${new URL(config.mqttUrl).host}${config.mqttDynsec ? ' (Mosquitto; Atrium manages its dynamic security)' : ''}` : plane ? `embedded broker on ${config.mqttHost}:${plane?.port} (devices sign in with their serial number and device password)` : 'not running (see above)'}`,
  );
  lines.push(
    `  SIP: ${
      sip
        ? `UDP and TCP ${config.sip.host}:${sip.server.ports.udp}${sip.server.ports.tls ? `, TLS ${config.sip.host}:${sip.server.ports.tls}` : config.sip.tls ? ', TLS not listening (see above)' : ''}, WebSocket ${config.sip.tls ? 'wss' : 'ws'}://${config.sip.publicHost}:${sip.server.ports.ws} (virtual numbers register with their number and SIP password)`
        : config.sip.edge
          ? `Kamailio at the edge (SIP_EDGE=kamailio; it asks /api/v0/sip-edge from ${config.sip.edge.from.join(', ')})`
          : config.sip.enabled
            ? 'not running (see above)'
            : 'off (SIP_ENABLED=false)'
    }`,
  );
  lines.push(`  API docs: ${config.publicUrl}/api/docs`);
  if (!config.license.publicKey) lines.push(``, `! ${DEVELOPMENT_LICENSE_WARNING}`);
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
    await plane?.close();
    await sip?.close();
    mosquitto?.stop();
    await (await mosquitto?.ready.catch(() => null))?.close();
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((e: unknown) => {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'EADDRINUSE')
    console.error(
      `A port Atrium needs is already in use: ${err.message}. Set PORT, MQTT_PORT, SIP_PORT, SIP_WS_PORT or SIP_TLS_PORT to a free one.`,
    );
  else console.error(`Atrium could not start: ${err.message ?? String(e)}`);
  process.exit(1);
});
