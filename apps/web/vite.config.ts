import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiTarget = process.env.ATRIUM_API_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
  build: {
    // Chunk loading may be slow on weak links (spec core §8): keep the warning for oversized chunks.
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      // The contract's modules only declare things: let unused schemas (and zod with them) drop out
      // of the sign-in page, which needs a few constants and validators.
      // libphonenumber-js is pure too: its numbering plans load only where a phone is checked.
      treeshake: { moduleSideEffects: (id: string) => !/[\\/](packages[\\/]contract|node_modules[\\/]libphonenumber-js)[\\/]/.test(id) },
      output: {
        // Pages and areas are split by React.lazy, so what only the console uses (react-admin's UI
        // kit) stays out of the sign-in page's chunks; React itself is one long-cached chunk.
        codeSplitting: {
          groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 30 }],
        },
      },
    },
  },
});
