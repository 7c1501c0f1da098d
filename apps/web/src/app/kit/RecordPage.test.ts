import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { ApiError } from '../http';
import { recordErrorText } from './RecordPage';

const t = createI18nProvider('en').translate as (key: string, options?: Record<string, unknown>) => string;
const HINT = 'It does not exist, or you are not allowed to see it.';

describe('the text of a record that cannot be opened', () => {
  it('is the hint alone when the server only says not found or prohibited', () => {
    expect(recordErrorText(new ApiError(404, 'Item not found', { message: 'item not found' }), t)).toBe(HINT);
    expect(recordErrorText(new ApiError(403, 'Forbidden', { message: 'action prohibited' }), t)).toBe(HINT);
    expect(recordErrorText(new ApiError(404, 'Not Found', undefined), t)).toBe(HINT);
  });
  it('adds a server message that says more', () => {
    expect(recordErrorText(new ApiError(403, 'x', { message: 'user not allowed' }), t)).toBe(
      `${HINT} ${t('errors.http.user not allowed', { _: 'user not allowed' })}`,
    );
  });
  it('follows the error display rule for other failures', () => {
    expect(recordErrorText(new ApiError(500, 'x', { message: 'internal server error' }), t)).not.toContain(HINT);
  });
});
