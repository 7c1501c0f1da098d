// `npm run bench -- sip-fuzz`: the SIP mutation fuzzer (apps/server/src/sip/fuzz.testing.ts) at length
// against the SIP server started on its own with an in-memory directory, as its tests start it. Cases
// are mutated REGISTER, INVITE, ACK, BYE, CANCEL and responses captured from SIPp, and the RFC 4475
// corpus, over UDP, TCP and WebSocket. The server runs in this process so that what would have
// stopped it is counted instead: an uncaught exception is a crash.
// Prints: cases per transport, crashes, unhandled rejections, errors the server caught, malformed
// messages it refused, and whether it still registers and connects a SIPp call afterwards.
// Env: BENCH_SIP_FUZZ_CASES (20,000), BENCH_SIP_FUZZ_SEED (1; each seed gives other cases).
import { stillServes } from '../apps/server/src/sip/edge.testing.js';
import { countingLog, fuzzServer } from '../apps/server/src/sip/fuzz.testing.js';
import { startTestServer } from '../apps/server/src/sip/testing.js';
import { secs } from './lib.js';

const CASES = Number(process.env.BENCH_SIP_FUZZ_CASES ?? 20_000);
const SEED = Number(process.env.BENCH_SIP_FUZZ_SEED ?? 1);

export async function run(): Promise<void> {
  const crashes: unknown[] = [];
  const rejections: unknown[] = [];
  process.on('uncaughtException', (err) => crashes.push(err));
  process.on('unhandledRejection', (err) => rejections.push(err));
  const log = countingLog();
  const { server, directory } = await startTestServer({ '101': 'Panel101', '201': 'Phone201' }, { log });
  const started = Date.now();
  let serves = 'yes';
  try {
    const result = await fuzzServer(server, { cases: CASES, seed: SEED, pace: { every: 20, ms: 2 } });
    const elapsed = Date.now() - started;
    try {
      await stillServes(server, directory, '77');
    } catch (err) {
      serves = `NO: ${(err as Error).message}`;
    }
    const counters = server.counters();
    console.log(`sip-fuzz  seed ${SEED}, ${result.cases} cases in ${secs(elapsed)} (${Math.round(result.cases / (elapsed / 1000))}/s)`);
    console.log(`  sent                   udp ${result.sent.udp}, tcp ${result.sent.tcp}, ws ${result.sent.ws}`);
    console.log(`  crashes                ${crashes.length}`);
    console.log(`  unhandled rejections   ${rejections.length}`);
    console.log(`  errors caught          ${log.errors.length}`);
    console.log(`  malformed refused      ${counters.malformed}`);
    console.log(`  sends refused          ${counters.sendFailures}`);
    console.log(`  streams closed         ${counters.streamsClosed} (reconnected ${result.reconnects})`);
    console.log(`  registers and calls    ${serves}`);
    for (const err of [...crashes, ...rejections, ...log.errors].slice(0, 5)) console.log('  first faults:', err);
  } finally {
    await server.close();
  }
  if (crashes.length + rejections.length + log.errors.length > 0 || serves !== 'yes') process.exitCode = 1;
}
