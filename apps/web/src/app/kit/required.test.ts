import { maxLength, required, usernameRequired } from '@atrium/contract';
import { isRequired } from 'react-admin';
import { describe, expect, it } from 'vitest';

describe('required fields', () => {
  it('are marked required by react-admin (the asterisk of the label), alone or among other rules', () => {
    expect(isRequired(required)).toBe(true);
    expect(isRequired([required, maxLength(255)])).toBe(true);
    expect(isRequired(usernameRequired)).toBe(true);
    expect(isRequired(maxLength(255))).toBe(false);
  });
});
