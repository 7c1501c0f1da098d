import type { ServerMessage } from '@atrium/contract';
import WebSocket from 'ws';
import type { AppInstance } from '../src/app.js';

/** Starts the app on a free port and answers the base URL of its realtime socket. */
export async function listenForSockets(app: AppInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return `ws://127.0.0.1:${port}`;
}

/** A realtime socket that queues what it receives, so a test can await the next message of a kind. */
export async function connectSocket(base: string, token: string, via: 'query' | 'header' = 'query') {
  const ws =
    via === 'query'
      ? new WebSocket(`${base}/api/v0/ws?access_token=${token}`)
      : new WebSocket(`${base}/api/v0/ws`, { headers: { authorization: `Bearer ${token}` } });
  const inbox: ServerMessage[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (raw) => {
    inbox.push(JSON.parse(raw.toString()));
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  const next = async (pred: (m: ServerMessage) => boolean, ms = 5000): Promise<ServerMessage> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = inbox.findIndex(pred);
      if (i >= 0) return inbox.splice(i, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(inbox)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  const send = (cmd: object) => ws.send(JSON.stringify(cmd));
  /** Subscribes and waits for the server's answer (subscribed, or an error for a refused topic). */
  const subscribe = async (topic: string) => {
    send({ command: 'subscribe', topic });
    return next((m) => m.topic === topic && (m.event === 'subscribed' || m.event === 'error'));
  };
  return { ws, inbox, next, send, subscribe, close: () => ws.close() };
}
