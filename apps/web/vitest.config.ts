import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    // jsdom 31 needs Node 22 (its undici calls zlib's zstd); the units here need no DOM.
    environment: 'node',
    restoreMocks: true,
  },
});
