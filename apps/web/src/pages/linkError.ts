import { ERRORS } from '@atrium/contract';
import { reportError, type Translate } from '../app/errors';
import { ApiError } from '../app/http';

/** True when the server refused the call only because the link's token (`field`) is malformed. */
export function malformedLink(error: unknown, field: string): boolean {
  if (!(error instanceof ApiError) || error.status !== 400 || error.message.toLowerCase() !== ERRORS.invalid_data.message) return false;
  const fields = (error.details ?? []).map((d) => (d as { field?: unknown } | null)?.field);
  return fields.length > 0 && fields.every((f) => f === field || (typeof f === 'string' && f.endsWith(`.${field}`)));
}

/**
 * The text for a failed e-mailed link. A token the server rejects as malformed ('invalid data
 * sent' about the token alone) is a broken link, so the user reads the link's own error.
 */
export function linkError(error: unknown, field: string, linkMessage: string, translate: Translate): string {
  return reportError(malformedLink(error, field) ? new ApiError(400, linkMessage) : error, translate);
}
