import { createReadStream } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import yauzl from 'yauzl';
import { AppError } from './errors.js';

/**
 * Limits of every uploaded spreadsheet (structure, identifiers, devices, backups). An xlsx is a zip
 * of XML: 464 KB can expand to gigabytes, and XML can declare entities. Each upload is checked here
 * before a parser holds any of it in memory.
 */
export const SPREADSHEET_LIMITS = {
  /** All entries together, expanded. */
  maxExpandedBytes: 64 * 1024 * 1024,
  /** The shared strings (every distinct text of the workbook), expanded: the part a parser keeps in memory. */
  maxSharedStringsBytes: 16 * 1024 * 1024,
  maxEntries: 2000,
  /** Rows of the sheet read (a header and 100,000 records). */
  maxRows: 100_001,
  /** Cells of one row. */
  maxCellsPerRow: 256,
  /** Row errors answered in full; the rest are counted. */
  maxReportedErrors: 100,
  /** Imports read at once by one instance; more are refused until one ends. */
  maxConcurrentImports: 2,
} as const;

const invalid = (message: string, params?: Record<string, unknown>) =>
  new AppError('invalid_file', [{ field: 'file', message, ...(params ? { params } : {}) }]);

/** Whether a file starts like a zip archive (an xlsx) rather than text (a csv). */
export async function looksLikeZip(file: string): Promise<boolean> {
  const fh = await openFile(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    return head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await fh.close();
  }
}

/**
 * Reads every entry of an xlsx as a stream and counts what it expands to, stopping at the first
 * limit crossed (the sizes an archive declares may lie, so the inflated bytes are counted), and
 * refuses XML that declares a DOCTYPE or entities. A broken or truncated archive is a 400, as is
 * anything beyond SPREADSHEET_LIMITS; nothing is kept in memory beyond one chunk.
 */
export async function checkXlsx(file: string, limits = SPREADSHEET_LIMITS): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, validateEntrySizes: true, autoClose: true });
  } catch {
    throw invalid('file must be an xlsx spreadsheet');
  }
  let total = 0;
  let entries = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (++entries > limits.maxEntries) return reject(invalid('the spreadsheet has too many parts'));
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        const isSharedStrings = /(^|\/)sharedStrings\.xml$/i.test(entry.fileName);
        const isXml = /\.(xml|rels|vml)$/i.test(entry.fileName);
        zip.openReadStream(entry, (err, stream) => {
          if (err) return reject(err);
          let size = 0;
          let head = '';
          stream.on('data', (chunk: Buffer) => {
            size += chunk.length;
            total += chunk.length;
            if (isXml && head.length < 65_536) {
              head += chunk.toString('latin1', 0, Math.min(chunk.length, 65_536));
              if (/<!DOCTYPE|<!ENTITY/i.test(head)) {
                stream.destroy();
                return reject(invalid('the spreadsheet declares XML entities'));
              }
            }
            if (total > limits.maxExpandedBytes || (isSharedStrings && size > limits.maxSharedStringsBytes)) {
              stream.destroy();
              reject(invalid('the spreadsheet expands beyond {max} MB', { max: Math.round(limits.maxExpandedBytes / 1048576) }));
            }
          });
          stream.on('error', reject);
          stream.on('end', () => zip.readEntry());
        });
      });
      zip.readEntry();
    });
  } catch (e) {
    zip.close();
    if (e instanceof AppError) throw e;
    throw invalid('file must be an xlsx spreadsheet');
  }
}

/** Counts rows and cells as a sheet is read; beyond the limits the upload is refused. */
export function rowLimiter(limits = SPREADSHEET_LIMITS): (rowNumber: number, cells: number) => void {
  return (rowNumber, cells) => {
    if (rowNumber > limits.maxRows) throw invalid('the spreadsheet has more than {max} rows', { max: limits.maxRows - 1 });
    if (cells > limits.maxCellsPerRow) throw invalid('a row has more than {max} cells', { max: limits.maxCellsPerRow });
  };
}

/** At most `max` imports at once in this instance; the next one is refused with 503 until one ends. */
export class ImportSlots {
  private busy = 0;
  constructor(private readonly max: number = SPREADSHEET_LIMITS.maxConcurrentImports) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy >= this.max) throw new AppError('imports_busy');
    this.busy++;
    try {
      return await work();
    } finally {
      this.busy--;
    }
  }
}

/** Keeps the first `max` row errors and counts all of them: a file of 100,000 bad rows answers a short list. */
export class ErrorList<T> {
  readonly items: T[] = [];
  total = 0;
  constructor(private readonly max: number = SPREADSHEET_LIMITS.maxReportedErrors) {}
  push(e: T): void {
    this.total++;
    if (this.items.length < this.max) this.items.push(e);
  }
}

/** The import slots of this process, shared by every area's imports. */
export const importSlots = new ImportSlots();

/** The text of a cell, whatever form exceljs gives it (rich text, hyperlink, formula result); null when empty. */
export function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const o = v as { text?: unknown; result?: unknown; richText?: { text: string }[] };
    if (o.richText) return cellText(o.richText.map((r) => r.text).join(''));
    if (o.text !== undefined) return cellText(o.text);
    if (o.result !== undefined) return cellText(o.result);
    return null;
  }
  const s = String(v).trim();
  return s === '' ? null : s;
}

/**
 * The rows of an uploaded table: an xlsx workbook's first sheet, or a CSV file (what the exports
 * write, so an export imports back in either format). Read as a stream: `values` are 1-based like
 * exceljs's (values[1] is column A), empty rows skipped, the row limits applied. A file that is
 * neither answers 400 "file must be an xlsx or csv spreadsheet".
 */
