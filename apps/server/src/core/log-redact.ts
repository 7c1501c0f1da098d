/** Keys whose values never reach a log line: passwords and their hashes, tokens, secrets, cookies. */
const SECRET_KEY = /pass(word)?|secret|token|hash|authorization|cookie|refresh|private|credential/i;
export const REDACTED = '[redacted]';

/** A copy of `value` with every secret-named field replaced (depth-bounded; cycles cut). */
export function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8 || seen.has(value)) return '[…]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : redactSecrets(v, depth + 1, seen);
  return out;
}

/**
 * The log form of an error. A failed query's message and `params` carry the values it was sent
 * (a password hash, a token): only the SQL text is kept, the values never. Causes are serialised
 * the same way, and any secret-named field of the error is redacted.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return redactSecrets(err);
  const e = err as Error & Record<string, unknown>;
  const message = e.message.startsWith('Failed query:') ? e.message.replace(/\nparams:[\s\S]*$/, '') : e.message;
  const out: Record<string, unknown> = { type: e.name, message, stack: e.stack?.replace(e.message, message) };
  for (const [k, v] of Object.entries(e)) {
    if (k === 'cause' || k === 'message' || k === 'stack') continue;
    out[k] = k === 'params' || SECRET_KEY.test(k) ? REDACTED : redactSecrets(v);
  }
  if (e.cause !== undefined && depth < 4) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/** Pino's `redact` paths for the request and body fields a log line may carry. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.new_password',
  '*.old_password',
  '*.token',
  '*.refresh',
  '*.passwordHash',
  '*.password_hash',
];
