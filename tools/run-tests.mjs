// `npm test`: every suite of the repository, one after the other, then one line "N passed, N failed".
// Lint, format and type checks count as one test each; vitest and Playwright report their own counts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const reports = path.join(root, '.reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

let passed = 0;
let failed = 0;
const lines = [];

function run(name, cmd, args, opts = {}) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? root, stdio: 'inherit', env: { ...process.env, ...opts.env } });
  return r.status === 0;
}

function check(name, cmd, args, opts) {
  const ok = run(name, cmd, args, opts);
  ok ? passed++ : failed++;
  lines.push(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
}

function vitest(name, dir, env = {}) {
  const out = path.join(reports, `${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
  const ok = run(name, 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${out}`], {
    cwd: path.join(root, dir),
    env,
  });
  if (!existsSync(out)) {
    failed++;
    lines.push(`FAIL ${name}: no report (the runner crashed)`);
    return;
  }
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  // A file that fails to load has no tests but is a failure all the same.
  const broken = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  failed += broken;
  if (!ok && r.numFailedTests === 0 && broken === 0) failed++;
  lines.push(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${r.numPassedTests} passed, ${r.numFailedTests + broken} failed`);
  // Name what failed in the summary: CI keeps only the tail of the output.
  for (const f of r.testResults) {
    const file = path.relative(root, f.name);
    if (f.status === 'failed' && f.assertionResults.length === 0)
      lines.push(`       ${file}: ${(f.message ?? '').split('\n')[0].slice(0, 300)}`);
    for (const a of f.assertionResults.filter((x) => x.status === 'failed')) {
      lines.push(`       ${file} › ${a.fullName}: ${(a.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300)}`);
    }
  }
}

function playwright() {
  const out = path.join(reports, 'e2e.json');
  const ok = run('e2e', 'npx', ['playwright', 'test'], { cwd: path.join(root, 'e2e'), env: { PLAYWRIGHT_JSON_OUTPUT_NAME: out } });
  if (!existsSync(out)) {
    failed++;
    lines.push('FAIL e2e: no report');
    return;
  }
  const s = JSON.parse(readFileSync(out, 'utf8')).stats;
  const bad = s.unexpected + s.flaky * 0;
  passed += s.expected + s.flaky;
  failed += bad;
  if (!ok && bad === 0) failed++;
  lines.push(`${ok ? 'ok  ' : 'FAIL'} e2e: ${s.expected + s.flaky} passed, ${bad} failed${s.flaky ? ` (${s.flaky} flaky)` : ''}`);
}

check('lint and format (biome)', 'npx', ['biome', 'check', '.']);
check('types: contract', 'npx', ['tsc', '-p', 'packages/contract']);
check('types: server', 'npx', ['tsc', '-p', 'apps/server']);
check('types: web', 'npx', ['tsc', '-p', 'apps/web']);
// The OpenAPI document the server generates, linted with Spectral's spectral:oas ruleset (warnings fail too).
check('openapi lint (spectral:oas)', 'npx', ['tsx', 'scripts/lint-openapi.ts'], { cwd: path.join(root, 'apps/server') });
vitest('contract', 'packages/contract');
// The server suite runs on the embedded PGlite by default, and on PostgreSQL when CI gives it a
// database (TEST_DATABASE_URL). TEST_BOTH_ENGINES=1 runs it on both, one after the other; CI does
// not, to stay well inside its time (each run is several minutes on two cores).
if (process.env.TEST_DATABASE_URL && process.env.TEST_BOTH_ENGINES) vitest('server (PGlite)', 'apps/server', { TEST_DATABASE_URL: '' });
vitest(process.env.TEST_DATABASE_URL ? 'server (PostgreSQL)' : 'server (PGlite)', 'apps/server');
vitest('web', 'apps/web');
if (existsSync(path.join(root, 'e2e/playwright.config.ts'))) {
  check('build: web', 'npm', ['run', 'build', '-w', 'apps/web']);
  playwright();
}

console.log(`\n${lines.join('\n')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
