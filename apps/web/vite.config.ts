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
      output: {
        // Pages and areas are split by React.lazy; these groups keep the libraries the sign-in page
        // does not need (react-admin and its UI kit) out of the chunks it loads.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 30 },
            { name: 'react-admin', test: /node_modules[\\/](react-admin|ra-ui-materialui|ra-core|@tanstack|react-hook-form|lodash|react-dropzone|inflection|query-string|jsonexport|dompurify|date-fns)[\\/]/, priority: 20 },
          ],
        },
      },
    },
  },
});
