import { VALIDATION_MESSAGES as M } from '@atrium/contract';
import { AppError } from './errors.js';

/** Deepest nesting a JSON body may have; no payload of the spec comes near it. */
export const MAX_JSON_DEPTH = 32;

const invalid = (field: string) => new AppError('invalid_data', [{ field, message: M.invalid_value }]);

/**
 * Finds what no field of Atrium may hold, breadth-first without recursion (a body nested 10,000
 * deep must not take the stack): a NUL character (PostgreSQL text cannot store it), a `__proto__`
 * key (prototype poisoning once merged), or nesting deeper than MAX_JSON_DEPTH. Answers the path
 * of the first one, or null.
 */
export function findForbiddenJson(value: unknown): string | null {
  const queue: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  for (let i = 0; i < queue.length; i++) {
    const { v, path, depth } = queue[i] as { v: unknown; path: string; depth: number };
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return path;
    for (const [k, child] of Object.entries(v)) {
      const at = path ? `${path}.${k}` : k;
      if (k === '__proto__' || k.includes('\u0000')) return at;
      queue.push({ v: child, path: at, depth: depth + 1 });
    }
  }
  return null;
}

/**
 * The JSON body parser of the API: an empty body is no body (POST /logout without one), a broken
 * one or one holding what findForbiddenJson refuses is a 400 "invalid data sent" naming the field.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('');
  }
  const bad = findForbiddenJson(value);
  if (bad !== null) throw invalid(bad);
  return value;
}
