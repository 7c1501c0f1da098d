import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets, serializeError } from './log-redact.js';

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo';

describe('secrets in logs', () => {
  it('a failed query keeps its SQL text, never its parameters', () => {
    const cause = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
      detail: 'Key (login)=(x) exists',
    });
    const err = new DrizzleQueryError('update "users" set "password_hash" = $1 where "id" = $2', [HASH, 7], cause);
    const out = JSON.stringify(serializeError(err));
    expect(out).not.toContain(HASH);
    expect(out).toContain('update \\"users\\" set \\"password_hash\\" = $1');
    expect(out).toContain('23505');
  });

  it('secret-named fields are redacted at any depth, other fields kept', () => {
    const out = redactSecrets({ login: 'admin', password: 'p', nested: { refresh_token: 't', smtp: { password: 'x', host: 'h' } } });
    expect(out).toEqual({
      login: 'admin',
      password: REDACTED,
      nested: { refresh_token: REDACTED, smtp: { password: REDACTED, host: 'h' } },
    });
    const err = Object.assign(new Error('boom'), { passwordHash: HASH, user: { id: 1, password: 'p' } });
    const s = JSON.stringify(serializeError(err));
    expect(s).not.toContain(HASH);
    expect(s).not.toContain('"p"');
  });
});
