import { ERRORS, type ErrorBody, type ErrorCode, type FieldIssue } from '@atrium/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';

/** The one error type of the server: a catalogue code and optional details for the client. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown[] | undefined;
  constructor(code: ErrorCode, details?: unknown[]) {
    super(ERRORS[code].message);
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const notFound = () => new AppError('not_found');
export const prohibited = (details?: unknown[]) => new AppError('action_prohibited', details);
export const invalidField = (field: string, message: string, params?: Record<string, unknown>) =>
  new AppError('invalid_data', [{ field, message, ...(params ? { params } : {}) } satisfies FieldIssue]);

function body(code: ErrorCode, requestId: string, details?: unknown[]): ErrorBody {
  const e = ERRORS[code];
  return { message: e.message, code, ...(details?.length ? { details } : {}), request_id: requestId };
}

interface PgLikeError {
  code?: string;
  constraint?: string;
}

/**
 * Maps every failure to the envelope of ARCHITECTURE §3. Nothing internal (stack, SQL, paths)
 * ever reaches a client; 5xx causes go to the log with the request id.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const rid = String(request.id);
    if (err instanceof AppError) {
      return reply.status(err.status).send(body(err.code, rid, err.details));
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details: FieldIssue[] = err.validation.map((v) => {
        const where = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
        const field = [err.validationContext === 'body' ? '' : err.validationContext, where].filter(Boolean).join('.');
        return { field: field || String(err.validationContext ?? ''), message: v.message ?? 'invalid value' };
      });
      return reply.status(400).send(body('invalid_data', rid, details));
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err, cause: err.cause }, 'response does not match its schema');
      return reply.status(500).send(body('internal', rid));
    }
    const pgErr = (err.cause ?? err) as PgLikeError;
    if (pgErr.code === '23505') return reply.status(409).send(body('value_not_unique', rid, [{ constraint: pgErr.constraint }]));
    if (pgErr.code === '23503') return reply.status(400).send(body('invalid_related_entity', rid));
    if (err.statusCode === 413 || err.code === 'FST_REQ_FILE_TOO_LARGE') return reply.status(413).send(body('payload_too_large', rid));
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
      return reply.status(400).send(body('wrong_file_body', rid));
    }
    if (err.statusCode === 429) return reply.status(429).send(body('too_many_attempts', rid));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(400).send(body('invalid_data', rid, [{ field: '', message: 'malformed request' }]));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(body('internal', rid));
  });
}

export function errorBody(code: ErrorCode, requestId: string, details?: unknown[]): ErrorBody {
  return body(code, requestId, details);
}
