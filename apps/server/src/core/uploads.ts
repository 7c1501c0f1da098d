import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Uploads being read wait in `<data>/tmp/<host>-<pid>/` and are removed when their call ends. A
 * process that crashed leaves its folder behind: at start every folder of a process of this machine
 * no longer running is removed, so temporary files never accumulate. Instances on several machines
 * share one DATA_DIR (deploy/): a folder of another machine is left to that machine, whose process
 * ids this one cannot see.
 */
const root = (dataDir: string) => path.join(dataDir, 'tmp');
const host = os.hostname().replace(/[^\w.-]/g, '-');
const ownFolder = () => `${host}-${process.pid}`;

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes what crashed processes of this machine left in the upload folder; answers how many entries went. */
export async function cleanStaleUploads(dataDir: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(root(dataDir), { withFileTypes: true }).catch(() => [])) {
    // `<host>-<pid>`, or `<pid>` as folders were named before several machines shared the directory.
    const folder = entry.isDirectory() ? /^(?:(.+)-)?(\d+)$/.exec(entry.name) : null;
    if (folder) {
      const [, of, pid] = folder;
      if (of !== undefined && of !== host) continue;
      if (Number(pid) === process.pid || running(Number(pid))) continue;
    }
    await rm(path.join(root(dataDir), entry.name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** A new temporary file path for an upload of this process (`ext` like '.xlsx'). */
export async function uploadPath(dataDir: string, ext: string): Promise<string> {
  const dir = path.join(root(dataDir), ownFolder());
  await mkdir(dir, { recursive: true });
  return path.join(dir, `${randomUUID()}${ext}`);
}
