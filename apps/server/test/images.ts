import { crc32 } from '../src/modules/settings/apple-wallet.service.js';

/** A PNG whose header (IHDR) announces a `width`×`height` canvas while its data stays as it was, its checksum made right. */
export function announcingCanvas(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}
