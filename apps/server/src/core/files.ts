import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from './errors.js';

const IMAGE_TYPES: { type: string; ext: string; magic: number[] }[] = [
  { type: 'image/png', ext: 'png', magic: [0x89, 0x50, 0x4e, 0x47] },
  { type: 'image/jpeg', ext: 'jpg', magic: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', ext: 'gif', magic: [0x47, 0x49, 0x46, 0x38] },
  { type: 'image/webp', ext: 'webp', magic: [0x52, 0x49, 0x46, 0x46] },
];

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Recognises an image by its first bytes, never by the name or type the client claims. */
export function sniffImage(buf: Buffer): { type: string; ext: string } {
  const hit = IMAGE_TYPES.find((t) => t.magic.every((b, i) => buf[i] === b));
  if (!hit) throw new AppError('invalid_file', [{ field: 'image', message: 'file must be a PNG, JPEG, GIF or WebP image' }]);
  return hit;
}

/** Files (avatars, logos, audio, certificates) under DATA_DIR/files, addressed by a relative key. */
export class FileStore {
  constructor(private readonly root: string) {}

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new AppError('not_found');
    return full;
  }

  async put(folder: string, ext: string, data: Buffer): Promise<string> {
    const key = `${folder}/${randomUUID()}.${ext}`;
    const full = this.resolve(key);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, data);
    return key;
  }

  /** Writes a file back at the key it had (a backup restoring it); never over an existing file. */
  async putAt(key: string, data: Buffer): Promise<void> {
    const full = this.resolve(key);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, data, { flag: 'wx' });
  }

  /** The file at `key`, or null when there is none. */
  async find(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.resolve(key));
    } catch {
      return null;
    }
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.resolve(key));
    } catch {
      throw new AppError('not_found');
    }
  }

  async remove(key: string | null | undefined): Promise<void> {
    if (key) await rm(this.resolve(key), { force: true });
  }
}
