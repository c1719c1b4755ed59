/**
 * Looks up, in one go for a whole batch, the traces, spans and sessions that scores and comments
 * name, within the caller's scope (a pinned key sees its environment only).
 */
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { idsToLookUp, type ResourceLookup, type ResourceRef } from '../../core/scores/resource.js';
import type { Database } from '../db.js';
import { scopeSql, type ReadScope } from '../spans/reads.js';

export async function lookupResources(db: Database, scope: ReadScope, refs: readonly ResourceRef[]): Promise<ResourceLookup> {
  const { traceIds, spanIds, sessionIds } = idsToLookUp(refs);
  const s = scopeSql(scope);
  const n = s.params.length + 1;
  const among = (ids: string[]): DuckDBValue[] => [...s.params, listValue(ids)];
  const lookup: ResourceLookup = { traces: new Map(), spans: new Map(), sessions: new Map() };

  if (spanIds.length > 0) {
    const rows = await db.query<{ span_id: string; trace_id: string }>(
      `SELECT DISTINCT span_id, trace_id FROM spans WHERE ${s.sql} AND span_id IN (SELECT unnest($${n}::VARCHAR[]))`,
      among(spanIds),
    );
    for (const r of rows) lookup.spans.set(r.span_id, { traceId: r.trace_id });
  }
  const traces = [...new Set([...traceIds, ...[...lookup.spans.values()].map((v) => v.traceId)])];
  if (traces.length > 0) {
    const rows = await db.query<{ trace_id: string; environment_id: string; sessions: string[] }>(
      `SELECT trace_id, any_value(environment_id)::VARCHAR AS environment_id,
              coalesce(list(DISTINCT session_id) FILTER (WHERE session_id IS NOT NULL), []) AS sessions
         FROM spans WHERE ${s.sql} AND trace_id IN (SELECT unnest($${n}::VARCHAR[])) GROUP BY trace_id`,
      among(traces),
    );
    for (const r of rows) lookup.traces.set(r.trace_id, { environmentId: r.environment_id, sessions: r.sessions });
  }
  if (sessionIds.length > 0) {
    const rows = await db.query<{ session_id: string; environment_id: string }>(
      `SELECT session_id, any_value(environment_id)::VARCHAR AS environment_id
         FROM spans WHERE ${s.sql} AND session_id IN (SELECT unnest($${n}::VARCHAR[])) GROUP BY session_id`,
      among(sessionIds),
    );
    for (const r of rows) lookup.sessions.set(r.session_id, { environmentId: r.environment_id });
  }
  return lookup;
}
