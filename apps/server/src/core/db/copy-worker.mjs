// @ts-check
// The COPY writer's thread (copy-writer.ts): one PostgreSQL connection of its own that runs the
// COPY … FROM STDIN statements it is handed, one after the other in the order they came, and says
// how each went. It lives on its own event loop so that a COPY's round trips never wait behind the
// main thread's device traffic: under a flood of events one turn of the main loop can last a second.
// Plain JavaScript, so that it starts the same under tsx, vitest and node.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';

/** @typedef {{ id: number; statement: string; text: string }} CopyJob */

const port = parentPort;
if (!port) throw new Error('copy-worker.mjs runs as a worker thread');

/** @type {{ url: string; statementTimeoutMs: number; connectTimeoutMs: number }} */
const options = workerData;

/** @type {pg.Client | null} */
let client = null;

/** The connection, opened again after it was lost (a database restart). */
async function connection() {
  if (client) return client;
  const c = new pg.Client({
    connectionString: options.url,
    statement_timeout: options.statementTimeoutMs,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: 'atrium-copy',
  });
  c.on('error', () => {
    if (client === c) client = null;
  });
  await c.connect();
  client = c;
  return c;
}

/**
 * @param {string} statement
 * @param {string} text
 */
async function run(statement, text) {
  const c = await connection();
  try {
    await new Promise((resolve, reject) => {
      const stream = c.query(copyFromStdin(statement));
      stream.on('finish', () => resolve(undefined));
      stream.on('error', reject);
      stream.end(text);
    });
  } catch (e) {
    // A COPY that failed half-way leaves the connection in an unknown state: the next job opens another.
    if (client === c) client = null;
    await c.end().catch(() => undefined);
    throw e;
  }
}

/** @type {CopyJob[]} */
const queue = [];
let running = false;

/**
 * Runs what is queued, in order. Jobs queued behind one another for the same statement go in as one
 * COPY (a flood's batches grow while the database is busy, as they would in one thread), and each is
 * answered with that COPY's outcome.
 */
async function drain() {
  if (running) return;
  running = true;
  while (queue.length) {
    const first = /** @type {CopyJob} */ (queue.shift());
    const jobs = [first];
    while (queue.length && queue[0]?.statement === first.statement && jobs.length < 100) jobs.push(/** @type {CopyJob} */ (queue.shift()));
    try {
      await run(first.statement, jobs.length === 1 ? first.text : jobs.map((j) => j.text).join(''));
      for (const j of jobs) port?.postMessage({ id: j.id, ok: true });
    } catch (e) {
      const err = /** @type {Error & { code?: string }} */ (e);
      for (const j of jobs) port?.postMessage({ id: j.id, ok: false, message: err.message, code: err.code });
    }
  }
  running = false;
}

port.on('message', (/** @type {CopyJob} */ job) => {
  queue.push(job);
  void drain();
});
