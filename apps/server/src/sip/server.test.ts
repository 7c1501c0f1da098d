import { describe, expect, it } from 'vitest';
import { startSipServer } from './server.js';
import { MemoryDirectory, RecordingObserver, registerContact, silentLog } from './testing.js';

/** Many servers start and stop in tests and in the app's lifecycle: nothing may be left behind. */

const handles = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'FSReqCallback');

describe('startSipServer', () => {
  it('binds ephemeral ports and releases every socket and timer on close', async () => {
    const before = handles().length;
    for (let i = 0; i < 5; i++) {
      const directory = new MemoryDirectory();
      directory.passwords.set('201', 'Secret201');
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
      expect(Object.values(server.ports).every((p) => p > 0)).toBe(true);
      expect(await registerContact(server.ports.udp, '201', 'Secret201', 5999)).toBe(200);
      await server.close();
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(handles().length).toBeLessThanOrEqual(before);
  });

  it('releases the ports it bound when another one is taken', async () => {
    const directory = new MemoryDirectory();
    const opts = {
      host: '127.0.0.1',
      udpPort: 0,
      tcpPort: 0,
      wsPort: 0,
      realm: 'r',
      directory,
      observer: new RecordingObserver(),
      log: silentLog,
    };
    const first = await startSipServer(opts);
    const before = handles().length;
    await expect(startSipServer({ ...opts, tcpPort: first.ports.tcp })).rejects.toThrow(/EADDRINUSE/);
    await new Promise((r) => setTimeout(r, 20));
    expect(handles().length).toBeLessThanOrEqual(before);
    await first.close();
  });
});
