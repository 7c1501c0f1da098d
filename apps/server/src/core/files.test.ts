import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { announcingCanvas } from '../../test/images.js';
import { MAX_STORED_IMAGE_SIDE, storableImage } from './files.js';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#336699' } });

describe('storableImage', () => {
  it('refuses a canvas past the limit from its header, whatever the file weighs', async () => {
    const one = await solid(1, 1).png().toBuffer();
    for (const [w, h] of [
      [30_000, 30_000],
      [20_000, 10],
      [7_000, 7_000],
    ] as const) {
      const err = await storableImage(announcingCanvas(one, w, h)).catch((e: unknown) => e);
      expect(err, `${w}×${h}`).toMatchObject({
        code: 'invalid_file',
        details: [{ field: 'image', message: expect.stringMatching(/too large/) }],
      });
    }
  });

  it('keeps a bounded copy in the format sent, the picture the same way up', async () => {
    const big = await solid(4000, 3000).jpeg().toBuffer();
    const kept = await storableImage(big);
    expect(kept.ext).toBe('jpg');
    expect(await sharp(kept.data).metadata()).toMatchObject({ format: 'jpeg', width: MAX_STORED_IMAGE_SIDE, height: 1536 });
    const small = await storableImage(await solid(40, 20).webp().toBuffer());
    expect(await sharp(small.data).metadata()).toMatchObject({ format: 'webp', width: 40, height: 20 });
    // EXIF orientation 6 (rotated 90°): stored as seen.
    const sideways = await solid(40, 20).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await sharp((await storableImage(sideways)).data).metadata()).toMatchObject({ width: 20, height: 40 });
  });

  it('refuses what only looks like an image', async () => {
    const fake = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('not a png at all')]);
    await expect(storableImage(fake)).rejects.toMatchObject({ code: 'invalid_file' });
    await expect(storableImage(Buffer.from('<svg onload="x()"/>'))).rejects.toMatchObject({ code: 'invalid_file' });
  });
});
