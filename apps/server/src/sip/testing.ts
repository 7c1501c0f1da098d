import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tcpPortFree } from '../core/ports.js';
import { tagOf } from './address.js';
import { authorize, parseAuthHeader } from './digest.js';
import { parseMessage, SipHeaders, type SipMessage, type SipRequest, type SipResponse, serializeMessage } from './message.js';
import { type SipServer, type SipServerOptions, startSipServer } from './server.js';
import type { SipLogger } from './server-types.js';
import type { SipCallEvent, SipCallObserver, SipContact, SipDirectory, SipInviteInfo, SipRoute } from './types.js';

/**
 * Test support for the SIP folder: an in-memory SipDirectory (our own seam, standing in for
 * modules/telephony), an observer that records events, and a SIPp runner. Not used in production.
 */

export const SIPP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/sipp');

export const silentLog: SipLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

export class MemoryDirectory implements SipDirectory {
  readonly passwords = new Map<string, string>();
  readonly routes = new Map<string, SipRoute>();
  /** Owners' names by number (callerName); a number without one has none. */
  readonly names = new Map<string, string>();
  readonly invites: SipInviteInfo[] = [];
  /** Makes route() slow, as a database can be, to test what happens meanwhile. */
  routeDelayMs = 0;

  async credentials(number: string): Promise<{ password: string } | null> {
    const password = this.passwords.get(number);
    return password === undefined ? null : { password };
  }

  async callerName(number: string): Promise<string | null> {
    return this.names.get(number) ?? null;
  }

  async route(invite: SipInviteInfo): Promise<SipRoute> {
    this.invites.push(invite);
    if (this.routeDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.routeDelayMs));
    return (
      this.routes.get(invite.callee) ?? {
        kind: 'fork',
        callee: invite.callee,
        sos: false,
        stages: [{ targets: [{ kind: 'number', number: invite.callee }], timeoutSeconds: null, reason: 'initial' }],
      }
    );
  }
}

export class RecordingObserver implements SipCallObserver {
  readonly events: SipCallEvent[] = [];
  readonly registrations: Array<{ contact: SipContact; change: string }> = [];
  private waiters: Array<() => void> = [];

  onCallEvent(event: SipCallEvent): void {
    this.events.push(event);
    this.notify();
  }

