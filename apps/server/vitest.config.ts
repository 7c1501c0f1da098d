import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only contend for them.
    maxWorkers: 2,
    // A worker's files share one module graph: importing the app's modules again for every file was
    // 452 of the 963 s this suite ran in CI on PostgreSQL (30 s shared). Nothing here mocks a module,
    // and each file builds its own app and database, so a file sees no state another left behind.
    isolate: false,
  },
});
