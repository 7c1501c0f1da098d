import { readFile } from 'node:fs/promises';
import type { SipInterface, SipNode, SipSettings, SipStatus } from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import type { Config } from '../../config.js';
import { AppError } from '../../core/errors.js';
import { tcpPortFree, udpPortFree } from '../../core/ports.js';
import type { SipNetworkSettings } from '../../sip/index.js';
import { type RtpengineProcess, spawnRtpengine } from '../../sip/rtpengine-process.js';
import { SpareSipWorkers, type SupervisedSipServer, startSipWorker } from '../../sip/worker/host.js';
import type { SipControl } from './calls.service.js';
import { telephonyOf } from './telephony.js';

export interface SipRuntime {
  /** The SIP server, in its own worker thread (sip/worker): started again by itself when it dies. */
  server: SupervisedSipServer;
  /** The rtpengine Atrium runs itself (RTPENGINE_BIN) and the RTP range it was started with, or null. */
  readonly mediaRelay: { url: string; ports: { min: number; max: number } } | null;
  /**
   * Since start: how often the SIP tab changed what runs (a save here: its rebind and its apply; a
   * change heard from another instance: one), the listeners reopened and Atrium's rtpengine started.
   * `crashes`: how often the SIP worker died and was started again. For tests and diagnostics.
   */
  readonly stats: { applied: number; restarts: number; relayStarts: number; readonly crashes: number };
  close(): Promise<void>;
}

/** The SIP worker's heap limit: far above what thousands of registrations and calls take. */
const SIP_WORKER_HEAP_MB = 512;

/** The project's SIP tab as the SIP server applies it. */
export function sipNetwork(s: SipSettings): SipNetworkSettings {
  return {
    internalIp: s.server.internal_ip,
    externalIp: s.server.external_ip,
    localNetworks: s.local_networks,
    earlyMedia: s.is_early_media_enabled,
  };
}

// Field by field: a settings document read back from jsonb has its keys in another order than a body.
const sameNetwork = (x: SipNetworkSettings, y: SipNetworkSettings): boolean =>
  x.internalIp === y.internalIp &&
  x.externalIp === y.externalIp &&
  x.earlyMedia === y.earlyMedia &&
  x.localNetworks.join(',') === y.localNetworks.join(',');

interface RelayMedia {
  ports: { min: number; max: number };
  bindAddress: string;
  advertised: string | null;
}
const sameMedia = (x: RelayMedia, y: RelayMedia): boolean =>
  x.ports.min === y.ports.min && x.ports.max === y.ports.max && x.bindAddress === y.bindAddress && x.advertised === y.advertised;

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
 *
 * The SIP server itself runs in a worker thread (sip/worker): a fault in it ends that thread, not
 * the API, the broker and the doors; the worker is started again on the same ports at once, with
 * the UDP registrations it had (docs/decisions.md, "The SIP server in its own thread").
 *
 * The default project's SIP tab is applied wherever it was saved: this instance applies a save it
 * answers at once, and every instance follows the change feed (`projects` changed, or the feed was
 * lost) by reading the tab again and applying what differs from what it runs. Every change — a
 * save, one heard, a restart from the console — runs one at a time, so the media relay is never
 * restarted while another restart runs, and the change feed's echo of this instance's own save finds
 * nothing left to do.
 */
