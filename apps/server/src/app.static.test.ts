import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../test/helpers.js';
import { type AppInstance, buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { Database } from './core/db/client.js';

let app: AppInstance;
let web: string;
let database: Database;
beforeAll(async () => {
  web = mkdtempSync(path.join(tmpdir(), 'atrium-web-'));
  mkdirSync(path.join(web, 'assets'));
  writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>Atrium console</title>');
  writeFileSync(path.join(web, 'assets', 'app.js'), 'console.log(1)');
  database = await freshDatabase();
  const config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-data-')),
    LOG_LEVEL: 'silent',
    WEB_DIST: web,
    JWT_SECRET: 'x'.repeat(40),
  });
  app = await buildApp({ config, database });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe('the console on the same port', () => {
  it('serves index.html at the root and the built assets', async () => {
    const root = await app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(200);
    expect(root.body).toContain('Atrium console');
    const asset = await app.inject({ method: 'GET', url: '/assets/app.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('javascript');
  });

  it.each(['/users/5/edit', '/login?redirect=%2Fprofile', '/groups', '/anything/unknown'])(
    'falls back to index.html for the client route %s',
    async (url) => {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('Atrium console');
    },
  );

  it('serves files added after start (a rebuilt console) without a restart', async () => {
    writeFileSync(path.join(web, 'assets', 'new-chunk.js'), 'console.log(2)');
    const res = await app.inject({ method: 'GET', url: '/assets/new-chunk.js' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('console.log(2)');
  });

  it('answers 404 for a missing file instead of the console page', async () => {
    expect((await app.inject({ method: 'GET', url: '/assets/gone-123.js' })).statusCode).toBe(404);
  });

  it('keeps API misses as JSON 404s', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v0/does-not-exist' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('item not found');
  });

  it('does not fall back for other methods', async () => {
    const res = await app.inject({ method: 'POST', url: '/users' });
    expect(res.statusCode).toBe(404);
  });
});

describe('serving hygiene (issue 9)', () => {
  it('sends the security headers on the console, the API and the docs', async () => {
    for (const url of ['/', '/users/5', '/api/v0/info', '/api/docs/static/index.html', '/api/v0/openapi.json']) {
      const res = await app.inject({ method: 'GET', url });
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("object-src 'none'");
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('strict-origin-when-cross-origin');
    }
  });

  it('caches hashed assets for a year, and revalidates index.html and client routes', async () => {
    writeFileSync(path.join(web, 'assets', 'index-BZXjuMKR.js'), 'console.log(3)');
    const asset = await app.inject({ method: 'GET', url: '/assets/index-BZXjuMKR.js' });
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const url of ['/', '/index.html', '/users/7']) {
      expect((await app.inject({ method: 'GET', url })).headers['cache-control'], url).toBe('no-cache');
    }
  });

  it('answers HEAD on console routes like GET, without a body', async () => {
    const res = await app.inject({ method: 'HEAD', url: '/groups/3' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toBe('');
  });

  it('compresses answers for a client that accepts it', async () => {
    writeFileSync(path.join(web, 'assets', 'big-Abcdefgh12.js'), `const a = ${JSON.stringify('x'.repeat(20_000))};`);
    for (const [accept, encoding] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
    ]) {
      const res = await app.inject({ method: 'GET', url: '/assets/big-Abcdefgh12.js', headers: { 'accept-encoding': accept } });
      expect(res.headers['content-encoding'], accept).toBe(encoding);
      expect(res.rawPayload.length).toBeLessThan(2000);
    }
    const api = await app.inject({ method: 'GET', url: '/api/v0/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(api.headers['content-encoding']).toBe('gzip');
  });

  it('sends the compressed copies the build wrote instead of compressing again', async () => {
    const source = `export const b = ${JSON.stringify('y'.repeat(20_000))};`;
    writeFileSync(path.join(web, 'assets', 'pre-Abcdefgh12.js'), source);
    // Bodies that no compressor would produce from the source: only the files on disk can be the answer.
    writeFileSync(path.join(web, 'assets', 'pre-Abcdefgh12.js.br'), 'brotli copy from the build');
    writeFileSync(path.join(web, 'assets', 'pre-Abcdefgh12.js.gz'), 'gzip copy from the build');
    for (const [accept, encoding, body] of [
      ['br, gzip', 'br', 'brotli copy from the build'],
      ['gzip', 'gzip', 'gzip copy from the build'],
    ]) {
      const res = await app.inject({ method: 'GET', url: '/assets/pre-Abcdefgh12.js', headers: { 'accept-encoding': accept } });
      expect(res.headers['content-encoding'], accept).toBe(encoding);
      expect(res.headers['content-type'], accept).toContain('javascript');
      expect(res.headers['cache-control'], accept).toBe('public, max-age=31536000, immutable');
      expect(res.rawPayload.toString(), accept).toBe(body);
    }
    const plain = await app.inject({ method: 'GET', url: '/assets/pre-Abcdefgh12.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(source);
  });
});

describe("the console's inline script", () => {
  /** The hashes a browser computes: of each inline script's text as served, byte for byte. */
  const hashesIn = (html: string) =>
    [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
      ([, body]) =>
        `'sha256-${createHash('sha256')
          .update(body ?? '')
          .digest('base64')}'`,
    );
  const scriptSrc = (csp: unknown) => /script-src ([^;]*)/.exec(String(csp))?.[1]?.split(' ');
  const page = (script: string) =>
    `<!doctype html><title>Atrium console</title><div id="shell"></div><script>${script}</script>\n<div id="root"></div><script type="module" src="/assets/app.js"></script>`;

  it('is allowed by its hash on every page the console serves, and nothing else inline is', async () => {
    writeFileSync(path.join(web, 'index.html'), page("\n  document.getElementById('shell').className = 'ru';\n"));
    for (const url of ['/', '/login', '/users/3']) {
      const res = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
      const hashes = hashesIn(res.body);
      expect(hashes, url).toHaveLength(1);
      expect(scriptSrc(res.headers['content-security-policy']), url).toEqual(["'self'", ...hashes]);
      expect(String(res.headers['content-security-policy']), url).not.toContain("'unsafe-inline' 'sha256");
    }
  });

  it('follows a rebuilt index.html without a restart', async () => {
    const file = path.join(web, 'index.html');
    writeFileSync(file, page('window.shellVersion = 1;'));
    utimesSync(file, new Date(), new Date(Date.now() - 60_000));
    const before = await app.inject({ method: 'GET', url: '/login' });
    writeFileSync(file, page('window.shellVersion = 2;'));
    utimesSync(file, new Date(), new Date());
    const after = await app.inject({ method: 'GET', url: '/login' });
    expect(hashesIn(after.body)).not.toEqual(hashesIn(before.body));
    expect(scriptSrc(after.headers['content-security-policy'])).toEqual(["'self'", ...hashesIn(after.body)]);
  });
});
