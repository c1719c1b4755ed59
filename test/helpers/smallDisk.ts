/**
 * A small real filesystem for the disk-full tests: a tmpfs mounted in a private mount namespace
 * held by a keeper process (`unshare -m`), so nothing leaks into the host's mounts and it goes away
 * with the keeper. Servers run inside the namespace (`wrap`: `nsenter -t <keeper> -m`); the test
 * reaches the files through `/proc/<keeper>/root`. Needs root (the CI machine runs as root);
 * `smallDisk` returns the reason when it cannot be made.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface SmallDisk {
  /** The mount point, as processes inside the namespace see it. */
  dir: string;
  /** Prefix for a command to run inside the namespace. */
  wrap: string[];
  /** The host's path to `rel` on the small disk. */
  path(rel?: string): string;
  freeBytes(): number;
  /** Fills the disk until `leave` bytes are free (a file named `filler`, or `name`). */
  fill(leave?: number, name?: string): void;
  /** Removes the filler. */
  free(): void;
  /** Runs a command inside the namespace (mount -o remount,ro …); throws on failure. */
  run(...command: string[]): void;
  close(): void;
}

export async function smallDisk(sizeMiB: number): Promise<SmallDisk | string> {
  if (process.getuid?.() !== 0) return 'needs root (mount in a private mount namespace)';
  const dir = mkdtempSync(join(tmpdir(), 'tracelake-disk-'));
  let keeper: ChildProcess;
  try {
    keeper = spawn(
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        `mount -t tmpfs -o size=${sizeMiB}m tracelake-test "$0" && echo ready && exec sleep 3600`,
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (e) {
    return `unshare failed: ${(e as Error).message}`;
  }
  const ready = await new Promise<string | null>((resolve) => {
    let stderr = '';
    keeper.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: keeper.stdout! }).on('line', (line) => line === 'ready' && resolve(null));
    keeper.on('exit', (code) => resolve(`unshare/mount exited with ${code}: ${stderr.trim()}`));
    keeper.on('error', (e) => resolve(`unshare failed: ${e.message}`));
  });
  if (ready !== null) {
    rmSync(dir, { recursive: true, force: true });
    return ready;
  }
  const pid = String(keeper.pid);
  const host = (rel = '') => join(`/proc/${pid}/root`, dir, rel);
  const run = (...command: string[]) => {
    const r = spawnSync('nsenter', ['-t', pid, '-m', ...command], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${command.join(' ')}: ${r.stderr}`);
  };
  const freeBytes = () => {
    const s = statfsSync(host());
    return s.bavail * s.bsize;
  };
  return {
    dir,
    wrap: ['nsenter', '-t', pid, '-m'],
    path: host,
    freeBytes,
    fill(leave = 0, name = 'filler') {
      // A server writing between the measure and the fallocate makes it fail: measure again.
      for (let attempt = 1; ; attempt++) {
        const bytes = freeBytes() - leave;
        if (bytes <= 0) return;
        try {
          run('fallocate', '-l', String(bytes), join(dir, name));
          return;
        } catch (err) {
          if (attempt === 5) throw err;
        }
      }
    },
    free() {
      run('rm', '-f', join(dir, 'filler'));
    },
    run,
    close() {
      keeper.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
