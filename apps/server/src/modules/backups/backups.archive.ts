import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { BACKUP_LIMITS, type BackupManifest, BackupManifestSchema } from '@atrium/contract';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { AppError } from '../../core/errors.js';

/** The one error every unreadable, foreign or tampered backup gets (spec entities §8); `reason` says which. */
export const invalidBackup = (reason: string, params?: Record<string, unknown>) =>
  new AppError('invalid_backup_image', [{ field: 'file', message: reason, ...(params ? { params } : {}) }]);

export const MANIFEST_FILE = 'manifest.json';
/** The manifest's signature: the hex HMAC-SHA256 of the manifest's bytes under the server's backup key. */
export const SIGNATURE_FILE = 'manifest.sig';

/**
 * Signs and checks backups. The manifest names every data file's SHA-256, so a MAC over the
 * manifest covers the whole archive: a checksum recomputed after an edit no longer makes an edited
 * file pass, since only the server holding the key can sign the new manifest.
 */
export class BackupSigner {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('atrium backup signatures v1').digest();
  }

  sign(manifest: Buffer): string {
    return createHmac('sha256', this.key).update(manifest).digest('hex');
  }

  verify(manifest: Buffer, signature: string | null): boolean {
    if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
    return timingSafeEqual(Buffer.from(this.sign(manifest), 'hex'), Buffer.from(signature, 'hex'));
  }
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A zip of the manifest and one JSON file per table; the manifest names each file's SHA-256. */
export async function writeArchive(
  manifest: Omit<BackupManifest, 'tables' | 'files'>,
  tables: { name: string; columns: string[]; json: string; rows: number }[],
  files: { key: string; data: Buffer }[] = [],
  signer?: BackupSigner,
): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const entries: BackupManifest['tables'] = {};
  const mtime = new Date(manifest.created_at);
  for (const t of tables) {
    const data = Buffer.from(t.json, 'utf8');
    const file = `data/${t.name}.json`;
    entries[t.name] = { file, rows: t.rows, columns: t.columns, sha256: sha256(data) };
    zip.addBuffer(data, file, { mtime });
  }
  const fileEntries: NonNullable<BackupManifest['files']> = {};
  files.forEach((f, i) => {
    fileEntries[f.key] = { file: `files/${i}`, sha256: sha256(f.data) };
    zip.addBuffer(f.data, `files/${i}`, { mtime });
  });
  const full: BackupManifest = { ...manifest, tables: entries, ...(files.length ? { files: fileEntries } : {}) };
  const manifestBytes = Buffer.from(JSON.stringify(full, null, 2), 'utf8');
  zip.addBuffer(manifestBytes, MANIFEST_FILE, { mtime });
  if (signer) zip.addBuffer(Buffer.from(signer.sign(manifestBytes), 'ascii'), SIGNATURE_FILE, { mtime });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A backup read back: its manifest, per table the JSON text of its rows, and its files by key (all checked against the manifest). */
export interface ReadArchive {
  manifest: BackupManifest;
  /** The manifest as stored, and its signature (null: none in the archive), for BackupSigner.verify. */
  manifestBytes: Buffer;
  signature: string | null;
  tables: Map<string, string>;
  files: Map<string, Buffer>;
}

/**
 * Reads a backup zip held in memory. Every entry is inflated as a stream and counted: beyond
 * BACKUP_LIMITS (entries, bytes expanded) it stops at once, whatever sizes the archive declares.
 * Only the manifest and the data files it names are accepted; each file must match its checksum.
 */
export async function readArchive(
  buf: Buffer,
  limits: { maxExpandedBytes: number; maxEntries: number } = BACKUP_LIMITS,
): Promise<ReadArchive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(buf, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, (err, z) =>
        err || !z ? reject(err) : resolve(z),
      ),
    );
  } catch {
    throw invalidBackup('the file is not a zip archive');
  }
  const files = new Map<string, Buffer>();
  let total = 0;
  let entries = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (++entries > limits.maxEntries) return reject(invalidBackup('the archive has too many entries'));
        const name = entry.fileName;
        if (
          name !== MANIFEST_FILE &&
          name !== SIGNATURE_FILE &&
          !/^data\/[a-z_]{1,64}\.json$/.test(name) &&
          !/^files\/\d{1,6}$/.test(name)
        ) {
          return reject(invalidBackup('the archive holds an unknown file'));
        }
        if (files.has(name)) return reject(invalidBackup('the archive holds a file twice'));
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => {
            total += chunk.length;
            if (total > limits.maxExpandedBytes) {
              stream.destroy();
              return reject(invalidBackup('the archive expands beyond {max} MB', { max: Math.round(limits.maxExpandedBytes / 1048576) }));
            }
            chunks.push(chunk);
          });
          stream.on('error', reject);
          stream.on('end', () => {
            files.set(name, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } catch (e) {
    zip.close();
    if (e instanceof AppError) throw e;
    throw invalidBackup('the archive is damaged');
  }

  const rawManifest = files.get(MANIFEST_FILE);
  if (!rawManifest) throw invalidBackup('the archive has no manifest');
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawManifest.toString('utf8'));
  } catch {
    throw invalidBackup('the manifest is not JSON');
  }
  const m = BackupManifestSchema.safeParse(parsed);
  if (!m.success) throw invalidBackup('the manifest is not an Atrium backup manifest');
  const manifest = m.data;
  const tables = new Map<string, string>();
  for (const [table, t] of Object.entries(manifest.tables)) {
    if (t.file !== `data/${table}.json`) throw invalidBackup('the manifest names a wrong file');
    const data = files.get(t.file);
    if (!data) throw invalidBackup('a data file is missing');
    if (sha256(data) !== t.sha256) throw invalidBackup('a data file does not match its checksum');
    tables.set(table, data.toString('utf8'));
  }
  const stored = new Map<string, Buffer>();
  for (const [key, f] of Object.entries(manifest.files ?? {})) {
    const data = files.get(f.file);
    if (!data) throw invalidBackup('a data file is missing');
    if (sha256(data) !== f.sha256) throw invalidBackup('a data file does not match its checksum');
    stored.set(key, data);
  }
  const named = new Set(Object.values(manifest.files ?? {}).map((f) => f.file));
  const signature = files.get(SIGNATURE_FILE)?.toString('ascii').trim() ?? null;
  if (named.size !== stored.size || files.size !== tables.size + 1 + stored.size + (signature === null ? 0 : 1)) {
    throw invalidBackup('the archive holds a file the manifest does not name');
  }
  return { manifest, manifestBytes: rawManifest, signature, tables, files: stored };
}
