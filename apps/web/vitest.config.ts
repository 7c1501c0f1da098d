import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    // jsdom 31 needs Node 22 (its undici calls zlib's zstd); the units here need no DOM.
    environment: 'node',
    restoreMocks: true,
    // Russian's catalogue is loaded on demand in the console; the units read it at once.
    setupFiles: ['./src/i18n/load-all.test-setup.ts'],
  },
});
