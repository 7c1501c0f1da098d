// Lints the OpenAPI document the server generates with Spectral's `spectral:oas` ruleset; any error
// or warning fails (`npm test` runs it). The document is built from the routes' zod schemas, so a
// route added by any area is linted without anyone listing it here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, Spectral } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/core/db/client.js';

const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

const database = await openDatabase({ dataDir: 'memory://' });
const config = loadConfig({
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-openapi-')),
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'openapi-lint-openapi-lint-openapi-lint',
});
const app = await buildApp({ config, database, serveWeb: false });
await app.ready();
const document = app.swagger();
await app.close();
await database.close();

const spectral = new Spectral();
// `spectral:oas` as `spectral lint` applies it: its recommended rules, warnings failing as errors do.
spectral.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] });
const results = await spectral.run(new Document(JSON.stringify(document, null, 2), spectralParsers.Json, 'openapi.json'));
const failing = results.filter((r) => r.severity <= 1);
for (const r of results) {
  console.log(`${SEVERITY[r.severity] ?? r.severity} ${r.code} at ${r.path.join('.')}: ${r.message}`);
}
const operations = Object.values((document as { paths?: Record<string, object> }).paths ?? {}).reduce(
  (n, item) => n + Object.keys(item).filter((k) => ['get', 'put', 'post', 'patch', 'delete'].includes(k)).length,
  0,
);
console.log(`OpenAPI: ${operations} operations, ${failing.length} errors and warnings (spectral:oas)`);
process.exit(failing.length ? 1 : 0);
