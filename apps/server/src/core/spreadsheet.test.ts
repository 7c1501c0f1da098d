import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { checkXlsx, ErrorList, ImportSlots, rowLimiter, SPREADSHEET_LIMITS, sheetRows } from './spreadsheet.js';
import { cleanStaleUploads, uploadPath } from './uploads.js';

// Issue 9: upload bombs. Each file is built here: an archive whose parts expand far beyond their
// size, a huge shared string, XML entities, a truncated archive.

const dir = mkdtempSync(path.join(tmpdir(), 'atrium-sheet-'));
const save = (name: string, data: Buffer) => {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
};

/** A zip of deflated entries, written by hand so a test can make any archive. */
function zip(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const packed = zlib.deflateRawSync(e.data);
    const crc = zlib.crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

async function refusal(file: string): Promise<string> {
  try {
    await checkXlsx(file);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const [first] = ((e as AppError).details ?? []) as { message: string }[];
    return first?.message ?? '';
  }
  throw new Error('the file was accepted');
}

describe('checkXlsx', () => {
  it('accepts an ordinary workbook', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('s').addRow(['a', 1, new Date()]);
    await checkXlsx(save('ok.xlsx', Buffer.from(await wb.xlsx.writeBuffer())));
  });

  it('refuses a part that expands beyond the limit, reading no more of it than the limit', async () => {
    const bomb = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(SPREADSHEET_LIMITS.maxExpandedBytes + 1024 * 1024, 0x20) }]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    expect(await refusal(save('bomb.xlsx', bomb))).toBe('the spreadsheet expands beyond {max} MB');
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a shared string table beyond its limit (the 450 MB shared string of the report)', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('s').addRow(['x'.repeat(SPREADSHEET_LIMITS.maxSharedStringsBytes + 1)]);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    expect(file.length).toBeLessThan(1024 * 1024);
    expect(await refusal(save('strings.xlsx', file))).toBe('the spreadsheet expands beyond {max} MB');
  });

  it('refuses XML that declares entities', async () => {
    const xml = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><worksheet>&lol2;</worksheet>',
    );
    expect(await refusal(save('entities.xlsx', zip([{ name: 'xl/worksheets/sheet1.xml', data: xml }])))).toBe(
      'the spreadsheet declares XML entities',
    );
  });

  it('refuses a truncated archive and a file that is no archive', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('s').addRow(['a']);
    const whole = Buffer.from(await wb.xlsx.writeBuffer());
    expect(await refusal(save('cut.xlsx', whole.subarray(0, Math.floor(whole.length / 2))))).toBe('file must be an xlsx spreadsheet');
    expect(await refusal(save('text.xlsx', Buffer.from('login,name\nx,y\n')))).toBe('file must be an xlsx spreadsheet');
  });
});

describe('reading a workbook', () => {
  it("reads a sheet stored before the workbook part (the order is the producer's: exceljs' own writer varies it)", async () => {
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const rels = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';
    const type = (t: string) => `http://schemas.openxmlformats.org/officeDocument/2006/relationships/${t}`;
    const cell = (ref: string, i: number) => `<c r="${ref}" t="s"><v>${i}</v></c>`;
    const part = (name: string, xml: string) => ({
      name,
      data: Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${xml}`),
    });
    const file = save(
      'sheet-before-workbook.xlsx',
      zip([
        part(
          '[Content_Types].xml',
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>',
        ),
        part(
          '_rels/.rels',
          `<Relationships ${rels}><Relationship Id="rId1" Type="${type('officeDocument')}" Target="xl/workbook.xml"/></Relationships>`,
        ),
        part(
          'xl/_rels/workbook.xml.rels',
          `<Relationships ${rels}><Relationship Id="rId1" Type="${type('worksheet')}" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${type('sharedStrings')}" Target="sharedStrings.xml"/></Relationships>`,
        ),
        part(
          'xl/sharedStrings.xml',
          `<sst ${main} count="4" uniqueCount="4"><si><t>name</t></si><si><t>value</t></si><si><t>Gate</t></si><si><t>C5C5D9</t></si></sst>`,
        ),
        part(
          'xl/worksheets/sheet1.xml',
          `<worksheet ${main}><sheetData><row r="1">${cell('A1', 0)}${cell('B1', 1)}</row><row r="2">${cell('A2', 2)}${cell('B2', 3)}</row></sheetData></worksheet>`,
        ),
        part(
          'xl/workbook.xml',
          `<workbook ${main} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="identifiers" sheetId="1" r:id="rId1"/></sheets></workbook>`,
        ),
      ]),
    );
    const rows: unknown[][] = [];
    for await (const row of sheetRows(file)) rows.push(row.values.slice(1));
    expect(rows).toEqual([
      ['name', 'value'],
      ['Gate', 'C5C5D9'],
    ]);
  });
});

describe('row limits, error lists, import slots, stale uploads', () => {
  it('refuses a sheet beyond the row and cell limits', () => {
    const limit = rowLimiter();
    expect(() => limit(SPREADSHEET_LIMITS.maxRows, 10)).not.toThrow();
    expect(() => limit(SPREADSHEET_LIMITS.maxRows + 1, 10)).toThrow(AppError);
    expect(() => limit(2, SPREADSHEET_LIMITS.maxCellsPerRow + 1)).toThrow(AppError);
  });

  it('keeps the first errors and counts them all', () => {
    const list = new ErrorList<number>(3);
    for (let i = 0; i < 100_000; i++) list.push(i);
    expect(list.items).toEqual([0, 1, 2]);
    expect(list.total).toBe(100_000);
  });

  it('runs at most its number of imports at once and refuses the next', async () => {
    const slots = new ImportSlots(2);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const a = slots.run(() => gate);
    const b = slots.run(() => gate);
    await expect(slots.run(async () => 1)).rejects.toMatchObject({ code: 'imports_busy' });
    release();
    await Promise.all([a, b]);
    await expect(slots.run(async () => 1)).resolves.toBe(1);
  });

  it('removes the uploads of processes that no longer run, keeping its own and those of other machines', async () => {
    const data = mkdtempSync(path.join(tmpdir(), 'atrium-uploads-'));
    const host = hostname().replace(/[^\w.-]/g, '-');
    const dead = path.join(data, 'tmp', `${host}-999999`);
    const deadBefore = path.join(data, 'tmp', '999998');
    // Another machine's instance sharing DATA_DIR: its process id means nothing here.
    const elsewhere = path.join(data, 'tmp', 'other-machine-999999');
    const mine = path.join(data, 'tmp', String(process.pid));
    for (const d of [dead, deadBefore, elsewhere, mine]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(dead, 'left.xlsx'), 'x');
    writeFileSync(path.join(elsewhere, 'reading.xlsx'), 'x');
    writeFileSync(path.join(data, 'tmp', 'loose.xlsx'), 'x');
    writeFileSync(path.join(mine, 'reading.xlsx'), 'x');
    expect(await cleanStaleUploads(data)).toBe(3);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(deadBefore)).toBe(false);
    expect(existsSync(path.join(elsewhere, 'reading.xlsx'))).toBe(true);
    expect(existsSync(path.join(mine, 'reading.xlsx'))).toBe(true);
    const upload = await uploadPath(data, '.xlsx');
    expect(path.basename(path.dirname(upload))).toBe(`${host}-${process.pid}`);
    expect(await cleanStaleUploads(data)).toBe(0);
  });
});