export async function* sheetRows(file: string, limits = SPREADSHEET_LIMITS): AsyncGenerator<{ number: number; values: unknown[] }> {
  if (!(await looksLikeZip(file))) {
    yield* csvRows(file, limits);
    return;
  }
  yield* xlsxRows(file, limits);
}

/**
 * exceljs' streaming reader of a workbook, its worksheets emitted one by one. exceljs reads a
 * worksheet that comes before `xl/workbook.xml` in the archive against a workbook model it has not
 * read yet and fails with a TypeError (`_parseWorksheet`: `this.model.sheets`), which answered a
 * valid file with a 500. The order of the entries is the producer's, and exceljs' own writer varies
 * it from one run to the next. So the reader starts with an empty model, replaced once the workbook
 * part is read: such a sheet only misses its name and id, which no import reads.
 */
export async function xlsxReader(file: string) {
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'cache',
    worksheets: 'emit',
    entries: 'emit',
  });
  const unread = reader as unknown as { model?: { sheets: unknown[] } };
  unread.model ??= { sheets: [] };
  return reader;
}

async function* xlsxRows(file: string, limits: typeof SPREADSHEET_LIMITS): AsyncGenerator<{ number: number; values: unknown[] }> {
  await checkXlsx(file, limits);
  const limitRow = rowLimiter(limits);
  const reader = await xlsxReader(file);
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = row.values as unknown[];
        limitRow(row.number, values.length);
        if (!values.some((v) => cellText(v) !== null)) continue;
        yield { number: row.number, values };
      }
      break; // the first sheet only
    }
  } catch (e) {
    if (e instanceof Error && !(e instanceof AppError) && /zip|central directory|invalid|signature/i.test(e.message)) {
      throw new AppError('invalid_file', [{ field: 'file', message: 'file must be an xlsx spreadsheet' }]);
    }
    throw e;
  }
}

/** A CSV cell the export defused (a leading `'` before a formula character, see export.ts csvField), restored. */
const undefused = (cell: string): string => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

/** The separator of a CSV: the export's comma, or the semicolon spreadsheets write in locales whose decimal mark is a comma. */
function separatorOf(firstLine: string): ',' | ';' {
  const outsideQuotes = firstLine.replace(/"[^"]*"/g, '');
  return (outsideQuotes.match(/;/g)?.length ?? 0) > (outsideQuotes.match(/,/g)?.length ?? 0) ? ';' : ',';
}

/**
 * The records of a CSV file (RFC 4180: quoted fields may hold separators, quotes and line breaks),
 * read chunk by chunk so memory holds one record. Text that is not UTF-8, or holds NUL bytes (a
 * binary file), is refused.
 */
export async function* csvRows(file: string, limits = SPREADSHEET_LIMITS): AsyncGenerator<{ number: number; values: unknown[] }> {
  const notCsv = () => invalid('file must be an xlsx or csv spreadsheet');
  const limitRow = rowLimiter(limits);
  const decoder = new StringDecoder('utf8');
  let sep: ',' | ';' | null = null;
  let pending = '';
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  let afterQuote = false;
  let number = 0;
  let first = true;
  const finishRecord = () => {
    record.push(undefused(cell));
    cell = '';
    number++;
    const values = [undefined, ...record.map((c) => (c === '' ? null : c))];
    record = [];
    limitRow(number, values.length);
    return values;
  };
  const parse = function* (text: string, final: boolean): Generator<{ number: number; values: unknown[] }> {
    let i = 0;
    for (; i < text.length; i++) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"') {
          if (i + 1 >= text.length && !final) break; // an escaped quote may follow in the next chunk
          if (text[i + 1] === '"') {
            cell += '"';
            i++;
          } else {
            quoted = false;
            afterQuote = true;
          }
        } else cell += ch;
        continue;
      }
      if (ch === '"' && cell === '' && !afterQuote) quoted = true;
      else if (ch === sep) {
        record.push(undefused(cell));
        cell = '';
        afterQuote = false;
      } else if (ch === '\n' || ch === '\r') {
        if (ch === '\r' && i + 1 >= text.length && !final) break; // a \r\n split over two chunks
        if (ch === '\r' && text[i + 1] === '\n') i++;
        afterQuote = false;
        const values = finishRecord();
        if (values.some((v) => v !== null && v !== undefined)) yield { number, values };
      } else cell += ch;
    }
    pending = text.slice(i);
  };
  for await (const chunk of createReadStream(file)) {
    const buffer = chunk as Buffer;
    if (buffer.includes(0)) throw notCsv();
    let text = pending + decoder.write(buffer);
    if (text.includes('\uFFFD')) throw notCsv();
    if (first) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const eol = text.search(/[\r\n]/);
      if (eol < 0 && text.length < 64 * 1024) {
        pending = text;
        continue;
      }
      sep = separatorOf(eol < 0 ? text : text.slice(0, eol));
      first = false;
    }
    yield* parse(text, false);
  }
  const rest = pending + decoder.end();
  if (first) sep = separatorOf(rest.replace(/^\uFEFF/, ''));
  const tail = first ? rest.replace(/^\uFEFF/, '') : rest;
  if (tail.includes('\uFFFD')) throw notCsv();
  yield* parse(tail, true);
  if (quoted) throw invalid('a quoted csv field is not closed');
  if (cell !== '' || record.length > 0) {
    const values = finishRecord();
    if (values.some((v) => v !== null && v !== undefined)) yield { number, values };
  }
}
