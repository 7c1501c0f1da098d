import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../i18n';
import '../i18n/areas';
import { taskErrorText } from './task-error';

const translator = (locale: 'en' | 'ru') => {
  const provider = createI18nProvider(locale);
  return ((k: string, o?: Record<string, unknown>) => provider.translate(k, o)) as Parameters<typeof taskErrorText>[0];
};

describe('why a device task ended', () => {
  it('reads in the reader’s language when Atrium ended it, as the device sent it otherwise', () => {
    const ru = translator('ru');
    expect(taskErrorText(ru, 'superseded')).toBe('Заменена более новой задачей');
    expect(taskErrorText(ru, 'superseded by a full sync')).toBe('Заменена полной синхронизацией');
    expect(taskErrorText(ru, 'timeout')).toBe('Устройство не ответило вовремя');
    expect(taskErrorText(translator('en'), 'superseded')).toBe('Replaced by a newer task');
    expect(taskErrorText(ru, 'E.42: lock jammed')).toBe('E.42: lock jammed');
    expect(taskErrorText(ru, null)).toBeUndefined();
  });
});
