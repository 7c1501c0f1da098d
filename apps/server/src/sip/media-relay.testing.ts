import { existsSync } from 'node:fs';
import { type RtpengineProcess, spawnRtpengine } from './rtpengine-process.js';

/**
 * A throw-away rtpengine (Debian's rtpengine-daemon, userspace only) for tests: loopback media,
 * its NG control on a free port, RTP ports in a range of its own. Not used in production.
 */

export const RTPENGINE_BIN = '/usr/bin/rtpengine';

export const rtpengineInstalled = (): boolean => existsSync(RTPENGINE_BIN);

export type { RtpengineProcess } from './rtpengine-process.js';

/** An rtpengine on the loopback; its RTP ports: `ports`, or 100 even-aligned ones somewhere in 30000-49999. */
export async function startRtpengine(ports?: { min: number; max: number }): Promise<RtpengineProcess> {
  const min = 30000 + 2 * Math.floor(Math.random() * 9900);
  return spawnRtpengine({ bin: RTPENGINE_BIN, bindAddress: '127.0.0.1', ports: ports ?? { min, max: min + 99 } });
}