  onRegistration(contact: SipContact, change: 'added' | 'refreshed' | 'removed' | 'expired'): void {
    this.registrations.push({ contact, change });
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  /** Resolves with the first event matching, waiting for it up to `timeoutMs`. */
  async waitFor<T extends SipCallEvent['type']>(type: T, timeoutMs = 10_000): Promise<Extract<SipCallEvent, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find((e): e is Extract<SipCallEvent, { type: T }> => e.type === type);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} event within ${timeoutMs} ms; saw ${this.types().join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** A port free right now on 127.0.0.1 (UDP), for SIPp's -p and -mp. */
export async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export interface SippRun {
  /** Resolves with SIPp's exit code and, on failure, its error log. */
  done: Promise<{ code: number | null; errors: string }>;
  port: number;
  kill(): void;
}

/**
 * Starts SIPp on 127.0.0.1 (or `localIp`) with one call of `scenario` (a file under test/sipp)
 * against `target`, from `localPort` when given (a peer known by its port), else a free port.
 */
export async function runSipp(
  scenario: string,
  target: number,
  args: string[] = [],
  localIp = '127.0.0.1',
  localPort?: number,
): Promise<SippRun> {
  // Free for TCP too: SIPp run with -t t1 binds its port on TCP (parallel test files share the loopback).
  let port = localPort ?? (await freeUdpPort());
  for (let tries = 0; localPort === undefined && tries < 20 && !(await tcpPortFree(port, localIp)); tries++) port = await freeUdpPort();
  const mediaPort = await freeUdpPort();
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-sipp-'));
  const errorFile = path.join(dir, 'errors.log');
  // The message trace is what explains a failure that left no error line (a timeout waiting for a
  // message that never came): its tail is added to the errors of a run that did not succeed.
  const messageFile = path.join(dir, 'messages.log');
  const child: ChildProcess = spawn(
    '/usr/bin/sipp',
    [
      `127.0.0.1:${target}`,
      '-sf',
      path.join(SIPP_DIR, scenario),
      '-i',
      localIp,
      '-p',
      String(port),
      '-mp',
      String(mediaPort),
      '-m',
      '1',
      '-timeout',
      '20s',
      '-nostdin',
      '-trace_err',
      '-error_file',
      errorFile,
      '-trace_msg',
      '-message_file',
      messageFile,
      ...args,
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null; errors: string }>((resolve) => {
    child.on('exit', (code) => {
      let errors = stderr;
      try {
        errors += readFileSync(errorFile, 'utf8');
      } catch {
        // No error file: SIPp saw no error.
      }
      if (code !== 0) {
        errors += `\n[${scenario} exited with ${code}]`;
        try {
          errors += `\n--- last messages ---\n${readFileSync(messageFile, 'utf8').slice(-4000)}`;
        } catch {
          // No message trace: SIPp stopped before sending or receiving anything.
        }
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, errors });
    });
  });
  return { done, port, kill: () => child.kill('SIGKILL') };
}

/**
 * Registers `number` with a contact at 127.0.0.1:contactPort (where a SIPp UAS waits), answering
 * the digest challenge: SIPp in UAS mode cannot REGISTER itself first.
 */
export async function registerContact(
  serverPort: number,
  number: string,
  password: string,
  contactPort: number,
  contactHost = '127.0.0.1',
): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, contactHost, () => resolve()));
  const localPort = socket.address().port;
  const uri = `sip:127.0.0.1:${serverPort}`;
  const build = (cseq: number, authorization?: string): SipRequest => {
    const headers = new SipHeaders();
    headers.add('Via', `SIP/2.0/UDP ${contactHost}:${localPort};branch=z9hG4bK-test-${cseq}-${Math.random().toString(36).slice(2)};rport`);
    headers.add('From', `<sip:${number}@127.0.0.1>;tag=reg${number}`);
    headers.add('To', `<sip:${number}@127.0.0.1>`);
    headers.add('Call-ID', `reg-${number}-${localPort}`);
    headers.add('CSeq', `${cseq} REGISTER`);
    headers.add('Contact', `<sip:${number}@${contactHost}:${contactPort}>`);
    headers.add('Expires', '300');
    headers.add('Max-Forwards', '70');
    if (authorization) headers.add('Authorization', authorization);
    return { kind: 'request', method: 'REGISTER', uri, headers, body: Buffer.alloc(0) };
  };
  const exchange = (req: SipRequest) =>
    new Promise<SipResponse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer to REGISTER')), 3000);
      socket.once('message', (data) => {
        clearTimeout(timer);
        const msg = parseMessage(data);
        if (msg?.kind === 'response') resolve(msg);
        else reject(new Error('not a response'));
      });
      socket.send(serializeMessage(req), serverPort, '127.0.0.1');
    });
  try {
    const first = await exchange(build(1));
    if (first.status !== 401) return first.status;
    const challenge = parseAuthHeader(first.headers.get('www-authenticate') ?? '');
    if (!challenge) return 0;
    const second = await exchange(build(2, authorize(challenge, { username: number, password }, 'REGISTER', uri)));
    return second.status;
  } finally {
    socket.close();
  }
}

/** SIPp's arguments for a caller scenario: it calls `callee` as `caller`, answering the digest challenge with `password`. */
export const callerArgs = (callee: string, caller: string, password: string): string[] => [
  '-s',
  callee,
  '-key',
  'caller',
  caller,
  '-au',
  caller,
  '-ap',
  password,
];

/** SIP messages from a socket, handed out in order; a test's phone or peer pushes what it parses. */
export class SipInbox {
  private readonly queue: SipMessage[] = [];
  private waiter: (() => void) | null = null;
  /** Responses already received, when repeats are absorbed (see `absorbRepeatedResponses`). */
  private readonly seen: Set<string> | null;

  /**
   * With `absorbRepeatedResponses`, a response identical in status, Call-ID, CSeq, branch and To tag
   * to one already received is dropped, as a client transaction absorbs a server's retransmission
   * (a 407 sent again before the ACK got there): otherwise, on a slow machine, it is taken for the
   * answer to the next request.
   */
  constructor(opts: { absorbRepeatedResponses?: boolean } = {}) {
    this.seen = opts.absorbRepeatedResponses ? new Set() : null;
  }

