import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp, { type Metadata } from 'sharp';
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

/**
 * An uploaded picture is decoded and stored as a copy of its own making, never as sent: a small file
 * may announce an enormous canvas (a 30000×30000 PNG is under a megabyte), which every browser and
 * panel showing it would have to decode. Dimensions are read from the header before any pixel is,
 * a canvas past the limit is refused, and what is kept fits in MAX_STORED_IMAGE_SIDE on each side.
 */
export const MAX_IMAGE_SIDE = 12_000;
export const MAX_IMAGE_PIXELS = 40_000_000;
export const MAX_STORED_IMAGE_SIDE = 2048;

const refused = (message: string, params?: Record<string, unknown>) =>
  new AppError('invalid_file', [{ field: 'image', message, ...(params ? { params } : {}) }]);

/** The picture to store for an upload: checked by its header, re-encoded in its own format, at most MAX_STORED_IMAGE_SIDE a side. */
export async function storableImage(buf: Buffer): Promise<{ type: string; ext: string; data: Buffer }> {
  const kind = sniffImage(buf);
  const animated = kind.ext === 'gif' || kind.ext === 'webp';
  let meta: Metadata;
  try {
    meta = await sharp(buf, { animated, limitInputPixels: false }).metadata();
  } catch {
    throw refused('the image cannot be read');
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const frames = meta.pages ?? 1;
  if (!width || !height) throw refused('the image cannot be read');
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height * frames > MAX_IMAGE_PIXELS)
    throw refused('the image is too large: at most {side} pixels a side and {megapixels} megapixels', {
      side: MAX_IMAGE_SIDE,
      megapixels: MAX_IMAGE_PIXELS / 1_000_000,
    });
  try {
    const img = sharp(buf, { animated, limitInputPixels: MAX_IMAGE_PIXELS })
      // A photo taken sideways is stored the way it is seen; the orientation tag goes with the rest of the metadata.
      .rotate()
      .resize({ width: MAX_STORED_IMAGE_SIDE, height: MAX_STORED_IMAGE_SIDE, fit: 'inside', withoutEnlargement: true });
    const out =
      kind.ext === 'png'
        ? img.png()
        : kind.ext === 'jpg'
          ? img.jpeg({ quality: 88, mozjpeg: true })
          : kind.ext === 'gif'
            ? img.gif()
            : img.webp();
    return { ...kind, data: await out.toBuffer() };
  } catch {
    throw refused('the image cannot be read');
  }
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
