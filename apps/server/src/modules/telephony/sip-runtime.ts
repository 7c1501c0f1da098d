import { readFile } from 'node:fs/promises';
import type { SipSettings, SipStatus } from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import type { Config } from '../../config.js';
import { AppError } from '../../core/errors.js';
import { tcpPortFree, udpPortFree } from '../../core/ports.js';
import { type SipNetworkSettings, type SipServer, startSipServer } from '../../sip/index.js';
import { type RtpengineProcess, spawnRtpengine } from '../../sip/rtpengine-process.js';
import type { SipControl } from './calls.service.js';
import { telephonyOf } from './telephony.js';

export interface SipRuntime {
  server: SipServer;
  close(): Promise<void>;
}

/** The project's SIP tab as the SIP server applies it. */
export function sipNetwork(s: SipSettings): SipNetworkSettings {
  return {
    internalIp: s.server.internal_ip,
    externalIp: s.server.external_ip,
    localNetworks: s.local_networks,
    earlyMedia: s.is_early_media_enabled,
  };
}

/** Resolves the first of Atrium's SIP ports something else holds (UDP or TCP), or null. */
export async function takenSipPort(host: string, port: number, wsPort: number): Promise<string | null> {
  if (port !== 0 && !(await udpPortFree(port, host))) return `UDP ${port}`;
  if (port !== 0 && !(await tcpPortFree(port, host))) return `TCP ${port}`;
  if (wsPort !== 0 && !(await tcpPortFree(wsPort, host))) return `TCP ${wsPort} (WebSocket)`;
  return null;
}

/**
 * Starts the SIP registrar and proxy inside Atrium, on the telephony tables (the directory and the
 * call recorder of modules/telephony), and hands the console's SIP service calls (status, reinit,
 * restart, stop a call, the dialer's endpoint) their control. Reinit and restart close and reopen the
 * listening sockets on the same ports; registrations are kept by the phones, which register again.
 */
export async function startSip(app: AppInstance, config: Config): Promise<SipRuntime> {
  const tel = telephonyOf(app);
  const tls = config.sip.tls ? { cert: await readFile(config.sip.tls.certFile), key: await readFile(config.sip.tls.keyFile) } : undefined;
  // The ports of the default project's SIP settings (project settings, SIP tab) win over the configuration.
  const stored = await app.services.projectSettings.storedSipPorts();
  const port = stored.port ?? config.sip.port;
  let ports = { udp: port, tcp: port, ws: stored.ws_port ?? config.sip.wsPort };
  // The rest of the SIP tab: the addresses of Via and Record-Route (and of relayed SDP) by the
  // peer's network, and early media. Changes apply to the running server at once (configure).
  const initial = await app.services.projectSettings.defaultSipSettings();
  let network = sipNetwork(initial);
  // The media relay: rtpengine at RTPENGINE_URL as it is configured, or one Atrium runs itself
  // (RTPENGINE_BIN) with the SIP tab's RTP range and addresses, started again when they change.
  const mediaOf = (s: SipSettings) => ({
    ports: { ...s.rtp },
    bindAddress: s.server.internal_ip ?? (config.sip.host !== '0.0.0.0' ? config.sip.host : config.sip.publicHost),
    advertised: s.server.external_ip,
  });
  let media = mediaOf(initial);
  let relay: RtpengineProcess | null = null;
  const rtpengineLog = app.log.child({ component: 'rtpengine' });
  const startRelay = async () => {
    if (config.sip.rtpengineUrl || !config.sip.rtpengineBin) return undefined;
    relay = await spawnRtpengine({ bin: config.sip.rtpengineBin, ...media, onLog: (line) => rtpengineLog.debug({ line }, 'rtpengine') });
    rtpengineLog.info({ ports: media.ports, url: relay.url }, 'rtpengine started by atrium');
    return relay.url;
  };
  let relayUrl = await startRelay();
  const open = async (): Promise<SipServer> => {
    const server = await startSipServer({
      host: config.sip.host,
      publicHost: config.sip.publicHost,
      udpPort: ports.udp,
      tcpPort: ports.tcp,
      wsPort: ports.ws,
      ...(tls ? { tls } : {}),
      realm: config.sip.publicHost,
      // IP blocking (issue 14): banned addresses get 403 to REGISTER; failed digests are counted.
      directory: app.services.ipBlocking.guardSipDirectory(tel.directory),
      observer: tel.recorder,
      log: app.log.child({ component: 'sip' }),
      ...(config.sip.rtpengineUrl ? { rtpengineUrl: config.sip.rtpengineUrl } : relayUrl ? { rtpengineUrl: relayUrl } : {}),
      network,
    });
    // A restart binds the same ports again, even when the first start was given any free one.
    ports = { ...server.ports };
    app.sipWs.port = server.ports.ws;
    app.sipWs.udp = server.ports.udp;
    return server;
  };
  let server = await open();
  let startedAt = new Date();
  const restart = async () => {
    await server.close();
    server = await open();
    startedAt = new Date();
  };
  // One change at a time: two saves in quick succession never start two rtpengines at once.
  let configuring: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = configuring.then(fn);
    configuring = run.catch(() => undefined);
    return run;
  };
  const configure = (settings: SipSettings): Promise<void> => serially(() => applySettings(settings));
  const applySettings = async (settings: SipSettings) => {
    network = sipNetwork(settings);
    server.configure(network);
    const next = mediaOf(settings);
    if (!relay || JSON.stringify(next) === JSON.stringify(media)) return;
    // rtpengine reads its range and addresses only as it starts: a new one, and the SIP server on it.
    media = next;
    await relay.stop();
    relay = null;
    relayUrl = await startRelay();
    await restart();
  };
  const wsScheme = tls ? 'wss' : 'ws';
  const control: SipControl = {
    status: (): SipStatus => ({
      is_running: true,
      started_at: startedAt.toISOString(),
      instances: [
        {
          type: 'embedded',
          ip_address: config.sip.publicHost,
          status: 'running',
          registrations: server.registrationCount(),
          active_calls: server.activeCalls().length,
        },
      ],
    }),
    reinit: restart,
    restartInstance: async () => restart(),
    stopCall: (callId) => server.endCall(callId),
    endpoint: () => ({ domain: config.sip.publicHost, wsUrl: `${wsScheme}://${config.sip.publicHost}:${server.ports.ws}` }),
  };
  tel.calls.attachSip(control);
  app.services.projectSettings.attachSip({
    ports: () => ({ port: server.ports.udp, ws_port: server.ports.ws }),
    apply: async (next) => {
      const taken = await takenSipPort(
        config.sip.host,
        next.port === server.ports.udp ? 0 : next.port,
        next.ws_port === server.ports.ws ? 0 : next.ws_port,
      );
      if (taken) throw new AppError('sip_service_start_failed', [{ field: 'port', message: taken }]);
      ports = { udp: next.port, tcp: next.port, ws: next.ws_port };
      await restart();
    },
    configure,
  });
  return {
    get server() {
      return server;
    },
    close: async () => {
      tel.calls.attachSip(null);
      app.services.projectSettings.attachSip(null);
      await server.close();
      await relay?.stop();
      await tel.recorder.flush();
    },
  };
}
