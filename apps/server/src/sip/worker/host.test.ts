// The SIP server in its supervised worker thread (host.ts), on the in-memory directory of
// sip/testing.ts: what the channel carries both ways, and what a slow or failing main thread does.
import { afterEach, describe, expect, it } from 'vitest';
import { threadNames } from '../../core/worker-threads.js';
import type { SipLogger } from '../server-types.js';
import { MemoryDirectory, makeRequest, RecordingObserver, registerContact, silentLog, UdpPeer } from '../testing.js';
import { SpareSipWorkers, type SupervisedSipServer, startSipWorker } from './host.js';

let server: SupervisedSipServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A directory whose credentials never answer for 1999, and throw for 1998. */
class StuckDirectory extends MemoryDirectory {
  banned = new Set<string>();
  override async credentials(number: string): Promise<{ password: string } | null> {
    if (number === '1999') return new Promise(() => undefined);
    if (number === '1998') throw new Error('the database is away');
    return super.credentials(number);
  }
  /** Whether the ban check itself fails, as the main thread's answer does when it comes too late. */
  banCheckFails = false;
  /** While set, the ban check waits for it (a main thread busy elsewhere); how many checks were asked. */
  banGate: Promise<void> | null = null;
  banAsked = 0;
  async refusesRegistration(address: string): Promise<boolean> {
    this.banAsked++;
    if (this.banGate) await this.banGate;
    if (this.banCheckFails) throw new Error('sip directory refusesRegistration: no answer within 300 ms');
    return this.banned.has(address);
  }
}

async function start(
  directory: MemoryDirectory,
  observer = new RecordingObserver(),
  log: SipLogger = silentLog,
  spares?: SpareSipWorkers,
  callTimeoutMs = 300,
) {
  server = await startSipWorker({
    ...(spares ? { spares } : {}),
    host: '127.0.0.1',
    udpPort: 0,
    tcpPort: 0,
    wsPort: 0,
    realm: 'atrium.test',
    directory,
    observer,
    log,
    timers: { t1Ms: 100 },
    callTimeoutMs,
  });
  return server;
}

