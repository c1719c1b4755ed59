/**
 * Looks up, in one go for a whole batch, the traces, spans and sessions that scores and comments
 * name, within the caller's scope (a pinned key sees its environment only). Traces and sessions
 * come from the trace summaries; a span named by its id alone is searched in every segment of the
 * scope (a scan of two columns: ids carry no index).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { listValue } from '../duckdb.js';
import { addTrace, idsToLookUp, type ResourceLookup, type ResourceRef } from '../../core/scores/resource.js';
import type { Database } from '../db.js';
import { segmentsFor, spansFrom } from '../spans/manifest.js';
import { scopeSql, type ReadScope } from '../scope.js';
import type { SegmentStore } from '../spans/segmentStore.js';
import { traceSummariesSql } from '../spans/traceParts.js';

export async function lookupResources(
  db: Database,
  segments: SegmentStore,
  scope: ReadScope,
  refs: readonly ResourceRef[],
  /** The environment the caller writes to: its copy of a trace id found in several is the one meant. */
  writeEnvironmentId: string | null = null,
): Promise<ResourceLookup> {
  const { traceIds, spanIds, sessionIds } = idsToLookUp(refs);
  const s = scopeSql(scope);
  const n = s.params.length + 1;
  const among = (ids: string[]): DuckDBValue[] => [...s.params, listValue(ids)];
  const lookup: ResourceLookup = { traces: new Map(), spans: new Map(), sessions: new Map() };
  const summaries = `(${traceSummariesSql((a) => scopeSql(scope, a).sql)})`;
  const byIds = `(${traceSummariesSql((a) => scopeSql(scope, a).sql, { byId: { list: `SELECT unnest($${n}::VARCHAR[])` }, mergedOnly: false })})`;

  if (spanIds.length > 0) {
    const files = await segmentsFor(db, segments, scope, null, null);
    const rows = await db.query<{ span_id: string; trace_id: string }>(
      `SELECT DISTINCT span_id, trace_id FROM ${spansFrom(files)} WHERE ${s.sql} AND span_id IN (SELECT unnest($${n}::VARCHAR[]))`,
      among(spanIds),
    );
    for (const r of rows) lookup.spans.set(r.span_id, { traceId: r.trace_id });
  }
  const traces = [...new Set([...traceIds, ...[...lookup.spans.values()].map((v) => v.traceId)])];
  if (traces.length > 0) {
    const rows = await db.query<{ id: string; environment_id: string; session_id: string | null }>(
      `SELECT id, environment_id::VARCHAR AS environment_id, session_id FROM ${byIds}`,
      among(traces),
    );
    for (const r of rows) {
      const sessions = r.session_id === null ? [] : [r.session_id];
      addTrace(lookup.traces, r.id, { environmentId: r.environment_id, sessions }, writeEnvironmentId);
    }
  }
  if (sessionIds.length > 0) {
    const rows = await db.query<{ session_id: string; environment_id: string }>(
      `SELECT session_id, any_value(environment_id)::VARCHAR AS environment_id
         FROM ${summaries} WHERE session_id IN (SELECT unnest($${n}::VARCHAR[])) GROUP BY session_id`,
      among(sessionIds),
    );
    for (const r of rows) lookup.sessions.set(r.session_id, { environmentId: r.environment_id });
  }
  return lookup;
}
