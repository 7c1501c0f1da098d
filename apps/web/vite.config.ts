import react from '@vitejs/plugin-react';
import { defineConfig, type HtmlTagDescriptor, type Plugin } from 'vite';

/**
 * The sign-in page's chunks are fetched with the entry instead of after it: the page is lazy (the
 * console never needs it), so without this a phone waits for the entry, runs it, and only then asks
 * for the page, one round trip more before anything shows. The console uses most of them too.
 */
function preloadSignInPage(): Plugin {
  return {
    name: 'atrium-preload-sign-in',
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return html;
        const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
        const page = chunks.find((c) => c.facadeModuleId && /[\\/]src[\\/]pages[\\/]LoginPage\.tsx$/.test(c.facadeModuleId));
        if (!page) throw new Error('the sign-in page chunk is missing: check preloadSignInPage');
        const files = new Set<string>();
        const walk = (fileName: string) => {
          if (files.has(fileName)) return;
          files.add(fileName);
          const chunk = bundle[fileName];
          if (chunk?.type === 'chunk') for (const dep of chunk.imports) walk(dep);
        };
        walk(page.fileName);
        const tags: HtmlTagDescriptor[] = [...files]
          .filter((f) => !html.includes(`/${f}"`))
          .map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${f}` }, injectTo: 'head' }));
        return { html, tags };
      },
    },
  };
}

const apiTarget = process.env.ATRIUM_API_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react(), preloadSignInPage()],
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
