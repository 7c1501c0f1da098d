// `npm start`: builds the console when it is missing or older than its sources, then runs the server.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { runWithProgress } from './build-progress.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'apps/web/dist/index.html');

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sources = ['apps/web/src', 'apps/web/index.html', 'packages/contract/src'].map((p) => path.join(root, p)).filter(existsSync);
const stale =
  !existsSync(dist) || sources.some((s) => (statSync(s).isDirectory() ? newest(s) : statSync(s).mtimeMs) > statSync(dist).mtimeMs);
if (stale) {
  console.log('The console is built once, on a first start or after its sources changed (up to a minute on a small machine).');
  // Warnings and errors only: the list of built chunks would push the sign-in lines off the screen.
  const status = await runWithProgress('npm', ['run', 'build', '-w', 'apps/web', '--silent', '--', '--logLevel', 'warn'], {
    cwd: root,
    label: 'Building the console',
  });
  if (status !== 0) {
    console.error('The console could not be built; see the messages above.');
    process.exit(status);
  }
  console.log('Starting the server…');
}

const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.kill(sig));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