  push(msg: SipMessage | null): void {
    if (!msg) return;
    if (this.seen && msg.kind === 'response') {
      const h = msg.headers;
      const key = [msg.status, h.get('call-id'), h.get('cseq'), h.get('via'), tagOf(h.get('to'))].join('|');
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    this.queue.push(msg);
    this.waiter?.();
  }

  /** The next message (100 Trying skipped unless asked for), or an error after `timeoutMs`. */
  async next(timeoutMs = 5000, skipTrying = true): Promise<SipMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const msg = this.queue.shift();
      if (msg && !(skipTrying && msg.kind === 'response' && msg.status === 100)) return msg;
      if (msg) continue;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no SIP message arrived');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async response(timeoutMs = 5000): Promise<SipResponse> {
    const msg = await this.next(timeoutMs);
    if (msg.kind !== 'response') throw new Error(`expected a response, got ${msg.method}`);
    return msg;
  }

  /** The next request, which must be a `method` when one is named. */
  async request(method?: string, timeoutMs = 5000): Promise<SipRequest> {
    const msg = await this.next(timeoutMs);
    if (msg.kind !== 'request' || (method !== undefined && msg.method !== method))
      throw new Error(`expected ${method ?? 'a request'}, got ${msg.kind === 'request' ? msg.method : msg.status}`);
    return msg;
  }
}

/** A bare UDP SIP peer for protocol-level tests: sends messages and hands out what arrives. */
export class UdpPeer {
  private readonly inbox: SipInbox;

  private constructor(
    private readonly socket: dgram.Socket,
    readonly port: number,
    opts: { absorbRepeatedResponses?: boolean },
  ) {
    this.inbox = new SipInbox(opts);
    socket.on('message', (data) => this.inbox.push(parseMessage(data)));
  }

  static async open(opts: { absorbRepeatedResponses?: boolean } = {}): Promise<UdpPeer> {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    return new UdpPeer(socket, socket.address().port, opts);
  }

  send(msg: SipMessage, port: number): void {
    this.socket.send(serializeMessage(msg), port, '127.0.0.1');
  }

  /** The next message (100 Trying skipped unless asked for), or an error after `timeoutMs`. */
  next(timeoutMs = 3000, skipTrying = true): Promise<SipMessage> {
    return this.inbox.next(timeoutMs, skipTrying);
  }

  response(timeoutMs = 3000): Promise<SipResponse> {
    return this.inbox.response(timeoutMs);
  }

  request(timeoutMs = 3000): Promise<SipRequest> {
    return this.inbox.request(undefined, timeoutMs);
  }

  /** Whether nothing arrives for `ms`. */
  async silent(ms: number): Promise<boolean> {
    try {
      await this.next(ms);
      return false;
    } catch {
      return true;
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** A request from a peer at 127.0.0.1:`port` with the usual headers; `extra` adds more. */
export function makeRequest(
  method: string,
  uri: string,
  opts: { port: number; from: string; to: string; callId: string; cseq: number; extra?: Array<[string, string]>; body?: string },
): SipRequest {
  const headers = new SipHeaders();
  headers.add('Via', `SIP/2.0/UDP 127.0.0.1:${opts.port};branch=z9hG4bK-${Math.random().toString(36).slice(2)};rport`);
  headers.add('Max-Forwards', '70');
  headers.add('From', opts.from);
  headers.add('To', opts.to);
  headers.add('Call-ID', opts.callId);
  headers.add('CSeq', `${opts.cseq} ${method}`);
  for (const [name, value] of opts.extra ?? []) headers.add(name, value);
  return { kind: 'request', method, uri, headers, body: Buffer.from(opts.body ?? '') };
}

/**
 * A SIP server on ephemeral loopback ports for a test, with an in-memory directory holding
 * `passwords` (number → SIP password), an observer recording every event, and short timers.
 */
export async function startTestServer(
  passwords: Record<string, string>,
  extra: Partial<SipServerOptions> = {},
): Promise<{ server: SipServer; directory: MemoryDirectory; observer: RecordingObserver }> {
  const directory = new MemoryDirectory();
  for (const [number, password] of Object.entries(passwords)) directory.passwords.set(number, password);
  const observer = new RecordingObserver();
  const server = await startSipServer({
    host: '127.0.0.1',
    udpPort: 0,
    tcpPort: 0,
    wsPort: 0,
    realm: 'atrium.test',
    directory,
    observer,
    log: silentLog,
    timers: { t1Ms: 100 },
    ...extra,
  });
  return { server, directory, observer };
}
