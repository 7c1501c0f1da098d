// `npm run device-sim -- …`: simulated devices speaking Atrium's device protocol, from the command line.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DEVICE_TYPES, type DeviceTopicLeaf, type DeviceType } from '@atrium/contract';
import type { SimDevice } from './device.js';
import { Fleet, type FleetDevice, generateDevices } from './fleet.js';
import { type ApiAccess, initThroughApi, newDevicePassword } from './init.js';

const HELP = `Usage: npm run device-sim -- [options]

Devices (any mix of):
  --device SERIAL:PASSWORD[:TYPE[:MODEL]]   one device (repeat for more); with --api the password
                                            may be left empty (SERIAL or SERIAL::TYPE) and is made up
  --devices FILE.json                       [{ "serial", "password", "type"?, "model"? }, …]
  --count N --password PW [--types t1,t2] [--prefix SIM]
                                            N devices of each type (${DEVICE_TYPES.join(', ')})

Initialisation:
  A device signs in with the password it was initialised with. Started before an installer
  initialises it, it is refused and tries again (1 s, 2 s, 4 s … up to --retry-max) until it is
  initialised with its password: start the simulator first, then press Initialise in the console
  and type the same password.
  --api http://127.0.0.1:8080 --api-key atr_…
                                            initialise each device through Atrium's API (as the
                                            console's Initialise does) with its password, then sign
                                            in; the key's role needs to view and initialise devices
  --retry-max SECONDS                       the longest pause between attempts (30)
  --once                                    a refused device is reported and not tried again

Broker and behaviour:
  --url mqtt://127.0.0.1:1883               the broker (embedded Atrium broker by default)
  --mqtt5                                   speak MQTT 5 instead of 3.1.1
  --lean                                    the lean MQTT client (mqtt:// only): far less CPU per message
                                            than mqtt.js, for large fleets and floods
  --heartbeat SECONDS                       heartbeat period until settings change it (30)
  --delay MS | MIN-MAX                      how long each task takes (200)
  --failure-rate 0..1                       share of tasks that fail (0)
  --offline-every SECONDS --offline-for SECONDS
                                            each device drops off now and then (last will) and comes back
  --discovery 127.0.0.10:8090               answer IP search, one address per device from this one on

Misbehaviour (once every device is online):
  --misbehave malformed|invalid|oversized|foreign-topic|wrong-password|replay|flood[=N]  (repeatable)

While running, type on stdin:
  present SERIAL IDENTIFIER [LOCK] [KIND]
                                     an identifier is presented at the reader (decided from synced data);
                                     KIND (card, access_code, qr, …) is what the reader took it for
  call SERIAL TO                     a visitor calls
  face SERIAL IDENTIFIER_ID|none     a holder's face in front of the camera (none: nobody); an open_lock
                                     asking for a face opens only while that face is shown
  alarm SERIAL on|off [KIND] [ZONE]  an alarm goes on or off (kind: device, sensor, group, fire, …;
                                     off without kind and zone clears every alarm of the device)
  tamper SERIAL [PART]               the casing is opened
  event SERIAL TYPE [JSON-DATA]      any event (door_opened, alarm_on, alarm_off, tamper, sensor, …)
  offline SERIAL SECONDS             an offline period
  status                             who is online, tasks done, identifiers held
  quit                               stop (devices say they go offline)
`;

