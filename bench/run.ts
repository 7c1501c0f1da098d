// `npm run bench -- <name>`: runs one benchmark (or all) and prints its figures with a same-run baseline.
const which = process.argv[2] ?? 'api';
const known: Record<string, () => Promise<unknown>> = {
  api: () => import('./api.js').then((m) => m.run()),
  users: () => import('./users.js').then((m) => m.run()),
  lists: () => import('./lists.js').then((m) => m.run()),
  devices: () => import('./devices.js').then((m) => m.run()),
  'devices-outage': () => import('./devices-outage.js').then((m) => m.run()),
  cluster: () => import('./cluster.js').then((m) => m.run()),
  access: () => import('./access.js').then((m) => m.run()),
  sip: () => import('./sip.js').then((m) => m.run()),
  'sip-fuzz': () => import('./sip-fuzz.js').then((m) => m.run()),
  comms: () => import('./comms.js').then((m) => m.run()),
  lighthouse: () => import('./lighthouse.js').then((m) => m.run()),
};
const job = known[which];
if (!job) {
  console.error(`unknown benchmark "${which}"; choose one of: ${Object.keys(known).join(', ')}`);
  process.exit(2);
}
await job();
process.exit(process.exitCode ?? 0);

export {};
