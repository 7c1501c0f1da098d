import { describe, expect, it } from 'vitest';
import { pushText } from './push-texts.js';

describe('push texts', () => {
  const used = { user: 'Ann', device: 'Entrance', identifier_type: 'card', identifier_number: 'CAFE01' };

  it('name a used card by the number its reader reads in the console, not as stored', () => {
    expect(pushText('user_used_revoked_identifier', used, 'en', 'dec').body).toBe('Ann used the revoked card 13303297 at Entrance');
    expect(pushText('user_used_revoked_identifier', used, 'en', 'hex').body).toBe('Ann used the revoked card CA-FE-01 at Entrance');
  });

  it('name the identifier type in the reader’s language', () => {
    expect(pushText('user_used_identifier', used, 'ru', 'dec').body).toBe('Ann использовал идентификатор (карта 13303297) на Entrance');
    expect(pushText('user_used_identifier', { ...used, identifier_type: 'access_code', identifier_number: '0042' }, 'en').body).toBe(
      'Ann used the access code 0042 at Entrance',
    );
  });
});
