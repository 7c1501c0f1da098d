import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import type { FastifyReply } from 'fastify';

/** A cell of a CSV line: quoted when needed; a leading formula character defused so a spreadsheet shows text. */
export const csvField = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** A UTC instant as Atrium writes it (`toISOString`): what an export shows in the project's time zone. */
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * An instant as the wall clock of `timeZone` reads it, with its offset: `2026-11-23T22:30:05+03:00`
 * (still one exact instant for a program reading the file). Other values are left as they are.
 */
export function zonedCell(v: unknown, timeZone: string): unknown {
  if (timeZone === 'UTC') return v;
  const at = v instanceof Date ? v : typeof v === 'string' && UTC_INSTANT.test(v) ? new Date(v) : null;
  if (!at || Number.isNaN(at.getTime())) return v;
  let parts: Record<string, string>;
  try {
    parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(at)
        .map((p) => [p.type, p.value]),
    );
  } catch {
    return v;
  }
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  const offset = Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${sign}${hh}:${mm}`;
}

/** The time zone of the caller's project (general settings), which exports write times in. */
async function callerTimeZone(reply: FastifyReply): Promise<string> {
  const projectId = (reply.request as { actor?: { projectId?: number } | null }).actor?.projectId;
  const settings = (reply.server as unknown as { services?: { projectSettings?: { timeZoneOf(id: number): Promise<string> } } }).services
    ?.projectSettings;
  return projectId && settings ? settings.timeZoneOf(projectId) : 'UTC';
}

export interface ExportSpec<Row> {
  format: 'csv' | 'xlsx';
  /** File name without extension; today's date is added. */
  name: string;
  columns: readonly string[];
  cell: (row: Row, column: string) => unknown;
  /** Pages of rows, read one after the other while the answer streams out. */
  pages: AsyncIterable<readonly Row[]>;
}

/**
 * Streams a download (csv or xlsx) page by page: the answer starts at once and memory holds one
 * page, whatever the number of rows. A failure midway cuts the download (the file is then incomplete,
 * which the client sees as a network error) rather than sending a file that looks whole.
 */
export async function sendExport<Row>(reply: FastifyReply, spec: ExportSpec<Row>): Promise<FastifyReply> {
  // The first page is read before the answer starts: a bad filter or sort is still a 400, not a cut download.
  const iterator = spec.pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  const pages: AsyncIterable<readonly Row[]> = {
    [Symbol.asyncIterator]: () => {
      let sentFirst = false;
      return {
        next: async () => {
          if (!sentFirst) {
            sentFirst = true;
            return first;
          }
          return first.done ? first : iterator.next();
        },
      };
    },
  };
  // Times are written in the project's time zone (general settings), with their offset.
  const timeZone = await callerTimeZone(reply);
  const rawCell = spec.cell;
  spec = { ...spec, pages, cell: (row, column) => zonedCell(rawCell(row, column), timeZone) };
  const out = new PassThrough();
  const stamp = new Date().toISOString().slice(0, 10);
  if (spec.format === 'csv') {
    reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${spec.name}-${stamp}.csv"`).send(out);
    void (async () => {
      out.write(`${spec.columns.join(',')}\n`);
      for await (const page of spec.pages) {
        if (!page.length) continue;
        const chunk = page.map((r) => spec.columns.map((c) => csvField(spec.cell(r, c))).join(',')).join('\n');
        if (!out.write(`${chunk}\n`)) await new Promise((r) => out.once('drain', r));
      }
      out.end();
    })().catch((e) => out.destroy(e as Error));
    return reply;
  }
  reply
    .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    .header('content-disposition', `attachment; filename="${spec.name}-${stamp}.xlsx"`)
    .send(out);
  void (async () => {
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const sheet = book.addWorksheet(spec.name.slice(0, 31));
    sheet.addRow([...spec.columns]).commit();
    for await (const page of spec.pages) for (const r of page) sheet.addRow(spec.columns.map((c) => spec.cell(r, c) ?? '')).commit();
    sheet.commit();
    await book.commit();
  })().catch((e) => out.destroy(e as Error));
  return reply;
}
