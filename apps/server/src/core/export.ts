import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import type { FastifyReply } from 'fastify';

/** A cell of a CSV line: quoted when needed; a leading formula character defused so a spreadsheet shows text. */
export const csvField = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

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
  spec = { ...spec, pages };
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
