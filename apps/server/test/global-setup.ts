import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { dumpMigratedPglite, openDatabase } from '../src/core/db/client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory (tar) that every test file's database starts from. */
    pgliteDump: string | null;
  }
}

/**
 * With TEST_DATABASE_URL (CI), migrates that database once; every test file then clones it as a
 * template into a database of its own, so files run in parallel without seeing each other's rows.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    // PGlite: migrate once and let each file load the result (well under a second) instead of
    // running every migration again (seconds per file, and there are over a hundred files).
    const file = path.join(tmpdir(), `atrium-test-pglite-${process.pid}.tar`);
    writeFileSync(file, Buffer.from(await (await dumpMigratedPglite()).arrayBuffer()));
    project.provide('pgliteDump', file);
    return async () => rmSync(file, { force: true });
  }
  project.provide('pgliteDump', null);
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
