// Runs a long step of `npm start` (building the console) saying what it does while it runs: a
// first start spent ~40 s building in silence, which reads as a hang.
import { spawn } from 'node:child_process';

/**
 * Runs `cmd args` with its output shown, printing `label` first, then every `everyMs` how long it
 * has been running, and at the end how long it took. Resolves with the exit status.
 */
export function runWithProgress(cmd, args, { cwd, label, log = console.log, everyMs = 5000 } = {}) {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  log(`${label}…`);
  const timer = setInterval(() => log(`  still ${label.charAt(0).toLowerCase()}${label.slice(1)} (${seconds()} s)…`), everyMs);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: 'inherit' });
    child.on('error', (error) => {
      clearInterval(timer);
      log(`${label} could not start: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      const status = code ?? (signal ? 1 : 0);
      if (status === 0) log(`${label}: done in ${seconds()} s.`);
      resolve(status);
    });
  });
}
