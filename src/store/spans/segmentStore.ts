/**
 * Where span segment files live: the seam beyond one machine (docs/segments.md). Writers produce a
 * file at a temporary path and `publish` it under its key; readers ask for a path DuckDB can open;
 * nothing outside this interface knows that keys are files in a local directory. An object-store
 * implementation would upload on `publish` and answer `s3://` paths from `readPath`.
 *
 * Keys follow the Hive layout `tenant=<uuid>/app=<uuid>/date=<yyyy-mm-dd>/<name>.parquet`, so any
 * engine that reads Parquet can query the directory as it is (docs/segments.md). A compacted
 * segment's span id filter (spanIdFilter.ts) lives beside it as `<name>.spanfilter` and goes with it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

export interface SegmentPlace {
  tenantId: string;
  appId: string;
  /** UTC day of the spans' start times, `yyyy-mm-dd`. */
  date: string;
  /** File name without extension; unique within the store. */
  name: string;
}

export interface SegmentStore {
  /** A fresh local path to write a segment to; nothing reads it until it is published. */
  tempPath(): string;
  /** Makes a written file durable and visible under its key: fsync, rename, fsync the directory. */
  publish(tempPath: string, place: SegmentPlace): Promise<string>;
  /** A path or URL DuckDB can read the segment at `key` from. */
  readPath(key: string): string;
  /** Size in bytes of a published segment. */
  size(key: string): number;
  /**
   * Writes a published segment's span id filter beside it, durably. Written after the segment is
   * published and before its manifest row commits, so a filter never outlives its segment's sweep.
   */
  writeSpanFilter(key: string, filter: Uint8Array): Promise<void>;
  /** The span id filter beside segment `key`; null when it has none. */
  readSpanFilter(key: string): Promise<Uint8Array | null>;
  /** Deletes a segment and its span id filter (the filter first: a segment may lack one, never the reverse). */
  remove(key: string): Promise<void>;
  /** Moves a segment out of the store into `dir` (kept for an operator, no longer served); its filter is deleted. */
  setAside(key: string, dir: string): Promise<void>;
  /** Keys of every published segment, for the sweep of files no manifest row names. */
  keys(): string[];
  /** Deletes temporary files left by a crash (call only when nothing is writing). */
  clearTemps(): void;
}

export function segmentKey(place: SegmentPlace): string {
  return `tenant=${place.tenantId}/app=${place.appId}/date=${place.date}/${place.name}.parquet`;
}

/** Where the span id filter of segment `key` lives: beside it, where a glob of `*.parquet` does not see it. */
export function spanFilterKey(key: string): string {
  return `${key.replace(/\.parquet$/, '')}.spanfilter`;
}

const TEMP_DIR = '.tmp';

/** The one implementation today: a directory on the local filesystem. */
export class LocalSegmentStore implements SegmentStore {
  constructor(readonly root: string) {
    mkdirSync(join(root, TEMP_DIR), { recursive: true });
  }

  tempPath(): string {
    return join(this.root, TEMP_DIR, `${randomBytes(12).toString('hex')}.parquet`);
  }

  async publish(tempPath: string, place: SegmentPlace): Promise<string> {
    const key = segmentKey(place);
    const target = join(this.root, key);
    await fsyncPath(tempPath);
    mkdirSync(dirname(target), { recursive: true });
    await rename(tempPath, target);
    // The rename is durable once the directory entry is: without this a crash could lose the file
    // after its manifest row committed.
    await fsyncPath(dirname(target));
    return key;
  }

  readPath(key: string): string {
    return join(this.root, key);
  }

  size(key: string): number {
    return statSync(join(this.root, key)).size;
  }

  async writeSpanFilter(key: string, filter: Uint8Array): Promise<void> {
    const temp = join(this.root, TEMP_DIR, `${randomBytes(12).toString('hex')}.spanfilter`);
    await writeFile(temp, filter);
    await fsyncPath(temp);
    // Renamed whole, so a reader never sees part of a filter (which could rule out an id it holds).
    const target = join(this.root, spanFilterKey(key));
    await rename(temp, target);
    await fsyncPath(dirname(target));
  }

  async readSpanFilter(key: string): Promise<Uint8Array | null> {
    return readFile(join(this.root, spanFilterKey(key))).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
  }

  async remove(key: string): Promise<void> {
    await unlinkIfThere(join(this.root, spanFilterKey(key)));
    await unlinkIfThere(join(this.root, key));
  }

  async setAside(key: string, dir: string): Promise<void> {
    await unlinkIfThere(join(this.root, spanFilterKey(key)));
    // The key's path becomes one file name, so the set-aside files keep where they came from.
    mkdirSync(dir, { recursive: true });
    await rename(join(this.root, key), join(dir, key.split('/').join('__')));
  }

  keys(): string[] {
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== TEMP_DIR) walk(path);
        } else if (entry.name.endsWith('.parquet')) {
          out.push(relative(this.root, path).split(sep).join('/'));
        }
      }
    };
    walk(this.root);
    return out;
  }

  clearTemps(): void {
    rmSync(join(this.root, TEMP_DIR), { recursive: true, force: true });
    mkdirSync(join(this.root, TEMP_DIR), { recursive: true });
  }
}

async function unlinkIfThere(path: string): Promise<void> {
  await unlink(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}

export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
