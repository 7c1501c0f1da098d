import { randomBytes } from 'node:crypto';
import { parseUri, parseVia, tagOf, userOf } from './address.js';
import { DigestAuthenticator } from './auth.js';
import type { SipActiveCall } from './call.js';
import { DialogRelay } from './dialog.js';
import { NonceIssuer } from './digest.js';
import { DEFAULT_NETWORK, LocalAddress, type SipNetworkSettings } from './local-address.js';
import { SdpRelay } from './media-relay.js';
import { createResponse, type MessageFault, type SipRequest } from './message.js';
import { CallParking } from './park.js';
import { SipProxy } from './proxy.js';
import { Registrar, type RegistrarOptions } from './registrar.js';
import { resolveTimers, type SipLogger, type SipTimerOptions, TimerSet } from './server-types.js';
import { type ServerTransaction, TransactionLayer } from './transaction.js';
import { type Destination, SipTransports, type TransportCounters } from './transport.js';
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
  /** What the network sent that the server refused or could not answer, since it started. */
  counters(): TransportCounters;
  /** Stops a call: BYE to both sides once answered, CANCEL and 487 while ringing. False if unknown. */
  endCall(callId: string): Promise<boolean>;
  activeCalls(): SipActiveCall[];
  /** Applies new network settings to every message sent from now on (no restart). */
  configure(network: Partial<SipNetworkSettings>): void;
  readonly network: SipNetworkSettings;
  close(): Promise<void>;
}

const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, PRACK, REGISTER';
const SERVED = new Set(ALLOW.split(', '));
/** Methods other SIP extensions define: not served here, so 405 with Allow; any other method is 501. */
const KNOWN_NOT_ALLOWED = new Set(['SUBSCRIBE', 'NOTIFY', 'MESSAGE', 'REFER', 'PUBLISH']);
// C0 controls and DEL: no Atrium number holds one, and PostgreSQL refuses a NUL in a text value.
const hasControl = (text: string): boolean => [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

/**
 * Where a response to a request that broke the grammar can go: back over its stream, or over UDP
 * to its top Via's sent-by (received/rport stamped), which must then be readable and a usable port
 * (RFC 3261 §18.2.2). Null: no Via to route by, so the request is dropped unanswered.
 */
function faultDestination(req: SipRequest, flow: Destination): Destination | null {
  // With no Via at all a response could match nothing at the peer (§8.1.3.3), whatever carried it.
  if (req.headers.getAll('via').length === 0) return null;
  if (flow.transport !== 'udp') return flow;
  const via = parseVia(req.headers.get('via') ?? '');
  if (!via) return null;
  const rport = via.params.get('rport');
  const port = rport ? Number(rport) : (via.port ?? 5060);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { transport: 'udp', address: via.params.get('received') ?? via.host, port };
}

/** Option tags of a Require or Proxy-Require header: Atrium supports none (no 100rel, timer, …). */
const optionTags = (req: SipRequest, name: string): string[] =>
  req.headers.getAll(name).flatMap((v) =>
    v
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  );

export async function startSipServer(opts: SipServerOptions): Promise<SipServer> {
  const { log } = opts;
  const timerSet = new TimerSet((err) => log.error({ err }, 'sip timer failed'));
  const timers = resolveTimers(opts.timers);
  const localTag = randomBytes(6).toString('hex');
  let parking: CallParking | null = null;
  // The handlers run only once start() resolved; by then the layers below are built.
  const transports = new SipTransports(opts, log, {
    onMessage: (msg, flow) => layer.receive(msg, flow),
    onMalformed: (fault, flow) => answerFault(fault, flow),
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
    tx.fail();
  };

  // §8.2, §16.3: a request that cannot be read gets a stateless 4xx naming the fault; an ACK none.
  const answerFault = (fault: MessageFault, flow: Destination): void => {
    const req = fault.request;
    if (!req || req.method === 'ACK') return;
    const dest = faultDestination(req, flow);
    if (!dest) return;
    transports.send(dest, createResponse(req, fault.status, fault.reason, localTag));
  };

  /** RFC 3261 §8.2.1-§8.2.2 and §16.3 checks of a well-formed request; true when it answered. */
  const refused = (req: SipRequest, tx: ServerTransaction, servedHere: boolean): boolean => {
    if (!/^sips?:/i.test(req.uri)) {
      tx.reply(416, 'Unsupported URI Scheme');
      return true;
    }
    if (req.method !== 'CANCEL') {
      // A proxy checks Proxy-Require only; Require is for the UAS, which we are for what we answer ourselves.
      const unsupported = [...optionTags(req, 'proxy-require'), ...(servedHere ? optionTags(req, 'require') : [])];
      if (unsupported.length > 0) {
        tx.reply(420, 'Bad Extension', (res) => res.headers.add('Unsupported', [...new Set(unsupported)].join(', ')));
        return true;
      }
    }
    if (req.method === 'REGISTER' || req.method === 'INVITE') {
      // Escaped octets (%00) decode into the user: such a user can be no number, and must reach no lookup.
      const users = [userOf(req.headers.get('to')), userOf(req.headers.get('from')), parseUri(req.uri)?.user ?? null];
      if (users.some((u) => u !== null && hasControl(u))) {
        tx.reply(404, 'Not Found');
        return true;
      }
    }
    return false;
  };

  const onRequest = (req: SipRequest, tx: ServerTransaction | null, flow: Destination): void => {
    // RFC 3261 §16.4: Route entries naming us (one, or two after a double Record-Route) come off.
    for (let top = req.headers.get('route'); top && local.isLocalUri(top); top = req.headers.get('route')) req.headers.shift('route');
    const inDialog = !!tagOf(req.headers.get('to'));
    if (tx && refused(req, tx, !inDialog && (req.method === 'REGISTER' || req.method === 'OPTIONS' || !SERVED.has(req.method)))) return;
    if (inDialog) {
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
        if (KNOWN_NOT_ALLOWED.has(req.method)) tx.reply(405, 'Method Not Allowed', (res) => res.headers.add('Allow', ALLOW));
        else tx.reply(501, 'Not Implemented', (res) => res.headers.add('Allow', ALLOW));
    }
  };

  const layer = new TransactionLayer(
    transports,
    timerSet,
    timers,
    localTag,
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
    counters: () => ({ ...transports.counters }),
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
