// Loaded into the benchmarked server (node --import): counts every statement its pg clients send
// and, between two SIGUSR2 signals, keeps their text and parameters, written as a JSON array to
// BENCH_RECORD_SQL when the second arrives. The bench reads what one call sent (to run the same
// statements with pgbench) and how many statements an idle server sends. Plain JavaScript: it loads
// before tsx.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.resolve(import.meta.dirname, '../apps/server/package.json'));
const pg = require('pg');
const out = process.env.BENCH_RECORD_SQL;
let recording = null;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (q, ...rest) {
  if (recording) {
    const text = typeof q === 'string' ? q : q?.text;
    // pg takes the values in the config or as the second argument (drizzle passes them so).
    const values = (typeof q === 'string' ? undefined : q?.values) ?? (Array.isArray(rest[0]) ? rest[0] : []);
    if (text) recording.push({ at: Date.now(), text, values });
  }
  return query.call(this, q, ...rest);
};
process.on('SIGUSR2', () => {
  if (!recording) {
    recording = [];
    return;
  }
  if (out) writeFileSync(out, JSON.stringify(recording));
  recording = null;
});
