// `npm run bench -- lighthouse`: Lighthouse performance of the console, as a phone (Lighthouse's
// mobile emulation: a slow 4G network and a 4× slower CPU) and a desk sees it, on the built console
// served by Atrium itself: /login signed out, /users signed in; and the JavaScript /login loads,
// compressed. Debian's Chromium (/usr/bin/chromium) through chrome-launcher; no browser is downloaded.
// The console must be built first (`npm run build`). Targets: mobile ≥ 90, desktop ≥ 98, /login ≤ 250 KB.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Flags } from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import puppeteer from 'puppeteer-core';
import { freePort, ROOT, startProcess, tempDir, waitFor } from './lib.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const PASSWORD = 'bench-password';
const TARGETS = { mobile: 90, desktop: 98, loginJsKb: 250 };

interface Run {
  page: string;
  form: 'mobile' | 'desktop';
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  scriptKb: number;
  scripts: number;
  /** What Lighthouse says costs the time: the LCP element, render-blocking files, unused JS, script boot-up. */
  costs: string[];
}

type Items = { items?: Record<string, unknown>[] } | undefined;

/** Lighthouse's own account of where the time goes, a line per finding. */
function costsOf(audits: Record<string, { details?: unknown; displayValue?: string } | undefined>): string[] {
  const items = (id: string) => ((audits[id]?.details as Items)?.items ?? []) as Record<string, unknown>[];
  const file = (u: unknown) => String(u ?? '').replace(/^https?:\/\/[^/]+/, '');
  const lcp = items('largest-contentful-paint-element')
    .flatMap((i) => ((i as { items?: { node?: { snippet?: string } }[] }).items ?? []).map((x) => x.node?.snippet))
    .find(Boolean);
  return [
    ...(lcp ? [`LCP element: ${lcp.slice(0, 120)}`] : []),
    ...items('render-blocking-resources').map((i) => `render-blocking: ${file(i.url)} ${Number(i.wastedMs ?? 0).toFixed(0)} ms`),
    ...items('unused-javascript')
      .slice(0, 5)
      .map(
        (i) =>
          `unused JS: ${file(i.url)} ${(Number(i.wastedBytes ?? 0) / 1024).toFixed(0)} KB of ${(Number(i.totalBytes ?? 0) / 1024).toFixed(0)} KB`,
      ),
    ...items('bootup-time')
      .slice(0, 4)
      .map(
        (i) => `script time: ${file(i.url)} ${Number(i.total ?? 0).toFixed(0)} ms (scripting ${Number(i.scripting ?? 0).toFixed(0)} ms)`,
      ),
    ...items('long-tasks')
      .slice(0, 4)
      .map((i) => `long task: ${file(i.url)} at ${Number(i.startTime ?? 0).toFixed(0)} ms for ${Number(i.duration ?? 0).toFixed(0)} ms`),
  ];
}

async function measure(port: number, url: string, form: Run['form'], signedIn: boolean, attempt = 1): Promise<Run> {
  const flags: Flags = { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: signedIn };
  const result = await lighthouse(url, flags, form === 'desktop' ? desktopConfig : undefined);
  if (!result) throw new Error(`no Lighthouse result for ${url}`);
  const lhr = result.lhr;
  // A run Lighthouse could not finish has no figures. The first navigation of a fresh browser
  // sometimes loses its trace (NO_NAVSTART, "run Lighthouse again"): that run is made again, twice
  // at most; any other error is printed and scores 0.
  if (lhr.runtimeError) {
    console.log(`${url} ${form}: Lighthouse could not measure (${lhr.runtimeError.code}: ${lhr.runtimeError.message})`);
    if (lhr.runtimeError.code === 'NO_NAVSTART' && attempt < 3) return measure(port, url, form, signedIn, attempt + 1);
  }
  const requests =
    (lhr.audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number }[] } | undefined)?.items ?? [];
  const scripts = requests.filter((r) => r.resourceType === 'Script');
  return {
    page: new URL(url).pathname,
    form,
    score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    fcp: lhr.audits['first-contentful-paint']?.numericValue ?? Number.NaN,
    lcp: lhr.audits['largest-contentful-paint']?.numericValue ?? Number.NaN,
    tbt: lhr.audits['total-blocking-time']?.numericValue ?? Number.NaN,
    scriptKb: scripts.reduce((s, r) => s + (r.transferSize ?? 0), 0) / 1024,
    scripts: scripts.length,
    costs: costsOf(lhr.audits),
  };
}

export async function run(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'apps/web/dist/index.html'))) throw new Error('build the console first: npm run build');
  const [port, mqtt, sip, sipWs] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const server = startProcess(path.join(ROOT, 'apps/server/src/main.ts'), {
    DATABASE_URL: undefined,
    MQTT_URL: undefined,
    MQTT_DYNSEC: undefined,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: tempDir(),
    MQTT_PORT: String(mqtt),
    MQTT_HOST: '127.0.0.1',
    SIP_PORT: String(sip),
    SIP_WS_PORT: String(sipWs),
    SIP_HOST: '127.0.0.1',
    ADMIN_LOGIN: 'admin',
    ADMIN_PASSWORD: PASSWORD,
    LOG_LEVEL: 'error',
  });
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    await waitFor(`${base}/api/v0/info`, 120_000);
    const runs: Run[] = [];
    // Signed out first (a fresh profile), then signed in once for the console's pages.
    for (const form of ['mobile', 'desktop'] as const) runs.push(await measure(chrome.port, `${base}/login`, form, false));
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const page = await browser.newPage();
    await page.goto(`${base}/login`, { waitUntil: 'networkidle0' });
    await page.type('input[name="login"], input[autocomplete="username"]', 'admin');
    await page.type('input[type="password"]', PASSWORD);
    await Promise.all([page.waitForFunction(() => location.pathname === '/home', { timeout: 60_000 }), page.keyboard.press('Enter')]);
    await page.close();
    await browser.disconnect();
    for (const form of ['mobile', 'desktop'] as const) runs.push(await measure(chrome.port, `${base}/users`, form, true));

    console.log('page     form      score  FCP ms  LCP ms  TBT ms  JS KB (gzip)  scripts');
    for (const r of runs) {
      console.log(
        `${r.page.padEnd(8)} ${r.form.padEnd(8)} ${String(r.score).padStart(6)} ${r.fcp.toFixed(0).padStart(7)} ${r.lcp.toFixed(0).padStart(7)} ${r.tbt
          .toFixed(0)
          .padStart(7)} ${r.scriptKb.toFixed(1).padStart(13)} ${String(r.scripts).padStart(8)}`,
      );
    }
    for (const r of runs) {
      console.log(`\n${r.page} ${r.form}:`);
      for (const c of r.costs) console.log(`  ${c}`);
    }
    const login = runs.find((r) => r.page === '/login' && r.form === 'mobile');
    const misses = runs
      .filter((r) => r.score < TARGETS[r.form])
      .map((r) => `${r.page} ${r.form} ${r.score} < ${TARGETS[r.form]}`)
      .concat(login && login.scriptKb > TARGETS.loginJsKb ? [`/login JS ${login.scriptKb.toFixed(0)} KB > ${TARGETS.loginJsKb} KB`] : []);
    console.log(misses.length ? `below target: ${misses.join('; ')}` : 'every target met');
  } finally {
    chrome.kill();
    server.kill('SIGTERM');
  }
}
