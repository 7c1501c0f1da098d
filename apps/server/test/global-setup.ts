import pg from 'pg';
import { openDatabase } from '../src/core/db/client.js';

/**
 * With TEST_DATABASE_URL (CI), migrates that database once; every test file then clones it as a
 * template into a database of its own, so files run in parallel without seeing each other's rows.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return async () => undefined;
  const database = await openDatabase({ databaseUrl: url, poolSize: 1 });
  await database.close();
  return async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const base = new URL(url).pathname.slice(1);
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${base}_f%`]);
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    await admin.end();
  };
}
