/**
 * What the store already holds of the sessions of a sync request: the span ids of their traces (a
 * re-synced session stores only its new spans, across restarts too — the ingest admission index only
 * remembers recent spans) and which of the request's blobs exist (`blobsStored` counts new ones).
 * Scoped by tenant, app and the key's environment, like every read.
 */
import { listValue } from '../duckdb.js';
import { segmentsFor, spansFrom } from '../spans/manifest.js';
import type { SpanSource } from '../spans/reads.js';
import { scopeSql, type ReadScope } from '../scope.js';
import { traceSummariesSql } from '../spans/traceParts.js';

export interface KnownOfSessions {
  spanIds: string[];
  blobShas: string[];
}

export async function knownOfSessions(
  src: SpanSource,
  scope: ReadScope & { environmentId: string },
  traceIds: readonly string[],
  blobShas: readonly string[],
): Promise<KnownOfSessions> {
  return { spanIds: await knownSpans(src, scope, traceIds), blobShas: await knownBlobs(src, scope, blobShas) };
}

async function knownSpans(src: SpanSource, scope: ReadScope, traceIds: readonly string[]): Promise<string[]> {
  if (traceIds.length === 0) return [];
  const s = scopeSql(scope);
  const n = s.params.length + 1;
  const ids = listValue([...traceIds]);
  // The traces' summaries give their time range, which selects the segments that can hold them.
  const [range] = await src.db.query<{ from_ns: string | null; to_ns: string | null }>(
    `SELECT min(start_ns)::VARCHAR AS from_ns, max(end_ns)::VARCHAR AS to_ns
       FROM (${traceSummariesSql((a) => `${scopeSql(scope, a).sql} AND list_contains($${n}::VARCHAR[], ${a}.trace_id)`)})`,
    [...s.params, ids],
  );
  if (!range || range.from_ns === null || range.to_ns === null) return [];
  const files = await segmentsFor(src.db, src.segments, scope, BigInt(range.from_ns), BigInt(range.to_ns) + 1n);
  if (files.length === 0) return [];
  const x = scopeSql(scope, 'x');
  const rows = await src.db.query<{ span_id: string }>(
    `SELECT DISTINCT x.span_id FROM ${spansFrom(files)} x
      WHERE ${x.sql} AND list_contains($${x.params.length + 1}::VARCHAR[], x.trace_id)
        AND x.start_ns BETWEEN $${x.params.length + 2} AND $${x.params.length + 3}`,
    [...x.params, ids, BigInt(range.from_ns), BigInt(range.to_ns)],
  );
  return rows.map((r) => r.span_id);
}

async function knownBlobs(src: SpanSource, scope: ReadScope, shas: readonly string[]): Promise<string[]> {
  if (shas.length === 0) return [];
  const rows = await src.db.query<{ sha256: string }>(
    'SELECT sha256 FROM blobs WHERE tenant_id = $1 AND app_id = $2 AND list_contains($3::VARCHAR[], sha256)',
    [scope.tenantId, scope.appId, listValue([...shas])],
  );
  return rows.map((r) => r.sha256);
}
