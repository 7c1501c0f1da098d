import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm start` builds the console before the server on a first start (tools/start.mjs): it must say
// so and keep saying it is working, not sit silent for the build's 40 seconds.
const { runWithProgress } = (await import(path.resolve(import.meta.dirname, '../../../tools/build-progress.mjs'))) as {
  runWithProgress: (cmd: string, args: string[], o: { label: string; log: (l: string) => void; everyMs: number }) => Promise<number>;
};

describe('npm start while it builds the console', () => {
  it('says what it does, how long it has been at it, and when it is done', async () => {
    const lines: string[] = [];
    const status = await runWithProgress(process.execPath, ['-e', 'setTimeout(() => {}, 1300)'], {
      label: 'Building the console',
      log: (l) => lines.push(l),
      everyMs: 400,
    });
    expect(status).toBe(0);
    expect(lines[0]).toBe('Building the console…');
    expect(lines.filter((l) => /^ {2}still building the console \(\d+ s\)…$/.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatch(/^Building the console: done in \d+ s\.$/);
  });

  it('answers a failed build with its status, saying nothing of success', async () => {
    const lines: string[] = [];
    const status = await runWithProgress(process.execPath, ['-e', 'process.exit(3)'], {
      label: 'Building the console',
      log: (l) => lines.push(l),
      everyMs: 400,
    });
    expect(status).toBe(3);
    expect(lines.some((l) => l.includes('done'))).toBe(false);
  });
});
