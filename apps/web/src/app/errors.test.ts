import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../i18n';
import '../i18n/areas';
import { errorText, formErrors, hasTranslation } from './errors';
import { ApiError } from './http';

const en = createI18nProvider('en');
const t = en.translate as (key: string, options?: Record<string, unknown>) => string;

describe('error display rule', () => {
  it('translates the response message looked up in lower case', () => {
    expect(errorText(new ApiError(404, 'Item Not Found', { message: 'Item Not Found' }), t)).toBe('Item not found');
  });
  it("takes the response body's message before the error's own", () => {
    const error = new ApiError(400, 'ignored', { message: 'invalid data sent', code: 'invalid_data' });
    expect(errorText(error, t)).toBe('Invalid data sent');
  });
  it('handles an error object with a message the same way', () => {
    expect(errorText(new Error('action prohibited'), t)).toBe('Action prohibited');
    expect(errorText({ message: 'method prohibited' }, t)).toBe('Method prohibited');
  });
  it('fills a message’s variable parts from the detail that repeats it', () => {
    const message = 'exceeding the maximum ukey2 in the group';
    const error = new ApiError(400, message, {
      message,
      details: [{ field: 'owner_id', message, params: { domain: 'Tower B', max_count: 3 } }],
    });
    expect(errorText(error, t)).toBe('The group Tower B already has all the UKEY2 keys its licence allows (3)');
  });
  it('shows the raw message when it has no translation', () => {
    expect(errorText(new ApiError(418, 'The Teapot Is Busy', { message: 'The Teapot Is Busy' }), t)).toBe('The Teapot Is Busy');
  });
  it('falls back to the default text without any message', () => {
    expect(errorText(undefined, t)).toBe('Error performing action. Contact support.');
    expect(errorText({}, t)).toBe('Error performing action. Contact support.');
    expect(errorText(new ApiError(500, '', {}), t)).toBe('Error performing action. Contact support.');
  });
  it("lists the translated entity names of 'invalid related entity sent'", () => {
    const body = {
      message: 'invalid related entity sent',
      code: 'invalid_related_entity',
      details: [{ entity: 'groups' }, 'access-rules', { entity: 'gizmos' }],
    };
    expect(errorText(new ApiError(400, body.message, body), t)).toBe('Invalid related entity sent: Groups, Access rules, gizmos');
    expect(errorText(new ApiError(400, body.message, { message: body.message }), t)).toBe('Invalid related entity sent');
  });
  it('uses the current language', () => {
    const ru = createI18nProvider('ru').translate as typeof t;
    expect(errorText(new Error('item not found'), ru)).toBe('Элемент не найден');
    expect(errorText(null, ru)).toBe('Ошибка выполнения действия. Обратитесь в поддержку.');
  });
  it('knows which keys exist', () => {
    expect(hasTranslation(t, 'errors.default')).toBe(true);
    expect(hasTranslation(t, 'errors.http.no such thing')).toBe(false);
  });
});

describe('form errors from a refused save', () => {
  const ru = createI18nProvider('ru');
  const tr = ru.translate as (key: string, options?: Record<string, unknown>) => string;
  const refused = (details: unknown[]) => new ApiError(400, 'invalid data sent', { message: 'invalid data sent', details });

  it('translates validation keys with their values, and catalogue phrases, per field', () => {
    const error = refused([
      { field: 'login', message: 'validation.max_length', params: { length: 64 } },
      { field: 'email', message: 'e-mail already used' },
    ]);
    expect(formErrors(error, t)).toEqual({ login: 'Max length 64 chars', email: 'E-mail already used' });
    const inRussian = formErrors(error, tr) as Record<string, string>;
    expect(inRussian.login).toContain('64');
    expect(inRussian.login).not.toBe('Max length 64 chars');
  });

  it('nests dotted fields as the form addresses them, keeping the first complaint of a field', () => {
    const error = refused([
      { field: 'profile.phone', message: 'validation.phone_international' },
      { field: 'profile.phone', message: 'validation.required' },
      { field: 'profile.address', message: 'a phrase nobody translated' },
    ]);
    expect(formErrors(error, t)).toEqual({
      profile: {
        phone: 'Enter an international number with its country code, such as +7 912 345-67-89',
        address: 'a phrase nobody translated',
      },
    });
  });

  it('answers nothing without field details, and skips complaints about the whole body', () => {
    expect(formErrors(new ApiError(400, 'invalid data sent', { message: 'invalid data sent' }), t)).toBeUndefined();
    expect(formErrors(refused(['users', { entity: 'groups' }]), t)).toBeUndefined();
    expect(formErrors(refused([{ field: 'body', message: 'validation.unknown_field' }]), t)).toBeUndefined();
  });
});
