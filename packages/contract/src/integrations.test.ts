import { describe, expect, it } from 'vitest';
import { CreateIntegrationBodySchema, normalizeIntegrationUrl } from './integrations.js';

describe('integration server addresses', () => {
  it('are host:port in lower case, with the Axxon One port when none is given', () => {
    expect(normalizeIntegrationUrl('Axxon.Example')).toBe('axxon.example:20109');
    expect(normalizeIntegrationUrl(' grpcs://AXXON.example:443/ ')).toBe('axxon.example:443');
    expect(normalizeIntegrationUrl('10.0.0.5:20110')).toBe('10.0.0.5:20110');
    expect(normalizeIntegrationUrl('[::1]:20109')).toBe('[::1]:20109');
    expect(normalizeIntegrationUrl('[fe80::1]')).toBe('[fe80::1]:20109');
  });

  it('refuse what is not a host and port', () => {
    for (const bad of ['', 'http://x.example', 'a b', 'x.example:0', 'x.example:70000', 'x.example:port', '-x.example', 'user@x.example']) {
      expect(normalizeIntegrationUrl(bad), bad).toBeNull();
    }
  });

  it('a new integration needs a name of at most 31 characters, an address, a user and a password', () => {
    const ok = CreateIntegrationBodySchema.safeParse({
      name: 'Video',
      axxon_one_settings: { url: 'axxon.example', user: 'root', password: 'p' },
    });
    expect(ok.success && ok.data).toMatchObject({ type: 'axxon_one', macro_rules: [], axxon_one_settings: { url: 'axxon.example:20109' } });
    const bad = CreateIntegrationBodySchema.safeParse({ name: 'x'.repeat(32), axxon_one_settings: { url: 'axxon.example', user: 'root' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['axxon_one_settings.password', 'name']);
  });
});
