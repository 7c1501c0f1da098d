// The SIP server in its supervised worker thread (host.ts), on the in-memory directory of
// sip/testing.ts: what the channel carries both ways, and what a slow or failing main thread does.
import { afterEach, describe, expect, it } from 'vitest';
import type { SipLogger } from '../server-types.js';
import { MemoryDirectory, RecordingObserver, registerContact, silentLog } from '../testing.js';
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
  refusesRegistration(address: string): boolean {
    if (this.banCheckFails) throw new Error('sip directory refusesRegistration: no answer within 1000 ms');
    return this.banned.has(address);
  }
}

async function start(directory: MemoryDirectory, observer = new RecordingObserver(), log: SipLogger = silentLog, spares?: SpareSipWorkers) {
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
    callTimeoutMs: 300,
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
  });

  it('answers synchronous directory calls (refusesRegistration) in the worker at once', async () => {
    const directory = new StuckDirectory();
    directory.passwords.set('1000', 'Secret1000');
    const s = await start(directory);
    directory.banned.add('127.0.0.1');
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40103)).toBe(403);
    directory.banned.clear();
    expect(await registerContact(s.ports.udp, '1000', 'Secret1000', 40103)).toBe(200);
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
