import { afterEach, describe, expect, it } from 'vitest';
import type { SipMessage, SipRequest } from './message.js';
import { TimerSet } from './server-types.js';
import { makeRequest, silentLog } from './testing.js';
import { type ServerTransaction, TransactionLayer } from './transaction.js';
import type { Destination } from './transport.js';

const T1 = 10;
const udp: Destination = { transport: 'udp', address: '127.0.0.1', port: 5999 };
const timers = new TimerSet();
afterEach(() => timers.stop());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a completed non-INVITE server transaction over UDP', () => {
  it('keeps only its response for Timer J: a retransmission gets it again, later the request is new', async () => {
    const sent: SipMessage[] = [];
    const requests: Array<{ req: SipRequest; tx: ServerTransaction | null }> = [];
    const layer = new TransactionLayer(
      { send: (_dest, msg) => sent.push(msg) > 0 },
      timers,
      { t1: T1, t2: 40, t4: 50 },
      'localtag',
      { onRequest: (req, tx) => requests.push({ req, tx }), onCancel: () => undefined },
      silentLog,
    );
    // The same request each time, as a retransmission carries the same branch.
    const request = makeRequest('REGISTER', 'sip:h', { port: 5999, from: '<sip:201@h>;tag=a', to: '<sip:201@h>', callId: 'r1', cseq: 1 });
    layer.receive(request, udp);
    requests[0]?.tx?.reply(200, 'OK');
    // No transaction (request, timers) is held for the 32 s of Timer J, only the answer.
    expect(layer.size.servers).toBe(0);
    expect(timers.size).toBe(0);
    layer.receive(request, udp);
    expect(requests).toHaveLength(1);
    expect(sent.map((m) => (m.kind === 'response' ? m.status : m.method))).toEqual([200, 200]);
    expect(sent[1]).toBe(sent[0]);
    await sleep(64 * T1 + 20);
    layer.receive(request, udp);
    expect(requests).toHaveLength(2);
  });
});
