// `npm run device-sim -- …`: the simulator's command line against a real broker and gateway.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventReport, PresenceReport } from '../../modules/devices/devices.gateway.js';
import { MqttGateway } from './gateway.js';
import { embeddedTestBroker, type TestBroker } from './test-brokers.js';

const CLI = path.resolve(import.meta.dirname, '../../../../../tools/device-sim/src/cli.ts');

/** The command line in a child process: its stdin, all it printed so far, and its exit code once it ends. */
function startCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const collect = (d: Buffer) => {
    out += String(d);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  return { stdin: child.stdin, output: () => out, exited };
}

let broker: TestBroker;
let gateway: MqttGateway;
const presence: { serial: string; report: PresenceReport }[] = [];
const events: { serial: string; report: EventReport }[] = [];
const updates: { serial: string; state: string }[] = [];

beforeAll(async () => {
  broker = await embeddedTestBroker();
  gateway = await MqttGateway.connect({
    url: broker.url,
    ...broker.server,
    handlers: {
      onPresence: async (serial, report) => {
        presence.push({ serial, report });
      },
      onEvent: async (serial, report) => {
        events.push({ serial, report });
      },
      onTaskUpdate: async (serial, report) => {
        updates.push({ serial, state: report.state });
      },
      onSyncAck: async () => undefined,
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await broker?.close();
});

describe('device-sim command line', () => {
  it('brings devices online, takes commands on stdin, and says goodbye with offline on quit', async () => {
    await broker.addDevice('CLI-1', 'cli-one-password');
    const cli = startCli([
      '--url',
      broker.url,
      '--device',
      'CLI-1:cli-one-password:barrier',
      '--device',
      'CLI-2:wrong-password',
      '--delay',
      '5',
    ]);
    await expect.poll(() => cli.output(), { timeout: 20_000 }).toContain('1 of 2 devices online');
    expect(cli.output()).toContain('CLI-2: refused by the broker');
    expect(presence.find((p) => p.serial === 'CLI-1')?.report).toMatchObject({ online: true, model: 'BR-1' });

    await gateway.sendTask('CLI-1', { id: 1, type: 'open_lock', payload: {} });
    await expect.poll(() => cli.output()).toContain('CLI-1: task 1 completed');
    cli.stdin.write('present CLI-1 CARD-9\n');
    await expect.poll(() => cli.output()).toContain('CLI-1: CARD-9 denied (unknown)');
    cli.stdin.write('call CLI-1 101\n');
    await expect.poll(() => events.map((e) => e.report.type)).toEqual(['door_opened', 'access_denied', 'call']);
    // Alarms (issue 13): on with a kind and a zone, a tamper, and off for the whole device.
    cli.stdin.write('alarm CLI-1 on fire entrance\ntamper CLI-1 cover\nalarm CLI-1 off\n');
    await expect.poll(() => events.slice(3).map((e) => e.report.type)).toEqual(['alarm_on', 'tamper', 'alarm_off']);
    expect(events.slice(3).map((e) => e.report.data)).toEqual([
      expect.objectContaining({ kind: 'fire', zone: 'entrance' }),
      expect.objectContaining({ part: 'cover' }),
      expect.not.objectContaining({ kind: expect.anything() }),
    ]);
    cli.stdin.write('status\n');
    await expect.poll(() => cli.output()).toMatch(/CLI-1 barrier\/BR-1 online tasks=1/);
    // Face ID: an open_lock asking for a face fails while nobody (or someone else) is in front of the camera.
    const face = { identifier_id: 7, photo_url: 'http://127.0.0.1/api/v0/files/identifiers/x.jpg' };
    await gateway.sendTask('CLI-1', { id: 2, type: 'open_lock', payload: { lock: 1, face } });
    await expect.poll(() => cli.output()).toContain('CLI-1: task 2 error (face_not_recognized)');
    cli.stdin.write('face CLI-1 8\n');
    await expect.poll(() => cli.output()).toContain('CLI-1: faces 8');
    await gateway.sendTask('CLI-1', { id: 3, type: 'open_lock', payload: { lock: 1, face } });
    await expect.poll(() => cli.output()).toContain('CLI-1: task 3 error (face_not_recognized)');
    cli.stdin.write('face CLI-1 7\n');
    await expect.poll(() => cli.output()).toContain('CLI-1: faces 8, 7');
    await gateway.sendTask('CLI-1', { id: 4, type: 'open_lock', payload: { lock: 1, face } });
    await expect.poll(() => cli.output()).toContain('CLI-1: task 4 completed');
    cli.stdin.write('face CLI-1 none\n');
    await expect.poll(() => cli.output()).toContain('CLI-1: faces none');
    await expect.poll(() => events.filter((e) => e.report.type === 'door_opened').length).toBe(2);
    cli.stdin.write('quit\n');
    expect(await cli.exited).toBe(0);
    await expect.poll(() => presence.filter((p) => p.serial === 'CLI-1').map((p) => p.report.online)).toEqual([true, false]);
  }, 40_000);

  it('runs devices on the lean client (--lean): refused with the reason, online, a flood delivered in order', async () => {
    await broker.addDevice('CLI-LEAN', 'cli-lean-password');
    const cli = startCli([
      '--lean',
      '--url',
      broker.url,
      '--device',
      'CLI-LEAN:cli-lean-password',
      '--device',
      'CLI-LEAN-2:wrong-password',
      '--misbehave',
      'flood=2000',
    ]);
    await expect.poll(() => cli.output(), { timeout: 20_000 }).toContain('CLI-LEAN: flooded 2001 events');
    expect(cli.output()).toMatch(/CLI-LEAN-2: refused by the broker \(Connection refused: (Bad username or password|Not authorized)\)/);
    expect(cli.output()).toContain('1 of 2 devices online');
    // QoS 0 over a local TCP connection: every one arrives, in order, the closing tamper last.
    await expect.poll(() => events.filter((e) => e.serial === 'CLI-LEAN').length, { timeout: 10_000 }).toBe(2001);
    const mine = events.filter((e) => e.serial === 'CLI-LEAN').map((e) => e.report);
    expect(mine.slice(0, 2000).map((e) => e.data?.value)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(mine[2000]?.type).toBe('tamper');
    cli.stdin.write('quit\n');
    expect(await cli.exited).toBe(0);
    await expect.poll(() => presence.filter((p) => p.serial === 'CLI-LEAN').map((p) => p.report.online)).toEqual([true, false]);
  }, 40_000);

  it('explains itself and refuses bad arguments', async () => {
    const run = async (args: string[]) => {
      const cli = startCli(args);
      cli.stdin.end();
      return { code: await cli.exited, out: cli.output() };
    };
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--misbehave');
    expect(help.out).toContain('face SERIAL IDENTIFIER_ID|none');
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.out).toContain('no devices given');
    expect((await run(['--device', 'X:pw:toaster'])).out).toContain('unknown type toaster');
  }, 40_000);
});
