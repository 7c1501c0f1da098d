import type { BulkDeleteResult } from '@atrium/contract';
import { AppError } from './errors.js';

/**
 * Runs a delete per item and reports which were deleted and which were not, and why. Each item
 * is its own unit of work, so one refusal never undoes the others.
 */
export async function bulkDelete(items: readonly number[], deleteOne: (id: number) => Promise<void>): Promise<BulkDeleteResult> {
  const result: BulkDeleteResult = { deleted: [], not_deleted: [] };
  for (const id of new Set(items)) {
    try {
      await deleteOne(id);
      result.deleted.push(id);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      result.not_deleted.push({ id, message: e.message, code: e.code });
    }
  }
  return result;
}
