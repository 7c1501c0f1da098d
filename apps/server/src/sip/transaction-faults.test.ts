import { describe, expect, it } from 'vitest';
import { createResponse, type SipMessage } from './message.js';
import { TimerSet } from './server-types.js';
import { makeRequest, silentLog } from './testing.js';
import { TransactionLayer, type TransactionUser } from './transaction.js';
import type { Destination } from './transport.js';

/** A throw in the work behind one transaction ends that transaction: its peer hears 500, the rest goes on. */

const udp: Destination = { transport: 'udp', address: '127.0.0.1', port: 5999 };
const request = (method: string, callId: string) =>
  makeRequest(method, 'sip:201@h', { port: 5999, from: '<sip:101@h>;tag=a', to: '<sip:201@h>', callId, cseq: 1 });

function layerWith(tu: TransactionUser) {
  const sent: SipMessage[] = [];
  const timers = new TimerSet();
  const layer = new TransactionLayer(
    {
      send: (_dest, msg) => {
        sent.push(msg);
        return true;
      },
    },
    timers,
    { t1: 10, t2: 40, t4: 50 },
    'localtag',
    tu,
    silentLog,
  );
  return { layer, sent, timers };
}

const statuses = (sent: SipMessage[]) => sent.map((m) => (m.kind === 'response' ? m.status : m.method));

describe('a transaction whose work throws', () => {
  it('is answered 500 and ended, and the next request is served', () => {
    let calls = 0;
    const { layer, sent, timers } = layerWith({
      onRequest: (req, tx) => {
        calls++;
        if (req.headers.get('call-id') === 'bad') throw new Error('boom');
        tx?.reply(200, 'OK');
      },
      onCancel: () => undefined,
    });
    expect(() => layer.receive(request('OPTIONS', 'bad'), udp)).not.toThrow();
    layer.receive(request('OPTIONS', 'good'), udp);
    expect(statuses(sent)).toEqual([500, 200]);
    expect(calls).toBe(2);
    timers.stop();
  });

  it('that already answered is only ended: no second final response', () => {
    const { layer, sent, timers } = layerWith({
      onRequest: (_req, tx) => {
        tx?.reply(100, 'Trying');
        tx?.reply(486, 'Busy Here');
        throw new Error('after the answer');
      },
      onCancel: () => undefined,
    });
    layer.receive(request('INVITE', 'c1'), udp);
    expect(statuses(sent)).toEqual([100, 486]);
    timers.stop();
  });

  it('that is a CANCEL target fails its INVITE with 500 when the cancel work throws', () => {
    const { layer, sent, timers } = layerWith({
      onRequest: (_req, tx) => tx?.reply(100, 'Trying'),
      onCancel: () => {
        throw new Error('cancel work');
      },
    });
    const invite = request('INVITE', 'c2');
    layer.receive(invite, udp);
    const cancel = request('CANCEL', 'c2');
    cancel.headers.set('Via', invite.headers.get('via') ?? '');
    layer.receive(cancel, udp);
    expect(statuses(sent)).toEqual([100, 200, 500]);
    timers.stop();
  });

  it('that is a response handler ends only its client transaction', () => {
    const { layer, timers } = layerWith({ onRequest: () => undefined, onCancel: () => undefined });
    const req = request('OPTIONS', 'c3');
    layer.sendRequest(req, udp, {
      onResponse: () => {
        throw new Error('handler');
      },
      onFailure: () => undefined,
    });
    expect(layer.size.clients).toBe(1);
    expect(() => layer.receive(createResponse(req, 200, 'OK'), udp)).not.toThrow();
    expect(layer.size.clients).toBe(0);
    timers.stop();
  });
});

describe('a timer whose work throws', () => {
  it('is reported, and later timers still run', async () => {
    const errors: unknown[] = [];
    const timers = new TimerSet((err) => errors.push(err));
    const ran: string[] = [];
    timers.after(1, () => {
      throw new Error('timer');
    });
    timers.after(5, () => ran.push('later'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(errors).toHaveLength(1);
    expect(ran).toEqual(['later']);
    timers.stop();
  });
});
