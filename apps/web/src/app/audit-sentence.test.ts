import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../i18n';
import { type AuditLine, auditSentence } from './audit-sentence';

const translator = (locale: 'en' | 'ru') => {
  const provider = createI18nProvider(locale);
  return (k: string, o?: Record<string, unknown>) => provider.translate(k, o);
};
const en = translator('en');
const ru = translator('ru');

const anna = { author: 'Anna Petrova', user_id: 5 };
const line = (e: Partial<AuditLine> & Pick<AuditLine, 'entity' | 'action'>): AuditLine => ({ entity_id: null, ...anna, ...e });

describe('an audit event reads as a sentence in the reader’s language', () => {
  it('names who did what to which record', () => {
    const created = line({ entity: 'sip_number', entity_id: '7', action: 'create', after: { number: '1001', group: 3 } });
    expect(auditSentence(created, en)).toBe('Anna Petrova created the virtual number 1001');
    expect(auditSentence(created, ru)).toBe('Пользователь Anna Petrova создал виртуальный номер 1001');
    const renamed = line({ entity: 'domains', entity_id: '3', action: 'update', before: { name: 'Block A' }, after: { parent: 1 } });
    expect(auditSentence(renamed, en)).toBe('Anna Petrova changed the group Block A');
    expect(auditSentence(renamed, ru)).toBe('Пользователь Anna Petrova изменил группу Block A');
  });

  it('uses the record’s id when nothing names it, the home page’s subject when given', () => {
    expect(auditSentence(line({ entity: 'notification', entity_id: '12', action: 'read' }), en)).toBe(
      'Anna Petrova read the notification #12',
    );
    expect(auditSentence(line({ entity: 'identifier', entity_id: '9', action: 'create_guest', subject: 'Guest' }), ru)).toBe(
      'Пользователь Anna Petrova создал гостевой пропуск: идентификатор Guest',
    );
  });

  it('words sessions, the server and failed sign-ins without codes', () => {
    expect(auditSentence(line({ entity: 'session', action: 'login' }), en)).toBe('Anna Petrova signed in');
    expect(auditSentence(line({ entity: 'session', action: 'refresh' }), ru)).toBe('Пользователь Anna Petrova продлил сеанс');
    const failed = line({ entity: 'session', action: 'login_failed', author: null, user_id: null, after: { login: 'anna' } });
    expect(auditSentence(failed, en)).toBe('Someone signing in as “anna” could not sign in');
    expect(auditSentence(failed, ru)).toBe('Пользователь с логином «anna» не смог войти');
    const task = line({ entity: 'device_task', entity_id: '4', action: 'retry', author: null, user_id: null });
    expect(auditSentence(task, en)).toBe('The server retried the device task #4');
    expect(auditSentence(task, ru)).toBe('Сервер повторил задачу устройства #4');
  });

  it('never shows a code it has no words for', () => {
    const odd = line({ entity: 'some_new_thing', entity_id: '1', action: 'frobnicate' });
    expect(auditSentence(odd, en)).toBe('Anna Petrova changed a record #1');
    expect(auditSentence(odd, ru)).toBe('Пользователь Anna Petrova изменил запись #1');
    for (const t of [en, ru]) {
      for (const [entity, action] of [
        ['session', 'refresh'],
        ['sip_number', 'create'],
        ['identifier', 'create_guest'],
        ['notification', 'read'],
      ] as const)
        expect(auditSentence(line({ entity, action, entity_id: '1' }), t)).not.toMatch(/[a-z]+_[a-z]+|\w \/ \w|\w : \w/);
    }
  });
});
