import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

const TESTS = ['src/**/*.test.ts', 'src/**/*.test.tsx'];
/**
 * Files that replace a module (vi.mock) get a module graph of their own; the rest share one per
 * worker. Importing React, react-admin and the catalogues again for every file took 133 of the
 * 184 s this suite ran in CI, the tests themselves 6; sharing, it runs in about 20 s. Found by
 * reading the files, so that a new mocking test cannot land in the shared graph by mistake.
 */
const src = path.join(import.meta.dirname, 'src');
const MOCKING = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.test\.tsx?$/.test(f) && /\bvi\.(mock|doMock)\(/.test(readFileSync(path.join(src, f), 'utf8')))
  .map((f) => `src/${f.split(path.sep).join('/')}`);

export default defineConfig({
  test: {
    // jsdom 31 needs Node 22 (its undici calls zlib's zstd); the units here need no DOM.
    environment: 'node',
    restoreMocks: true,
    // A global a file stubs (fetch) would otherwise outlive it in the shared graph.
    unstubGlobals: true,
    // Russian's catalogue is loaded on demand in the console; the units read it at once.
    setupFiles: ['./src/i18n/load-all.test-setup.ts'],
    projects: [
      { extends: true, test: { name: 'shared', isolate: false, include: TESTS, exclude: [...configDefaults.exclude, ...MOCKING] } },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