function fail(message: string): never {
  console.error(`device-sim: ${message}\n\n${HELP}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'mqtt://127.0.0.1:1883' },
    device: { type: 'string', multiple: true },
    devices: { type: 'string' },
    count: { type: 'string' },
    password: { type: 'string' },
    types: { type: 'string' },
    prefix: { type: 'string', default: 'SIM' },
    mqtt5: { type: 'boolean', default: false },
    lean: { type: 'boolean', default: false },
    heartbeat: { type: 'string' },
    delay: { type: 'string', default: '200' },
    'failure-rate': { type: 'string', default: '0' },
    'offline-every': { type: 'string' },
    'offline-for': { type: 'string', default: '10' },
    discovery: { type: 'string' },
    misbehave: { type: 'string', multiple: true },
    api: { type: 'string' },
    'api-key': { type: 'string' },
    'retry-max': { type: 'string', default: '30' },
    once: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

const isType = (t: string): t is DeviceType => (DEVICE_TYPES as readonly string[]).includes(t);
const devices: FleetDevice[] = [];
for (const spec of values.device ?? []) {
  const [serial, given, type, model] = spec.split(':');
  const password = given || (values.api ? newDevicePassword() : '');
  if (!serial || !password) fail(`--device ${spec}: give SERIAL:PASSWORD (or --api to initialise it)`);
  if (type && !isType(type)) fail(`--device ${spec}: unknown type ${type}`);
  devices.push({ serial, password, ...(type ? { type: type as DeviceType } : {}), ...(model ? { model } : {}) });
}
if (values.devices) {
  const list = JSON.parse(readFileSync(values.devices, 'utf8')) as FleetDevice[];
  if (!Array.isArray(list)) fail(`${values.devices} must hold a JSON array`);
  devices.push(...list);
}
if (values.count) {
  if (!values.password) fail('--count needs --password');
  const types = (values.types?.split(',') ?? [...DEVICE_TYPES]).map((t) => (isType(t) ? t : fail(`unknown type ${t}`)));
  devices.push(...generateDevices(Number(values.count), values.password, { prefix: values.prefix, types }));
}
if (!devices.length) fail('no devices given');
if (values.api && !values['api-key']) fail('--api needs --api-key');
const api: ApiAccess | null = values.api ? { url: values.api, apiKey: values['api-key'] as string } : null;
if (api) {
  for (const d of devices) {
    try {
      d.password = await initThroughApi(api, d.serial, d.password);
      console.log(`${d.serial}: initialised through ${api.url}`);
    } catch (e) {
      fail(`${d.serial}: ${(e as Error).message}`);
    }
  }
}

const delay = values.delay.includes('-') ? (values.delay.split('-').map(Number) as [number, number]) : Number(values.delay);
let discovery: { firstIp: string; port: number } | undefined;
if (values.discovery) {
  const [firstIp, port] = values.discovery.split(':');
  if (!firstIp || !port) fail('--discovery IP:PORT');
  discovery = { firstIp, port: Number(port) };
}

const fleet = new Fleet({
  url: values.url,
  devices,
  taskDelayMs: delay,
  failureRate: Number(values['failure-rate']),
  protocolVersion: values.mqtt5 ? 5 : 4,
  client: values.lean ? 'lean' : 'mqtt.js',
  ...(values.heartbeat ? { heartbeatSeconds: Number(values.heartbeat) } : {}),
  ...(discovery ? { discovery } : {}),
  waitForInit: !values.once,
  maxRetryDelayMs: Number(values['retry-max']) * 1000,
  log: (line) => console.log(line),
});
for (const d of fleet.devices) {
  d.on('task', (t: { id: number; type: string }) => console.log(`${d.serial}: task ${t.id} ${t.type}`));
  d.on('task-done', (u: { task_id: number; state: string; error?: string }) =>
    console.log(`${d.serial}: task ${u.task_id} ${u.state}${u.error ? ` (${u.error})` : ''}`),
  );
}

const refused = await fleet.start();
for (const r of refused) console.log(`${r.serial}: did not come online (${r.error})`);
const waiting = fleet.waitingSerials.size;
console.log(
  `${fleet.devices.length - refused.length - waiting} of ${fleet.devices.length} devices online at ${values.url}${
    waiting ? `; ${waiting} waiting to be initialised` : ''
  }`,
);

const online = () => fleet.devices.filter((d) => d.connected);
for (const m of values.misbehave ?? []) {
  const [what, arg] = m.split('=');
  const [first, second] = online();
  if (!first) break;
  switch (what) {
    case 'malformed':
      await first.sendMalformed();
      break;
    case 'invalid':
      await first.sendInvalid();
      break;
    case 'oversized':
      await first.sendOversized();
      break;
    case 'foreign-topic':
      await first.publishAs(second?.serial ?? 'SOMEONE-ELSE', 'events', { type: 'tamper', data: {} });
      break;
    case 'wrong-password':
      console.log(`${first.serial}: wrong password ${(await first.signInWithWrongPassword()) ? 'refused' : 'ACCEPTED'}`);
      break;
    case 'replay':
      console.log(`${first.serial}: replayed ${await first.replayResults()} task results`);
      break;
    case 'flood':
      console.log(`${first.serial}: flooded ${await first.flood(Number(arg ?? 10_000))} events`);
      break;
    default:
      fail(`unknown misbehaviour ${what}`);
  }
  console.log(`${first.serial}: misbehaved (${m})`);
}

if (values['offline-every']) {
  const every = Number(values['offline-every']) * 1000;
  const away = Number(values['offline-for']) * 1000;
  setInterval(() => {
    const d = online()[Math.floor(Math.random() * online().length)];
    if (d) {
      console.log(`${d.serial}: offline for ${away / 1000} s`);
      void d.goOffline(away);
    }
  }, every);
}

const find = (serial: string | undefined): SimDevice | undefined => {
  const d = serial ? fleet.get(serial) : undefined;
  if (!d) console.log(`no device ${serial}`);
  return d;
};

const quit = async () => {
  await fleet.stop();
  process.exit(0);
};
process.once('SIGINT', () => void quit());
process.once('SIGTERM', () => void quit());

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const [cmd, ...args] = line.trim().split(/\s+/);
  void (async () => {
    switch (cmd) {
      case 'present': {
        const d = find(args[0]);
        if (d && args[1]) {
          const r = await d.present(args[1], { lock: Number(args[2] ?? 1), ...(args[3] ? { kind: args[3] } : {}) });
          console.log(`${d.serial}: ${args[1]} ${r.granted ? 'granted' : `denied (${r.reason})`}`);
        }
        return;
      }
      case 'call': {
        const d = find(args[0]);
        if (d && args[1]) await d.call(args[1]);
        return;
      }
      case 'face': {
        const d = find(args[0]);
        if (!d) return;
        const who = args[1];
        if (who === 'none') d.showFace(null);
        else if (who && /^[1-9]\d*$/.test(who)) d.showFace(Number(who));
        else {
          console.log('face SERIAL IDENTIFIER_ID|none');
          return;
        }
        console.log(`${d.serial}: faces ${d.faces.size ? [...d.faces].join(', ') : 'none'}`);
        return;
      }
      case 'event': {
        const d = find(args[0]);
        if (d && args[1])
          await d.sendRaw('events' satisfies DeviceTopicLeaf, JSON.stringify({ type: args[1], data: JSON.parse(args[2] ?? '{}') }));
        return;
      }
      case 'alarm': {
        const d = find(args[0]);
        if (!d) return;
        const [, state, kind, zone] = args;
        if (state !== 'on' && state !== 'off') {
          console.log('alarm SERIAL on|off [KIND] [ZONE]');
          return;
        }
        const alarm = { ...(kind ? { kind } : {}), ...(zone ? { zone } : {}) };
        await (state === 'on' ? d.alarmOn(alarm) : d.alarmOff(alarm));
        console.log(`${d.serial}: alarm ${state}${kind ? ` ${kind}` : ''}${zone ? ` ${zone}` : ''}`);
        return;
      }
      case 'tamper': {
        const d = find(args[0]);
        if (d) await d.tamper(args[1]);
        return;
      }
      case 'offline': {
        const d = find(args[0]);
        if (d) await d.goOffline(Number(args[1] ?? 10) * 1000);
        return;
      }
      case 'status':
        for (const d of fleet.devices) {
          console.log(
            `${d.serial} ${d.type}/${d.model} ${d.connected ? 'online' : 'offline'} tasks=${d.results.size} identifiers=${d.synced.identifiers.size}`,
          );
        }
        return;
      case 'quit':
      case 'exit':
        await quit();
        return;
      case '':
      case undefined:
        return;
      default:
        console.log(`unknown command ${cmd} (present, call, face, alarm, tamper, event, offline, status, quit)`);
    }
  })().catch((e: Error) => console.log(`error: ${e.message}`));
});
