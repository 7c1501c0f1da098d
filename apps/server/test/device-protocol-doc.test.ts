import { readFileSync } from 'node:fs';
import { DEVICE_TASK_ORIGINS } from '@atrium/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_PROTOCOL_PAGE, renderDeviceProtocolPage } from '../scripts/device-protocol-doc.js';
import { buildTestApp, type TestApp } from './helpers.js';

// docs/device-protocol.md's generated sections (models, event types, message fields, which calls
// create which tasks) are the contract's: the page fails this test as soon as they drift apart.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('docs/device-protocol.md', () => {
  it('holds exactly what scripts/device-protocol-doc.ts writes from the contract', () => {
    const page = readFileSync(DEVICE_PROTOCOL_PAGE, 'utf8');
    expect(renderDeviceProtocolPage(page) === page, 'run `npx tsx scripts/device-protocol-doc.ts` in apps/server').toBe(true);
  });

  it('notices a page that drifted from the contract', () => {
    const page = readFileSync(DEVICE_PROTOCOL_PAGE, 'utf8');
    const drifted = page.replace('| `panel` | `AP-200` |', '| `panel` | `AP-250` |');
    expect(drifted).not.toBe(page);
    expect(renderDeviceProtocolPage(drifted)).toBe(page);
    expect(() => renderDeviceProtocolPage(page.replace('<!-- /generated:models -->', ''))).toThrow(/generated:models/);
  });

  it('names only API calls that exist as routes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v0/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const missing = Object.values(DEVICE_TASK_ORIGINS)
      .flatMap((o) => o.calls)
      .filter((call) => {
        const [method = '', path = ''] = call.split(' ');
        return !doc.paths[`/api/v0${path}`]?.[method.toLowerCase()] && !doc.paths[path]?.[method.toLowerCase()];
      });
    expect(missing).toEqual([]);
  });
});
