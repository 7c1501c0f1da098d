import { EMERGENCY_DEFAULTS, type EmergencyTone, VALIDATION_MESSAGES as M } from '@atrium/contract';
import { AppError } from '../../core/errors.js';

/** Sound formats recognised by their first bytes, never by the name or type the client claims. */
const AUDIO_TYPES: { type: string; ext: string; match: (b: Buffer) => boolean }[] = [
  { type: 'audio/wav', ext: 'wav', match: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WAVE' },
  { type: 'audio/ogg', ext: 'ogg', match: (b) => b.toString('latin1', 0, 4) === 'OggS' },
  { type: 'audio/flac', ext: 'flac', match: (b) => b.toString('latin1', 0, 4) === 'fLaC' },
  {
    type: 'audio/mp4',
    ext: 'm4a',
    match: (b) => b.toString('latin1', 4, 8) === 'ftyp' && /^(M4A |M4B |mp42|isom|dash)$/.test(b.toString('latin1', 8, 12)),
  },
  // MP3: an ID3 tag, or an MPEG audio frame header (11 sync bits, a layer other than "reserved").
  {
    type: 'audio/mpeg',
    ext: 'mp3',
    match: (b) => b.toString('latin1', 0, 3) === 'ID3' || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0 && ((b[1] ?? 0) & 0x06) !== 0),
  },
];

export const AUDIO_MIN_BYTES = EMERGENCY_DEFAULTS.file_min_kb * 1024;
export const AUDIO_MAX_BYTES = EMERGENCY_DEFAULTS.file_max_kb * 1024;

const sizeIssue = {
  field: 'file',
  message: M.file_size,
  params: { min: EMERGENCY_DEFAULTS.file_min_kb, max: EMERGENCY_DEFAULTS.file_max_kb },
};

/** Checks an alert's sound: its size within the bounds in kb (spec comms §5) and a sound format by its bytes. */
export function checkAudio(buf: Buffer): { type: string; ext: string } {
  if (buf.length > AUDIO_MAX_BYTES) throw new AppError('payload_too_large', [sizeIssue]);
  if (buf.length < AUDIO_MIN_BYTES) throw new AppError('invalid_file', [sizeIssue]);
  const hit = AUDIO_TYPES.find((t) => t.match(buf));
  if (!hit) throw new AppError('invalid_file', [{ field: 'file', message: 'file must be a WAV, MP3, OGG, FLAC or M4A sound' }]);
  return hit;
}

export const audioExt = (type: string | null): string => AUDIO_TYPES.find((t) => t.type === type)?.ext ?? 'bin';

const RATE = 8000;

/** A 16-bit mono WAV of `seconds` of a warning tone the server makes itself (POST /emergency/generate). */
export function generateTone(tone: EmergencyTone, seconds: number): Buffer {
  const n = RATE * seconds;
  const data = Buffer.alloc(n * 2);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    let freq: number;
    let gain = 0.6;
    if (tone === 'siren') {
      // A wail rising and falling between 600 and 1200 Hz every two seconds.
      freq = 900 + 300 * Math.sin(Math.PI * t);
    } else if (tone === 'beeps') {
      // 1 kHz, a quarter second on, a quarter second off.
      freq = 1000;
      gain = t % 0.5 < 0.25 ? 0.6 : 0;
    } else {
      // Two falling notes each second, fading.
      freq = t % 1 < 0.5 ? 880 : 660;
      gain = 0.6 * (1 - (t % 0.5) * 1.6);
    }
    phase += (2 * Math.PI * freq) / RATE;
    data.writeInt16LE(Math.round(Math.sin(phase) * gain * 32767), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
