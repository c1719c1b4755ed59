/**
 * Files written so that a crash leaves either the old file or the whole new one, never a part:
 * temp, fsync, rename, fsync the directory. The store's secret, the start's write probe and the
 * quarantine's set-aside requests use it.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `data` to `path` so that `path` is either absent/old or whole: temp, fsync, rename, fsync dir. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    // On a regular file a short write means the disk (or the file-size limit) is full.
    if (writeSync(fd, bytes) !== bytes.length)
      throw new Error(`short write to ${temp}: No space left on device, or the file size limit`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncDir(dirname(path));
}

/** Makes a directory's entries (a rename, a new file) durable. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
