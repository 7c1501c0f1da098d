// A server without LICENSE_PUBLIC_KEY runs on the development licence: it says so in its log at start,
// and a server with an issuer key does not.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../../test/helpers.js';

const developmentLines = async (env: Record<string, string>) => {
  const t = await buildTestApp({ env: { LOG_LEVEL: 'warn', ...env } });
  try {
    return t.app.logRing.read({ limit: 100, level: 'warn', q: 'DEVELOPMENT LICENCE' });
  } finally {
    await t.close();
  }
};

describe('the development licence', { timeout: 60_000 }, () => {
  it('is warned of in the log at start when LICENSE_PUBLIC_KEY is not set', async () => {
    const lines = await developmentLines({});
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn' });
    expect(lines[0]?.msg).toContain('LICENSE_PUBLIC_KEY is not set, so every feature is on without limits');
  });

  it('is not warned of when an issuer key is set', async () => {
    const key = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    expect(await developmentLines({ LICENSE_PUBLIC_KEY: key })).toEqual([]);
  });
});
