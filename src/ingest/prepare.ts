/**
 * A request's CPU work in a compute thread: its body decoded (OTLP, or an agents batch as the log
 * keeps it), mapped to span records and built into rows. Each step is its own function, so a body
 * decoded before the answer is mapped from what was decoded, not decoded again (scan.ts).
 */
import type { SpanRecord } from '../core/span.js';
import { mapExportRequest, type MapOptions, type RowKeys } from '../core/otlp/map.js';
import type { ExportTraceServiceRequest } from '../core/otlp/wire.js';
import { mapSession } from '../core/agents/map.js';
import { isTextMedia } from '../core/agents/scrub.js';
import type { Scope } from '../store/admin/meta.js';
import { COLUMN_INDEX, type SpanRow } from '../store/spans/columns.js';
import { decodeAgentBatch, type AgentBatch } from './agentsBatch.js';
import { decodeRequest, decompress, type OtlpEncoding } from './decode.js';
import { toRows, type BlobRecord, type ResourceRecord } from './rows.js';

/** OTLP bodies, or a coding-agent batch already checked, clamped and scrubbed (ingest/agentsBatch.ts). */
export type IngestEncoding = OtlpEncoding | 'agents';

/** A body to decode and map, with what mapping needs to know. */
export interface PrepareInput {
  body: Uint8Array;
  encoding: IngestEncoding;
  contentEncoding: string | undefined;
  maxDecompressedBytes: number;
  maxSpansPerTrace: number;
  scope: Scope;
}

/** A body's rows, its blobs and resources, and the spans mapping refused. */
export interface Mapped {
  rows: SpanRow[];
  blobs: BlobRecord[];
  resources: ResourceRecord[];
  rejected: number;
  errors: string[];
}

const TRACE = COLUMN_INDEX.trace_id;
const SPAN = COLUMN_INDEX.span_id;

/** Decode, map and build rows: the CPU work of a request. */
export function prepare(input: PrepareInput, costOf: MapOptions['costOf']): Mapped {
  if (input.encoding === 'agents') return mapAgentBatch(decodeAgentBatch(input.body), input.scope, costOf);
  const bytes = decompress(input.body, input.contentEncoding, input.maxDecompressedBytes);
  return mapOtlp(decodeRequest(bytes, input.encoding), input, costOf);
}

/** A decoded OTLP export → its rows. */
export function mapOtlp(
  request: ExportTraceServiceRequest,
  input: Pick<PrepareInput, 'scope' | 'maxSpansPerTrace'>,
  costOf: MapOptions['costOf'],
): Mapped {
  const mapped = mapExportRequest(request, { maxSpansPerTrace: input.maxSpansPerTrace, costOf });
  const { rows, blobs, resources } = toRows(input.scope, mapped.spans as SpanRecord[]);
  return { rows, blobs, resources, rejected: mapped.rejected, errors: mapped.errors };
}

/** A coding-agent batch (checked, clamped and scrubbed) → rows, and its blobs with those the rows split off. */
export function mapAgentBatch(batch: AgentBatch, scope: Scope, costOf: MapOptions['costOf']): Mapped {
  const blobTexts = new Map<string, string>();
  for (const b of batch.blobs)
    if (isTextMedia(b.mediaType)) blobTexts.set(b.sha256, Buffer.from(b.data).toString('utf8'));
  const spans = batch.sessions.flatMap((s) => mapSession(s, scope, { costOf, blobTexts }));
  const { rows, blobs, resources } = toRows(scope, spans);
  const all = new Map(batch.blobs.map((b) => [b.sha256, b]));
  for (const b of blobs) all.set(b.sha256, b);
  return { rows, blobs: [...all.values()], resources, rejected: 0, errors: [] };
}

/** The row keys of mapped rows, in their order (what `rowKeys` reads of an OTLP export without mapping it). */
export function keysOfRows({ rows, rejected, errors }: Pick<Mapped, 'rows' | 'rejected' | 'errors'>): RowKeys {
  const traceIndex = new Map<string, number>();
  const traceIds: string[] = [];
  const traceOf = rows.map((r) => {
    const id = r[TRACE] as string;
    let at = traceIndex.get(id);
    if (at === undefined) {
      traceIndex.set(id, (at = traceIds.length));
      traceIds.push(id);
    }
    return at;
  });
  return { traceIds, traceOf, spanIds: rows.map((r) => r[SPAN] as string), rejected, errors };
}
