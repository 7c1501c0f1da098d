import { ERRORS } from '@atrium/contract';
import { reportError, type Translate } from '../app/errors';
import { ApiError } from '../app/http';

/**
 * The text for a failed e-mailed link. A token the server rejects as malformed ('invalid data
 * sent') is a broken link, so the user reads the link's own error instead of a form error.
 */
export function linkError(error: unknown, linkMessage: string, translate: Translate): string {
  const malformed = error instanceof ApiError && error.status === 400 && error.message.toLowerCase() === ERRORS.invalid_data.message;
  return reportError(malformed ? new ApiError(400, linkMessage) : error, translate);
}