export async function startSip(app: AppInstance, config: Config): Promise<SipRuntime> {
  const tel = telephonyOf(app);
  const log = app.log.child({ component: 'sip' });
  const tls = config.sip.tls ? { cert: await readFile(config.sip.tls.certFile), key: await readFile(config.sip.tls.keyFile) } : undefined;
  // SIP over TLS for devices, on its own port, when a certificate is configured.
  const tlsPort = tls ? (config.sip.tlsPort ?? null) : null;
  // The ports of the default project's SIP settings (project settings, SIP tab) win over the configuration.
  const stored = await app.services.projectSettings.storedSipPorts();
  const port = stored.port ?? config.sip.port;
  let ports: { udp: number; tcp: number; ws: number; tls?: number } = {
    udp: port,
    tcp: port,
    ws: stored.ws_port ?? config.sip.wsPort,
    ...(tlsPort === null ? {} : { tls: tlsPort }),
  };
  // The rest of the SIP tab: the addresses of Via and Record-Route (and of relayed SDP) by the
  // peer's network, and early media. Changes apply to the running server at once (configure).
  const initial = await app.services.projectSettings.defaultSipSettings();
  let network = sipNetwork(initial);
  // The media relay: rtpengine at RTPENGINE_URL as it is configured, or one Atrium runs itself
  // (RTPENGINE_BIN) with the SIP tab's RTP range and addresses, started again when they change.
  const relayBin = config.sip.rtpengineUrl ? undefined : config.sip.rtpengineBin;
  const mediaOf = (s: SipSettings): RelayMedia => ({
    ports: { ...s.rtp },
    bindAddress: s.server.internal_ip ?? (config.sip.host !== '0.0.0.0' ? config.sip.host : config.sip.publicHost),
    advertised: s.server.external_ip,
  });
  let media = mediaOf(initial);
  let relay: RtpengineProcess | null = null;
  const stats = {
    applied: 0,
    restarts: 0,
    relayStarts: 0,
    get crashes() {
      return earlierCrashes + server.crashes;
    },
  };
  const rtpengineLog = app.log.child({ component: 'rtpengine' });
  const startRelay = async () => {
    if (!relayBin) return undefined;
    relay = await spawnRtpengine({ bin: relayBin, ...media, onLog: (line) => rtpengineLog.debug({ line }, 'rtpengine') });
    stats.relayStarts++;
    rtpengineLog.info({ ports: media.ports, url: relay.url }, 'rtpengine started by atrium');
    return relay.url;
  };
  let relayUrl = await startRelay();
  // Crashes of the workers closed by a restart, so the count covers the whole run.
  let earlierCrashes = 0;
  // One SIP worker waits loaded for the next start (a crash's replacement, a restart); a leak in the
  // SIP server ends its worker at this heap size, not the process.
  const spares = new SpareSipWorkers({ maxOldGenerationSizeMb: SIP_WORKER_HEAP_MB });
  const open = async (): Promise<SupervisedSipServer> => {
    const server = await startSipWorker({
      spares,
      host: config.sip.host,
      publicHost: config.sip.publicHost,
      udpPort: ports.udp,
      tcpPort: ports.tcp,
      wsPort: ports.ws,
      ...(tls ? { tls } : {}),
      ...(ports.tls === undefined ? {} : { tlsPort: ports.tls }),
      realm: config.sip.publicHost,
      // IP blocking (issue 14): banned addresses get 403 to REGISTER; failed digests are counted.
      directory: app.services.ipBlocking.guardSipDirectory(tel.directory),
      observer: tel.recorder,
      log,
      ...(config.sip.rtpengineUrl ? { rtpengineUrl: config.sip.rtpengineUrl } : relayUrl ? { rtpengineUrl: relayUrl } : {}),
      network,
    });
    // A restart binds the same ports again, even when the first start was given any free one.
    ports = { ...server.ports };
    app.sipWs.port = server.ports.ws;
    app.sipWs.udp = server.ports.udp;
    app.sipWs.tls = server.ports.tls ?? null;
    return server;
  };
  let server = await open().catch(async (e: unknown) => {
    await spares.close();
    throw e;
  });
  let startedAt = new Date();
  const restart = async () => {
    const working = { ...server.ports };
    earlierCrashes += server.crashes;
    await server.close();
    try {
      server = await open();
    } catch (e) {
      // The new ports could not be bound (taken since they were checked): back on the ones that worked.
      ports = working;
      server = await open();
      throw e;
    } finally {
      stats.restarts++;
      startedAt = new Date();
    }
  };

  // One change at a time: two saves in quick succession never start two rtpengines at once.
  let configuring: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = configuring.then(fn);
    configuring = run.catch(() => undefined);
    return run;
  };
  let closed = false;

  /** Rebinds the listeners to these ports; AppError('sip_service_start_failed') names a taken one. */
  const rebind = async (next: { port: number; ws_port: number }) => {
    if (next.port === server.ports.udp && next.ws_port === server.ports.ws) return;
    const taken = await takenSipPort(
      config.sip.host,
      next.port === server.ports.udp ? 0 : next.port,
      next.ws_port === server.ports.ws ? 0 : next.ws_port,
    );
    if (taken) throw new AppError('sip_service_start_failed', [{ field: 'port', message: taken }]);
    stats.applied++;
    ports = { ...ports, udp: next.port, tcp: next.port, ws: next.ws_port };
    await restart();
  };

  /**
   * Applies the SIP tab, only what differs from what runs: the addresses and early media at once;
   * new ports, or a new RTP range or addresses of Atrium's rtpengine (read only as it starts: a new
   * one), with one restart of the listeners. Ports something else holds here are left as they are
   * (AppError('sip_service_start_failed') after the rest is applied); the next change tries again.
   */
  const settle = async (settings: SipSettings, want: { port: number; ws_port: number }) => {
    const nextNetwork = sipNetwork(settings);
    const nextMedia = mediaOf(settings);
    const networkChanged = !sameNetwork(nextNetwork, network);
    const mediaChanged = Boolean(relayBin) && !sameMedia(nextMedia, media);
    let portsChanged = want.port !== server.ports.udp || want.ws_port !== server.ports.ws;
    let failure: unknown = null;
    if (portsChanged) {
      const taken = await takenSipPort(
        config.sip.host,
        want.port === server.ports.udp ? 0 : want.port,
        want.ws_port === server.ports.ws ? 0 : want.ws_port,
      );
      if (taken) {
        failure = new AppError('sip_service_start_failed', [{ field: 'port', message: taken }]);
        portsChanged = false;
      }
    }
    if (networkChanged || mediaChanged || portsChanged) {
      stats.applied++;
      network = nextNetwork;
      server.configure(network);
    }
    if (portsChanged) ports = { ...ports, udp: want.port, tcp: want.port, ws: want.ws_port };
    if (mediaChanged) {
      media = nextMedia;
      await relay?.stop();
      relay = null;
      relayUrl = undefined;
      // A relay that cannot start leaves media end to end rather than the SIP server on a dead one.
      relayUrl = await startRelay().catch((e: unknown) => {
        failure = e;
        return undefined;
      });
    }
    if (mediaChanged || portsChanged) await restart();
    if (failure) throw failure;
  };

  // The SIP tab saved on another instance (or on this one: its echo then finds nothing to do).
  const follow = async () => {
    if (closed) return;
    const [settings, storedPorts] = await Promise.all([
      app.services.projectSettings.defaultSipSettings(),
      app.services.projectSettings.storedSipPorts(),
    ]);
    if (closed) return;
    await settle(settings, { port: storedPorts.port ?? server.ports.udp, ws_port: storedPorts.ws_port ?? server.ports.ws });
  };
  let followQueued = false;
  await app.database.onDataChange((table) => {
    // The settings live in projects.settings; null: changes may have gone unheard.
    if (closed || followQueued || (table !== null && table !== 'projects')) return;
    followQueued = true;
    void serially(() => {
      followQueued = false;
      return follow();
    }).catch((err: unknown) => log.error({ err }, 'sip settings changed elsewhere could not be applied'));
  });

  const wsScheme = tls ? 'wss' : 'ws';
  /** The sockets the running SIP server is bound to, as it reports them (any free port it was given included). */
  const interfaces = (): SipInterface[] => {
    const p = server.ports;
    const address = config.sip.host;
    return [
      { transport: 'udp', address, port: p.udp },
      { transport: 'tcp', address, port: p.tcp },
      ...(p.tls === undefined ? [] : [{ transport: 'tls' as const, address, port: p.tls }]),
      { transport: wsScheme, address, port: p.ws },
    ];
  };
  const nodes = (): SipNode[] => [
    {
      type: 'embedded',
      address: config.sip.publicHost,
      // 'error' for the moment between the SIP worker's death and its replacement's start.
      state: server.running ? 'running' : 'error',
      started_at: startedAt.toISOString(),
    },
  ];
  const control: SipControl = {
    edge: () => {
      const c = server.counters();
      return { malformed: c.malformed, send_failures: c.sendFailures, worker_crashes: stats.crashes };
    },
    status: (): SipStatus => ({
      is_running: true,
      started_at: startedAt.toISOString(),
      instances: [
        {
          type: 'embedded',
          ip_address: config.sip.publicHost,
          // 'error' for the moment between the SIP worker's death and its replacement's start.
          status: server.running ? 'running' : 'error',
          registrations: server.registrationCount(),
          active_calls: server.activeCalls().length,
          crashes: stats.crashes,
        },
      ],
    }),
    reinit: () => serially(restart),
    restartInstance: () => serially(restart),
    stopCall: (callId) => server.endCall(callId),
    endpoint: () => ({ domain: config.sip.publicHost, wsUrl: `${wsScheme}://${config.sip.publicHost}:${server.ports.ws}` }),
  };
  tel.calls.attachSip(control);
  app.services.projectSettings.attachSip({
    ports: () => ({ port: server.ports.udp, ws_port: server.ports.ws }),
    interfaces,
    nodes,
    exclusive: serially,
    apply: rebind,
    configure: (settings) => settle(settings, { port: server.ports.udp, ws_port: server.ports.ws }),
  });
  return {
    get server() {
      return server;
    },
    get mediaRelay() {
      return relay ? { url: relay.url, ports: { ...relay.ports } } : null;
    },
    stats,
    close: async () => {
      closed = true;
      tel.calls.attachSip(null);
      app.services.projectSettings.attachSip(null);
      // A change under way finishes first, so nothing reopens after this.
      await configuring;
      await server.close();
      await spares.close();
      await relay?.stop();
      await tel.recorder.flush();
    },
  };
}
