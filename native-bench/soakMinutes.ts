/**
 * The soak's record (soak.ts): what each minute saw — acknowledgements, the readability probes,
 * reads by kind, errors by status, peak RSS — and the server's state at its end, as rows; a line a
 * minute, a table of longer windows, and the panels of its plot.
 */
import { percentile } from './loadClient.js';
import type { Panel } from './plot.js';
import type { Where } from './soakWhere.js';

export const READ_KINDS = ['list', 'trace', 'metrics'] as const;
export type ReadKind = (typeof READ_KINDS)[number];

/** The samples of one minute as they arrive. */
export class MinuteSamples {
  ackedSpans = 0;
  readonly ack: number[] = [];
  readonly readable: number[] = [];
  readonly reads: Record<ReadKind, number[]> = { list: [], trace: [], metrics: [] };
  readonly errors = new Map<string, number>();
  rssMiB = 0;

  /** An answer that is not 2xx (status 0: the connection failed or closed before it). */
  error(what: string, status: number): void {
    const key = `${what} ${status === 0 ? 'connection' : status}`;
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
  }
}

/** The server at the end of a minute. */
export interface ServerState {
  smallSegments: number;
  liveFiles: number;
  /** The live segment files' bytes (the manifest's count). */
  segmentBytes: number;
  /** The whole data directory: segments, the DuckDB file, the ingest log's files not yet removed. */
  diskBytes: number;
}

export interface Quantiles {
  n: number;
  p50: number;
  p99: number;
}

export interface MinuteRow extends ServerState {
  minute: number;
  ackedSpans: number;
  ack: Quantiles;
  /** Ack → readable of the probes answered in the minute. */
  readable: Quantiles;
  reads: Record<ReadKind, Quantiles>;
  /** The highest RSS sampled in the minute. */
  rssMiB: number;
  errors: Record<string, number>;
  /** Where the server's time and memory went (null when the metrics could not be read). */
  where: Where | null;
}

function quantiles(values: readonly number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

export function minuteRow(minute: number, s: MinuteSamples, state: ServerState, where: Where | null): MinuteRow {
  return {
    minute,
    ackedSpans: s.ackedSpans,
    ack: quantiles(s.ack),
    readable: quantiles(s.readable),
    reads: Object.fromEntries(READ_KINDS.map((k) => [k, quantiles(s.reads[k])])) as Record<ReadKind, Quantiles>,
    rssMiB: s.rssMiB,
    errors: Object.fromEntries(s.errors),
    where,
    ...state,
  };
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '–');
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const errorText = (errors: Record<string, number>) =>
  Object.keys(errors).length === 0
    ? '0'
    : Object.entries(errors)
        .map(([k, n]) => `${n} × ${k}`)
        .join(', ');

export function minuteLine(r: MinuteRow): string {
  return [
    `minute ${String(r.minute).padStart(2)}: ${Math.round(r.ackedSpans / 60).toLocaleString('en-US')} spans/s acked`,
    `ack p50 ${ms(r.ack.p50)} p99 ${ms(r.ack.p99)} ms`,
    `ack→readable p99 ${ms(r.readable.p99)} ms (${r.readable.n})`,
    `reads p50/p99 ${READ_KINDS.map((k) => `${k} ${ms(r.reads[k].p50)}/${ms(r.reads[k].p99)}`).join(' ')} ms`,
    `small segments ${r.smallSegments}, live files ${r.liveFiles}`,
    `RSS ${r.rssMiB.toFixed(0)} MiB`,
    `disk ${mib(r.diskBytes)} MiB (segments ${mib(r.segmentBytes)})`,
    `errors ${errorText(r.errors)}`,
  ].join(' · ');
}

/** A markdown table, a row per `every` minutes: percentiles over all of their samples. */
export function summaryTable(samples: readonly MinuteSamples[], rows: readonly MinuteRow[], every = 10): string {
  const lines = [
    '| minutes | spans/s acked | ack p50 / p99 ms | ack → readable p99 ms | read p99 ms: list / trace / metrics | small segments (most) | live files (end) | RSS MiB (most) | disk MiB (end; segments) | errors |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (let from = 0; from < rows.length; from += every) {
    const part = rows.slice(from, from + every);
    const seen = samples.slice(from, from + every);
    const last = part[part.length - 1]!;
    const ack = quantiles(seen.flatMap((s) => s.ack));
    const reads = READ_KINDS.map((k) => ms(quantiles(seen.flatMap((s) => s.reads[k])).p99)).join(' / ');
    const errors: Record<string, number> = {};
    for (const r of part) for (const [k, n] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + n;
    lines.push(
      `| ${part[0]!.minute}–${last.minute} | ${Math.round(part.reduce((a, r) => a + r.ackedSpans, 0) / (60 * part.length)).toLocaleString('en-US')} | ${ms(ack.p50)} / ${ms(ack.p99)} | ${ms(quantiles(seen.flatMap((s) => s.readable)).p99)} | ${reads} | ${Math.max(...part.map((r) => r.smallSegments))} | ${last.liveFiles} | ${Math.max(...part.map((r) => r.rssMiB)).toFixed(0)} | ${mib(last.diskBytes)}; ${mib(last.segmentBytes)} | ${errorText(errors)} |`,
    );
  }
  return lines.join('\n');
}

/** The soak's plot: a panel a metric, a point a minute. */
export function soakPanels(rows: readonly MinuteRow[]): Panel[] {
  const of = (f: (r: MinuteRow) => number) => rows.map((r) => (Number.isFinite(f(r)) ? f(r) : null));
  return [
    {
      title: 'segment files',
      series: [
        { name: 'small', values: of((r) => r.smallSegments) },
        { name: 'live', values: of((r) => r.liveFiles) },
      ],
    },
    {
      title: 'ack latency, ms',
      series: [
        { name: 'p99', values: of((r) => r.ack.p99) },
        { name: 'p50', values: of((r) => r.ack.p50) },
      ],
    },
    { title: 'ack → readable p99, ms (probes)', series: [{ name: 'p99', values: of((r) => r.readable.p99) }] },
    {
      title: 'read p99 by kind, ms',
      series: READ_KINDS.map((k) => ({ name: k, values: of((r) => r.reads[k].p99) })),
    },
    { title: 'server RSS, MiB (peak of the minute)', series: [{ name: 'RSS', values: of((r) => r.rssMiB) }] },
    {
      title: 'on disk, MiB',
      series: [
        { name: 'data directory', values: of((r) => r.diskBytes / 2 ** 20) },
        { name: 'live segments', values: of((r) => r.segmentBytes / 2 ** 20) },
      ],
    },
  ];
}
