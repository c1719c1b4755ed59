/**
 * The ingest log's fdatasync thread (logSync.ts): it syncs the descriptors it is sent, one at a
 * time, and answers each. A thread of its own, so an acknowledgement never waits for a libuv pool
 * thread held by a DuckDB query or a Parquet write.
 */
import { fdatasyncSync, readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

// This thread's id (Linux: /proc/thread-self names it), so that its priority is left alone.
try {
  parentPort!.postMessage({ tid: Number(readlinkSync('/proc/thread-self').split('/').pop()) });
} catch {
  // Not Linux.
}

parentPort!.on('message', ({ id, fd }: { id: number; fd: number }) => {
  try {
    fdatasyncSync(fd);
    parentPort!.postMessage({ id, error: null });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    parentPort!.postMessage({ id, error: { message: err.message, code: err.code ?? null } });
  }
});
