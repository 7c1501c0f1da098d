/**
 * The SIP worker thread (host.ts starts it through entry.mjs): one SIP server on its own event loop,
 * whose directory and observer are stand-ins that forward every call to the main thread. It loads
 * its code, then waits for its start message: the supervisor keeps one waiting so that a worker
 * replacing a dead one serves at once instead of after a second or two of loading TypeScript.
 */
import { parentPort } from 'node:worker_threads';
import { answerControl, forwardingLog, nameThisThread, PendingCalls } from '../../core/worker-threads.js';
import { type SipServer, startSipServer } from '../server.js';
import type { SipLogger } from '../server-types.js';
import type { SipCallObserver, SipDirectory } from '../types.js';
import { type FromWorker, type SipWorkerData, type ToWorker, toWireError } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('thread.ts runs as a worker thread');
/** Set by the start message; nothing below runs before it. */
let data = null as unknown as SipWorkerData;
const send = (msg: FromWorker) => port.postMessage(msg);

const pending = new PendingCalls();

// A main thread that does not answer fails this one SIP transaction (the server answers 500), not the worker.
function callAsync(method: string, args: unknown[]): Promise<unknown> {
  return pending.add(`sip directory ${method}`, data.callTimeoutMs, (id) => send({ type: 'call', id, method, args }));
}

// The proxy's list of calls changes with its events: the main thread's copy (the console's status)
// is sent once the event's turn is over, and checked every half second for changes without one.
let server: SipServer | null = null;
let lastCalls = '[]';
let callsQueued = false;
const sendCalls = () => {
  callsQueued = false;
  if (!server) return;
  const calls = server.activeCalls();
  const text = JSON.stringify(calls);
  if (text === lastCalls) return;
  lastCalls = text;
  send({ type: 'calls', calls });
};
// The edge's counters (malformed messages, refused sends) reach the main thread's copy each second they change.
let lastCounters = '';
const sendCounters = () => {
  if (!server) return;
  const counters = server.counters();
  const text = JSON.stringify(counters);
  if (text === lastCounters) return;
  lastCounters = text;
  send({ type: 'counters', counters });
};
const callsChanged = () => {
  if (callsQueued) return;
  callsQueued = true;
  setImmediate(sendCalls);
};
const observer = new Proxy({} as Record<string, unknown>, {
  get: (_target, method) =>
    typeof method !== 'string' || method === 'then'
      ? undefined
      : (...args: unknown[]) => {
          send({ type: 'notify', method, args });
          callsChanged();
        },
});

let levels = new Set<string>();
const log: SipLogger = forwardingLog(send, () => levels);

let started: Promise<SipServer> | null = null;

function start(given: SipWorkerData): void {
  data = given;
  nameThisThread('atrium-sip');
  levels = new Set(data.logLevels);
  const directory: Record<string, (...args: unknown[]) => unknown> = {};
  for (const method of data.directoryMethods) directory[method] = (...args) => callAsync(method, args);
  started = startSipServer({
    ...data.options,
    directory: directory as unknown as SipDirectory,
    observer: observer as unknown as SipCallObserver,
    log,
  });
  started.then(
    (s) => {
      server = s;
      setInterval(sendCalls, 500).unref();
      setInterval(sendCounters, 1000).unref();
      send({ type: 'ready', ports: s.ports, network: s.network });
    },
    (e: unknown) => send({ type: 'failed', error: toWireError(e) }),
  );
}

async function control(method: string, args: unknown[]): Promise<unknown> {
  if (!started) throw new Error('sip worker: control before start');
  const s = await started;
  switch (method) {
    case 'endCall': {
      const ended = await s.endCall(String(args[0]));
      sendCalls();
      return ended;
    }
    case 'configure':
      s.configure(args[0] as Parameters<SipServer['configure']>[0]);
      return s.network;
    case 'close':
      await s.close();
      return undefined;
    default:
      throw new Error(`unknown sip worker control ${method}`);
  }
}

port.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'answer':
      pending.answered(msg);
      return;
    case 'control':
      answerControl(send, msg.id, () => control(msg.method, msg.args));
      return;
    case 'start':
      if (started) throw new Error('sip worker: started twice');
      start(msg.data);
      return;
    case 'crash':
      setImmediate(() => {
        if (msg.how === 'throw') throw new Error(msg.message);
        const hog: number[][] = [];
        for (;;) hog.push(new Array(1 << 20).fill(hog.length));
      });
      return;
  }
});

send({ type: 'loaded' });
