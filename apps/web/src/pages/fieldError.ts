import type { ValidationError, Validator } from '@atrium/contract';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The first failing rule's text for a field, or undefined. */
export function fieldError(translate: Translate, value: unknown, rules: Validator[], values?: Record<string, unknown>): string | undefined {
  for (const rule of rules) {
    const e: ValidationError | undefined = rule(value, values);
    if (e) return translate(e.message, e.args);
  }
  return undefined;
}
