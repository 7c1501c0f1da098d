import type { IdentifierImportResult } from '@atrium/contract';
import type { SortPayload } from 'react-admin';
import { toFilters, toSort } from '../../app/dataProvider';
import { errorText, hasTranslation, type Translate } from '../../app/errors';
import { splitFilter } from '../../app/kit/apiRoutes';

export type ExportFormat = 'csv' | 'xlsx';

/**
 * Spec core §9: the identifier import has no time-out. The client always arms one, so it gets the
 * longest a browser timer takes (about 24 days; a longer delay would fire at once).
 */
export const NO_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The export's query for what the list shows: its filter rules and sort, with the search box sent as
 * the plain `search` parameter the list itself uses (as a filter rule the server would refuse it).
 */
export function exportQuery(
  filterValues: Record<string, unknown> | undefined,
  sort: SortPayload | undefined,
  format: ExportFormat,
): Record<string, string> {
  const { filter, query } = splitFilter(filterValues, ['search']);
  const rules = toFilters(filter);
  const order = toSort(sort);
  return {
    export_format: format,
    ...(order ? { sort: order } : {}),
    ...(rules ? { filters: JSON.stringify(rules) } : {}),
    ...(typeof query.search === 'string' ? { search: query.search } : {}),
  };
}

/**
 * A row's complaint in the reader's language: a `validation.*` key, else a phrase of the error
 * catalogue (`user not found`), else as the server wrote it.
 */
export function rowMessage(message: string, translate: Translate): string {
  return hasTranslation(translate, message) ? translate(message) : errorText({ message }, translate);
}

/** "Row 7: value — Invalid value", one line per row error the server listed. */
export function rowErrorLines(result: Pick<IdentifierImportResult, 'errors'>, translate: Translate): string[] {
  return result.errors.map((e) =>
    translate('identifiers.import.row_error', { row: e.row, field: e.field, message: rowMessage(e.message, translate) }),
  );
}

export interface ImportSummary {
  severity: 'success' | 'warning' | 'info';
  /** Sentences, each a translated text. */
  lines: string[];
}

/**
 * What an import did, or what its attempt found, in sentences: the counts of written rows (or of
 * duplicates waiting for an answer), then how many rows had errors and were left out.
 */
export function importSummary(result: IdentifierImportResult, translate: Translate): ImportSummary {
  if (result.status === 'cancelled') return { severity: 'info', lines: [translate('identifiers.import.cancelled')] };
  const lines =
    result.status === 'duplicates'
      ? [
          translate('identifiers.import.duplicates_found', { smart_count: result.duplicates_total }),
          ...(result.duplicates_total > result.duplicates.length
            ? [translate('identifiers.import.duplicates_first', { shown: result.duplicates.length, total: result.duplicates_total })]
            : []),
        ]
      : [
          translate('identifiers.import.done', {
            created: result.created,
            updated: result.updated,
            skipped: result.skipped,
          }),
        ];
  if (result.errors_total > 0) lines.push(translate('identifiers.import.errors', { smart_count: result.errors_total }));
  if (result.errors_total > result.errors.length) {
    lines.push(translate('identifiers.import.first_errors', { shown: result.errors.length, total: result.errors_total }));
  }
  const severity = result.status === 'duplicates' || result.errors_total > 0 ? 'warning' : 'success';
  return { severity, lines };
}

/** True when the import wrote something the list should show. */
export const changedAnything = (result: IdentifierImportResult): boolean => result.created + result.updated > 0;
