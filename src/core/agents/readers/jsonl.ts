/**
 * JSON Lines as agents write them: one JSON value per line, appended while the agent runs. A last
 * line without its newline that does not parse is a write in progress (truncated); any other line
 * that does not parse is malformed. Neither is fatal: both are skipped and counted.
 */

export interface ReadStats {
  /** Lines read (blank ones not counted). */
  lines: number;
  /** Lines whose type the reader does not know. */
  unknown: number;
  malformed: number;
  truncated: number;
}

export function emptyStats(): ReadStats {
  return { lines: 0, unknown: 0, malformed: 0, truncated: 0 };
}

export interface Line {
  /** 1-based line number in the file: stable while the file grows, so usable in event ids. */
  number: number;
  value: Record<string, unknown>;
}

/** The lines of `text` that are JSON objects, in order; `stats` counts the rest. */
export function jsonLines(text: string, stats: ReadStats): Line[] {
  const out: Line[] = [];
  const lines = text.split('\n');
  const complete = text.endsWith('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    stats.lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lines.length - 1 && !complete) stats.truncated++;
      else stats.malformed++;
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      stats.malformed++;
      return;
    }
    out.push({ number: i + 1, value: value as Record<string, unknown> });
  });
  return out;
}

/** `v` when it is a non-empty string, else undefined. */
export function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** `v` when it is a plain object, else undefined. */
export function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A whole number ≥ 0 when `v` is one (a count), else 0. */
export function count(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

/** An ISO 8601 timestamp when `v` is one Date can read, normalised; else undefined. */
export function timestamp(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
