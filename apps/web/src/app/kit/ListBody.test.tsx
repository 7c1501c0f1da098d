import { TextField } from 'react-admin';
import { describe, expect, it } from 'vitest';
import { identifyingSource } from './ListBody';

describe('the column that names a record', () => {
  it('is the one given, else name, else the first column but the bare id', () => {
    const withName = [<TextField key="id" source="id" />, <TextField key="login" source="login" />, <TextField key="name" source="name" />];
    expect(identifyingSource(withName)).toBe('name');
    expect(identifyingSource(withName, 'login')).toBe('login');
    const withoutName = [<TextField key="id" source="id" />, <TextField key="device_name" source="device_name" />];
    expect(identifyingSource(withoutName)).toBe('device_name');
    expect(identifyingSource([<TextField key="id" source="id" />])).toBe('id');
  });
});
