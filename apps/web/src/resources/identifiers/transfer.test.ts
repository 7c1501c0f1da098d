import type { IdentifierImportResult } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import type { Translate } from '../../app/errors';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { changedAnything, exportQuery, importSummary, NO_TIMEOUT_MS, rowErrorLines, rowMessage } from './transfer';

const en = createI18nProvider('en').translate as Translate;
const ru = createI18nProvider('ru').translate as Translate;

const result = (over: Partial<IdentifierImportResult> = {}): IdentifierImportResult => ({
  status: 'imported',
  filepath: null,
  rows: 5,
  created: 3,
  updated: 0,
  skipped: 0,
  duplicates: [],
  duplicates_total: 0,
  errors: [],
  errors_total: 0,
  ...over,
});

describe('identifiers export query', () => {
  it('sends the search box as `search`, the other filters as rules, and the sort', () => {
    expect(exportQuery({ search: ' lobby ', type: 'card' }, { field: 'name', order: 'DESC' }, 'csv')).toEqual({
      export_format: 'csv',
      sort: '-name',
      search: 'lobby',
      filters: JSON.stringify({ match: 'match_all', rules: [{ field: 'type', operator: 'equals', value: 'card' }] }),
    });
  });
  it('leaves out an empty search and absent filters', () => {
    expect(exportQuery({ search: '  ' }, { field: 'name', order: 'ASC' }, 'xlsx')).toEqual({ export_format: 'xlsx', sort: 'name' });
    expect(exportQuery(undefined, undefined, 'xlsx')).toEqual({ export_format: 'xlsx' });
  });
});

describe('identifiers import: row errors', () => {
  it('translates validation keys and catalogue phrases, and keeps an unknown message as it came', () => {
    expect(rowMessage('validation.invalid_value', en)).toBe('Invalid value');
    expect(rowMessage('user not found', en)).toBe('User not found');
    expect(rowMessage('user not found', ru)).toBe('Пользователь не найден');
    expect(rowMessage('the cell is on fire', en)).toBe('the cell is on fire');
  });
  it('reads "Row N: field — message"', () => {
    const r = result({
      errors: [
        { row: 3, field: 'value', message: 'validation.invalid_value' },
        { row: 9, field: 'owner_login', message: 'user not found' },
      ],
      errors_total: 2,
    });
    expect(rowErrorLines(r, en)).toEqual(['Row 3: value — Invalid value', 'Row 9: owner_login — User not found']);
    expect(rowErrorLines(r, ru)[1]).toBe('Строка 9: owner_login — Пользователь не найден');
  });
});

describe('identifiers import: summary', () => {
  it('counts what an import wrote', () => {
    const s = importSummary(result({ rows: 6, created: 2, updated: 3, skipped: 1 }), en);
    expect(s).toEqual({ severity: 'success', lines: ['Imported. Created: 2, replaced: 3, skipped: 1.'] });
  });
  it('warns of rows with errors, and says when only the first are listed', () => {
    const s = importSummary(result({ errors: [{ row: 2, field: 'type', message: 'validation.invalid_value' }], errors_total: 250 }), en);
    expect(s.severity).toBe('warning');
    expect(s.lines.slice(1)).toEqual(['250 rows have errors and are not imported.', 'The first 1 of 250 are listed.']);
  });
  it('asks about duplicates before anything is written', () => {
    const s = importSummary(
      result({
        status: 'duplicates',
        filepath: '0f8fad5b-d9cb-469f-a165-70867728950e',
        created: 0,
        duplicates: [{ row: 2, type: 'card', value: '0004A1B2', existing_id: 7 }],
        duplicates_total: 1,
      }),
      en,
    );
    expect(s).toEqual({ severity: 'warning', lines: ['1 identifier of the file already exists. Nothing has been written yet.'] });
    const many = result({
      status: 'duplicates',
      duplicates: [{ row: 2, type: 'qr', value: 'x', existing_id: 1 }],
      duplicates_total: 5,
    });
    expect(importSummary(many, ru).lines).toEqual([
      '5 идентификаторов из файла уже существуют. Пока ничего не записано.',
      'Показаны первые 1 из 5.',
    ]);
  });
  it('reports a cancelled import, which changed nothing', () => {
    const cancelled = result({ status: 'cancelled', rows: 0, created: 0 });
    expect(importSummary(cancelled, en)).toEqual({ severity: 'info', lines: ['The import is cancelled: nothing was written.'] });
    expect(changedAnything(cancelled)).toBe(false);
    expect(changedAnything(result({ created: 0, updated: 1 }))).toBe(true);
  });
});

describe('identifiers import: no time-out', () => {
  it('arms the longest timer a browser honours (a longer one would fire at once)', () => {
    expect(NO_TIMEOUT_MS).toBe(2_147_483_647);
  });
});
