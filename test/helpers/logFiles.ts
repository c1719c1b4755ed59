/**
 * The ingest-log files in a directory; with `waiting`, those in `committed/` too (they wait there
 * for a checkpoint, which a clean stop runs).
 */
import { readdirSync } from 'node:fs';

export function logFilesIn(dir: string, waiting = true): string[] {
  return readdirSync(dir, { recursive: waiting })
    .map(String)
    .filter((f) => f.endsWith('.log'));
}
