import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Uploads being read wait in `<data>/tmp/<pid>/` and are removed when their call ends. A process
 * that crashed leaves its folder behind: at start every folder of a process no longer running (on
 * this machine) is removed, so temporary files never accumulate.
 */
const root = (dataDir: string) => path.join(dataDir, 'tmp');

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes what crashed processes left in the upload folder; answers how many entries went. */
export async function cleanStaleUploads(dataDir: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(root(dataDir), { withFileTypes: true }).catch(() => [])) {
    const pid = entry.isDirectory() && /^\d+$/.test(entry.name) ? Number(entry.name) : null;
    if (pid !== null && (pid === process.pid || running(pid))) continue;
    await rm(path.join(root(dataDir), entry.name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** A new temporary file path for an upload of this process (`ext` like '.xlsx'). */
export async function uploadPath(dataDir: string, ext: string): Promise<string> {
  const dir = path.join(root(dataDir), String(process.pid));
  await mkdir(dir, { recursive: true });
  return path.join(dir, `${randomUUID()}${ext}`);
}
