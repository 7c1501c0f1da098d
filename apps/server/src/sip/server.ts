import { randomBytes } from 'node:crypto';
import { tagOf } from './address.js';
import { DigestAuthenticator } from './auth.js';
import type { SipActiveCall } from './call.js';
import { DialogRelay } from './dialog.js';
import { NonceIssuer } from './digest.js';
import { DEFAULT_NETWORK, LocalAddress, type SipNetworkSettings } from './local-address.js';
import { SdpRelay } from './media-relay.js';
import type { SipRequest } from './message.js';
import { CallParking } from './park.js';
import { SipProxy } from './proxy.js';
import { Registrar, type RegistrarOptions } from './registrar.js';
import { resolveTimers, type SipLogger, type SipTimerOptions, TimerSet } from './server-types.js';
import { type ServerTransaction, TransactionLayer } from './transaction.js';
import { type Destination, SipTransports } from './transport.js';
import { SIP_HEADERS, type SipCallObserver, type SipContact, type SipDirectory } from './types.js';

export interface SipServerOptions {
  /** Address to bind; also the host we put in Via and Record-Route unless publicHost is given. */
  host: string;
  /** 0 binds an ephemeral port; the bound ports are in SipServer.ports. */
  udpPort: number;
  tcpPort: number;
  /** WebSocket port: wss when `tls` is given, plain ws otherwise. */
  wsPort: number;
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** SIP over TLS for devices (RFC 3261 §26) on this port (0: any free one), opened only with `tls`. */
  tlsPort?: number;
  /** The address phones reach us at, when `host` is a wildcard or behind NAT. */
  publicHost?: string;
  realm: string;
  directory: SipDirectory;
  observer: SipCallObserver;
  log: SipLogger;
  timers?: SipTimerOptions;
  registrar?: RegistrarOptions;
  /** How long a digest nonce stays fresh before stale=true, default 60 s. */
  nonceTtlSeconds?: number;
  /** rtpengine's NG control socket (`udp:127.0.0.1:22222`); absent: media goes end to end. */
  rtpengineUrl?: string;
  /** The project's network settings (internal and external IP, local networks, early media); changeable with configure(). */
  network?: Partial<SipNetworkSettings>;
  /** How long a parked call waits to be resumed (park.ts), default PARK_TIMEOUT_MS. */
  parkTimeoutMs?: number;
}

export interface SipServer {
  /** `tls` only while SIP over TLS listens. */
  ports: { udp: number; tcp: number; ws: number; tls?: number };
  contacts(number: string): SipContact[];
  /** Contacts registered now, over every number. */
  registrationCount(): number;
  /** Stops a call: BYE to both sides once answered, CANCEL and 487 while ringing. False if unknown. */
  endCall(callId: string): Promise<boolean>;
  activeCalls(): SipActiveCall[];
  /** Applies new network settings to every message sent from now on (no restart). */
  configure(network: Partial<SipNetworkSettings>): void;
  readonly network: SipNetworkSettings;
  close(): Promise<void>;
}

const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, PRACK, REGISTER';

export async function startSipServer(opts: SipServerOptions): Promise<SipServer> {
  const { log } = opts;
  const timerSet = new TimerSet();
  const timers = resolveTimers(opts.timers);
  let parking: CallParking | null = null;
  // The handlers run only once start() resolved; by then the layers below are built.
  const transports = new SipTransports(opts, log, {
    onMessage: (msg, flow) => layer.receive(msg, flow),
    onFlowClosed: (flow) => {
      registrar.flowClosed(flow);
      parking?.flowClosed(flow);
    },
  });
  await transports.start();

  const local = new LocalAddress(opts.publicHost ?? (opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host), transports);
  local.network = { ...DEFAULT_NETWORK, ...opts.network };
  const auth = new DigestAuthenticator(opts.realm, opts.directory, new NonceIssuer((opts.nonceTtlSeconds ?? 60) * 1000));
  const registrar = new Registrar(auth, opts.observer, log, timerSet, opts.registrar);
  const media = opts.rtpengineUrl ? await SdpRelay.connect(opts.rtpengineUrl, log) : null;
  let relay: DialogRelay | null = null;
  let proxy: SipProxy | null = null;

  const failed = (tx: ServerTransaction) => (err: unknown) => {
    log.error({ err, method: tx.request.method }, 'sip request handling failed');
    tx.reply(500, 'Server Internal Error');
  };

  const onRequest = (req: SipRequest, tx: ServerTransaction | null, flow: Destination): void => {
    // RFC 3261 §16.4: Route entries naming us (one, or two after a double Record-Route) come off.
    for (let top = req.headers.get('route'); top && local.isLocalUri(top); top = req.headers.get('route')) req.headers.shift('route');
    if (tagOf(req.headers.get('to'))) {
      if (!parking?.onRequest(req, tx)) relay?.onRequest(req, tx);
      return;
    }
    if (!tx) return;
    switch (req.method) {
      case 'REGISTER':
        registrar.handle(req, tx, flow).catch(failed(tx));
        return;
      case 'INVITE':
        if (Number(req.headers.get('max-forwards') ?? 70) <= 0) tx.reply(483, 'Too Many Hops');
        else if (req.headers.has(SIP_HEADERS.resume)) parking?.resume(req, tx, flow).catch(failed(tx));
        else proxy?.onInvite(req, tx, flow).catch(failed(tx));
        return;
      case 'OPTIONS':
        tx.reply(200, 'OK', (res) => {
          res.headers.add('Allow', ALLOW);
          res.headers.add('Accept', 'application/sdp');
        });
        return;
      case 'BYE':
      case 'INFO':
      case 'UPDATE':
      case 'PRACK':
        tx.reply(481, 'Call/Transaction Does Not Exist');
        return;
      default:
        tx.reply(405, 'Method Not Allowed', (res) => res.headers.add('Allow', ALLOW));
    }
  };

  const layer = new TransactionLayer(
    transports,
    timerSet,
    timers,
    randomBytes(6).toString('hex'),
    {
      onRequest,
      onCancel: (tx) => {
        if (!parking?.onCancel(tx) && !relay?.onCancel(tx)) proxy?.onCancel(tx);
      },
    },
    log,
  );
  const deps = {
    layer,
    local,
    registrar,
    auth,
    directory: opts.directory,
    observer: opts.observer,
    log,
    timerSet,
    timers,
    hasFlow: (dest: Destination) => transports.hasFlow(dest),
    media,
  };
  proxy = new SipProxy(deps);
  relay = new DialogRelay(deps, proxy);
  const dialogRelay = relay;
  proxy.onLateAnswer = (call, dialog) => dialogRelay.hangUpLate(call, dialog);
  const callParking = new CallParking(deps, proxy, relay, opts.parkTimeoutMs);
  parking = callParking;

  const activeProxy = proxy;
  log.info({ ports: transports.ports, realm: opts.realm, host: local.host }, 'sip server listening');
  return {
    ports: transports.ports,
    contacts: (number) => registrar.contacts(number),
    registrationCount: () => registrar.registrationCount(),
    endCall: (callId) => callParking.endCall(callId) ?? dialogRelay.endCall(callId),
    activeCalls: () => activeProxy.activeCalls(),
    configure: (network) => {
      local.network = { ...local.network, ...network };
    },
    get network() {
      return local.network;
    },
    close: async () => {
      timerSet.stop();
      layer.close();
      await transports.close();
      await media?.close();
    },
  };
}
