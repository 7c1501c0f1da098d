import { describe, expect, it } from 'vitest';
import { ApiError } from '../app/http';
import { linkError, malformedLink } from './linkError';

const translate = (key: string, options?: Record<string, unknown>) =>
  key.startsWith('errors.http.') ? `T:${key.slice(12)}` : String(options?._ ?? key);
const invalid = (fields: string[]) =>
  new ApiError(400, 'invalid data sent', {
    message: 'invalid data sent',
    code: 'invalid_data',
    details: fields.map((field) => ({ field, message: 'too short' })),
  });

describe('linkError', () => {
  it('reads a malformed token as the link error', () => {
    expect(malformedLink(invalid(['params.token']), 'token')).toBe(true);
    expect(malformedLink(invalid(['code']), 'code')).toBe(true);
    expect(linkError(invalid(['params.token']), 'token', 'link is broken', translate)).toBe('T:link is broken');
  });
  it('keeps other validation errors as they are', () => {
    expect(malformedLink(invalid(['password']), 'code')).toBe(false);
    expect(malformedLink(invalid(['code', 'password']), 'code')).toBe(false);
    expect(malformedLink(new ApiError(404, 'item not found'), 'token')).toBe(false);
    expect(linkError(invalid(['password']), 'code', 'link is broken', translate)).toBe('T:invalid data sent');
  });
});
