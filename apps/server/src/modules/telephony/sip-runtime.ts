import { readFile } from 'node:fs/promises';
import type { SipStatus } from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import type { Config } from '../../config.js';
import { AppError } from '../../core/errors.js';
import { tcpPortFree, udpPortFree } from '../../core/ports.js';
import { type SipServer, startSipServer } from '../../sip/index.js';
import type { SipControl } from './calls.service.js';
import { telephonyOf } from './telephony.js';

export interface SipRuntime {
  server: SipServer;
  close(): Promise<void>;
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
      ...(config.sip.rtpengineUrl ? { rtpengineUrl: config.sip.rtpengineUrl } : {}),
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
  });
  return {
    get server() {
      return server;
    },
    close: async () => {
      tel.calls.attachSip(null);
      app.services.projectSettings.attachSip(null);
      await server.close();
      await tel.recorder.flush();
    },
  };
}
