import dgram from 'node:dgram';
import net from 'node:net';

/** Resolves true when nothing listens on TCP host:port. */
export function tcpPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.once('listening', () => srv.close(() => resolve(true)));
    srv.listen(port, host);
  });
}

/** Resolves true when nothing holds UDP host:port. */
export function udpPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    sock.once('error', () => resolve(false));
    sock.bind(port, host, () => sock.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 now (the system's choice): for tests and benches that start servers of their own. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
