import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startSipServer } from './server.js';
import { MemoryDirectory, RecordingObserver, silentLog } from './testing.js';
import { UDP_RECEIVE_BUFFER } from './transport.js';

/** The kernel's cap on a socket's receive buffer; a larger one asked for is cut to it. */
const rmemMax = () => {
  try {
    return Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
  } catch {
    return 0;
  }
};

class CountingDirectory extends MemoryDirectory {
  asked = 0;
  override async credentials(number: string) {
    this.asked++;
    return super.credentials(number);
  }
}

const SENT = 1500;

describe('SIP over UDP', () => {
  // Where the kernel keeps receive buffers at its default size, the server cannot get a larger one.
  it.skipIf(rmemMax() < UDP_RECEIVE_BUFFER)('reads every datagram that arrived while its event loop was held', async () => {
    const directory = new CountingDirectory();
    const server = await startSipServer({
      host: '127.0.0.1',
      udpPort: 0,
      tcpPort: 0,
      wsPort: 0,
      realm: 'atrium.test',
      directory,
      observer: new RecordingObserver(),
      log: silentLog,
    });
    try {
      // Another process sends 1,500 REGISTERs while this one's loop is held (execFileSync), as a
      // long collection or a busy machine would hold it: they wait in the socket's receive buffer.
      const script = `
        const s = require('node:dgram').createSocket('udp4');
        let left = ${SENT};
        for (let i = 0; i < ${SENT}; i++) {
          const m = ['REGISTER sip:127.0.0.1 SIP/2.0',
            'Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bK-buf-' + i + ';rport',
            'From: <sip:201@127.0.0.1>;tag=t' + i, 'To: <sip:201@127.0.0.1>', 'Call-ID: buf-' + i + '@127.0.0.1',
            'CSeq: 1 REGISTER', 'Contact: <sip:201@127.0.0.1:9>', 'Expires: 3600', 'Max-Forwards: 70',
            'User-Agent: udp-buffer-test', 'Content-Length: 0', '', ''].join('\\r\\n');
          s.send(m, ${server.ports.udp}, '127.0.0.1', () => { if (--left === 0) s.close(); });
        }`;
      execFileSync(process.execPath, ['-e', script]);
      const end = Date.now() + 10_000;
      while (directory.asked < SENT && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(directory.asked).toBe(SENT);
    } finally {
      await server.close();
    }
  });
});