describe('the SIP server in a worker thread', () => {
  it('a directory call that never answers fails its REGISTER (500), not the worker; one that throws too', async () => {
    const directory = new StuckDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const s = await start(directory);
    const port = s.ports.udp;
    expect(await registerContact(port, '1999', 'Whatever1', 40100)).toBe(500);
    expect(await registerContact(port, '1998', 'Whatever1', 40101)).toBe(500);
    expect(await registerContact(port, '1000', 'Secret1000', 40102)).toBe(200);
    expect(s.crashes).toBe(0);
    expect(s.running).toBe(true);
    // Named, so its CPU can be told from the HTTP thread's (top -H).
    if (process.platform === 'linux') expect([...threadNames().values()]).toContain('atrium-sip');
  });

  it('asks the main thread whether an address is banned (refusesRegistration) for each REGISTER', async () => {
    const directory = new StuckDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const s = await start(directory);
    directory.banned.add('127.0.0.1');
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40103)).toBe(403);
    directory.banned.clear();
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40103)).toBe(200);
  });

  it('serves other requests while a ban check waits for the main thread, and answers the REGISTER once it is answered', async () => {
    const directory = new StuckDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const s = await start(directory, undefined, undefined, undefined, 5000);
    let open: () => void = () => undefined;
    directory.banGate = new Promise<void>((r) => {
      open = r;
    });
    const uri = `sip:127.0.0.1:${s.ports.udp}`;
    const registering = await UdpPeer.open();
    const probing = await UdpPeer.open();
    try {
      registering.send(
        makeRequest('REGISTER', uri, {
          port: registering.port,
          from: '<sip:1000@127.0.0.1>;tag=r1',
          to: '<sip:1000@127.0.0.1>',
          callId: 'register-during-ban-check',
          cseq: 1,
          extra: [['Contact', `<sip:1000@127.0.0.1:${registering.port}>`]],
        }),
        s.ports.udp,
      );
      await expect.poll(() => directory.banAsked).toBe(1);
      // The worker's event loop does not wait for that answer: an OPTIONS is answered meanwhile.
      probing.send(
        makeRequest('OPTIONS', uri, {
          port: probing.port,
          from: '<sip:probe@127.0.0.1>;tag=p1',
          to: '<sip:127.0.0.1>',
          callId: 'options-during-ban-check',
          cseq: 1,
        }),
        s.ports.udp,
      );
      expect((await probing.response(3000)).status).toBe(200);
      // And the REGISTER waits for its check (a check that gave up would have let it on to its challenge).
      expect(await registering.silent(1500)).toBe(true);
      open();
      expect((await registering.response(3000)).status).toBe(401);
    } finally {
      open();
      registering.close();
      probing.close();
    }
  });

  it('a ban check that cannot be answered lets the REGISTER on to its digest: the right password registers, a wrong one is refused', async () => {
    const directory = new StuckDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const s = await start(directory);
    directory.banCheckFails = true;
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40110)).toBe(200);
    expect(await registerContact(s.ports.udp, '1000', 'Wrong-password', 40111)).toBe(403);
    expect(s.crashes).toBe(0);
  });

  it('mirrors registrations from the observer events, and hands every one to the observer', async () => {
    const directory = new MemoryDirectory();
    directory.passwords.set('1000', 'Secret1000');
    directory.passwords.set('1001', 'Secret1001');
    const observer = new RecordingObserver();
    const s = await start(directory, observer);
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40104)).toBe(200);
    expect(await registerContact(s.ports.udp, '1001', 'Secret1001', 40105)).toBe(200);
    expect(s.contacts('1000')).toMatchObject([{ number: '1000', uri: 'sip:1000@127.0.0.1:40104', transport: 'udp' }]);
    expect(s.registrationCount()).toBe(2);
    expect(observer.registrations.map((r) => [r.contact.number, r.change])).toEqual([
      ['1000', 'added'],
      ['1001', 'added'],
    ]);
  });

  it('after a crash: the same ports, the UDP contacts kept (no new observer event), and the crash logged', async () => {
    const directory = new MemoryDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const errors: string[] = [];
    const log = { ...silentLog, error: (_obj: object, msg?: string) => void errors.push(msg ?? '') };
    const observer = new RecordingObserver();
    const s = await start(directory, observer, log);
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40106)).toBe(200);
    const ports = { ...s.ports };
    const first = s.worker;
    s.crashForTest('throw', 'boom');
    await expect.poll(() => s.crashes, { timeout: 3000 }).toBe(1);
    await s.whenRunning();
    expect(s.worker).not.toBe(first);
    expect(s.ports).toEqual(ports);
    expect(errors).toContain('sip worker died; starting it again');
    expect(s.contacts('1000')).toHaveLength(1);
    expect(observer.registrations).toHaveLength(1);
    // The new worker knows the contact: a refresh from the same phone is 'refreshed', not 'added'.
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40106)).toBe(200);
    expect(observer.registrations.map((r) => r.change)).toEqual(['added', 'refreshed']);
  });

  it('out of memory: the heap limit ends the worker alone, which is started again', async () => {
    const directory = new MemoryDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const errors: Array<{ obj: object; msg?: string }> = [];
    const log = { ...silentLog, error: (obj: object, msg?: string) => void errors.push({ obj, msg }) };
    const spares = new SpareSipWorkers({ maxOldGenerationSizeMb: 128 });
    try {
      const s = await start(directory, new RecordingObserver(), log, spares);
      expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40107)).toBe(200);
      s.crashForTest('oom');
      await expect.poll(() => s.crashes, { timeout: 20_000 }).toBe(1);
      await s.whenRunning();
      expect(errors.map((e) => (e.obj as { err?: { code?: string } }).err?.code)).toContain('ERR_WORKER_OUT_OF_MEMORY');
      expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40107)).toBe(200);
    } finally {
      await server?.close();
      server = null;
      await spares.close();
    }
  }, 40_000);
});
