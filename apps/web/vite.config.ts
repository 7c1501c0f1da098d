import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * Each built script, style and index.html is written beside itself compressed at the highest levels
 * (name.br, name.gz), once at build, and the server sends those files (@fastify/static preCompressed).
 * Compressing on every request at brotli's top level costs tens of milliseconds of server time per
 * chunk on a busy 2-core machine, which Lighthouse counts as server response time on the critical path,
 * and a lower level on the fly would send more bytes over a slow link.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'atrium-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
        );
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const body = readFileSync(file);
        // The server compresses nothing under 1 KB either: the headers would outweigh the gain.
        if (body.length < 1024) continue;
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, {
            params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

const apiTarget = process.env.ATRIUM_API_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react(), precompress()],
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
