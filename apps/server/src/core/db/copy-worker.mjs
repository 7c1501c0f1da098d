// @ts-check
// The COPY writer's thread (copy-writer.ts): one PostgreSQL connection of its own that runs the
// COPY … FROM STDIN statements it is handed, one after the other in the order they came, and says
// how each went. It lives on its own event loop so that a COPY's round trips never wait behind the
// main thread's device traffic: under a flood of events one turn of the main loop can last a second.
// Plain JavaScript, so that it starts the same under tsx, vitest and node.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';

/** @typedef {{ before: string[]; after: string[] }} Around */
/** @typedef {{ id: number; statement: string; text: string; around?: Around }} CopyJob */

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
 * The COPY alone, or with `around`'s statements before and after it in one transaction (a COPY into
 * a staging table and the statement that moves its rows on commit together or not at all).
 * @param {string} statement
 * @param {string} text
 * @param {Around | undefined} around
 */
async function run(statement, text, around) {
  const c = await connection();
  try {
    if (around) {
      await c.query('BEGIN');
      for (const s of around.before) await c.query(s);
    }
    await new Promise((resolve, reject) => {
      const stream = c.query(copyFromStdin(statement));
      stream.on('finish', () => resolve(undefined));
      stream.on('error', reject);
      stream.end(text);
    });
    if (around) {
      for (const s of around.after) await c.query(s);
      await c.query('COMMIT');
    }
  } catch (e) {
    // A COPY (or its transaction) that failed half-way leaves the connection in an unknown state: the
    // next job opens another, and the transaction dies with this one.
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
    const same = (/** @type {CopyJob | undefined} */ j) =>
      j !== undefined && j.statement === first.statement && JSON.stringify(j.around) === JSON.stringify(first.around);
    while (queue.length && same(queue[0]) && jobs.length < 100) jobs.push(/** @type {CopyJob} */ (queue.shift()));
    try {
      await run(first.statement, jobs.length === 1 ? first.text : jobs.map((j) => j.text).join(''), first.around);
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
