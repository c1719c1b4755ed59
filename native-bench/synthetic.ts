/**
 * Synthetic spans written straight into a store's segments, for the read benchmarks: realistic
 * agent traces of 8 spans (a root agent, two chat generations, a tool call, retrievals) spread back
 * in time from "now", one segment file per day as compaction would leave them, with their manifest
 * rows and merged trace summaries — what ingestion and compaction produce, without the wait.
 */
import { createHash } from 'node:crypto';
import { DuckDBBitValue } from '@duckdb/node-api';
import type { Database } from '../src/store/db.js';
import { storeDirs } from '../src/store/layout.js';
import { INGEST_LEVEL } from '../src/store/spans/manifest.js';
import { SEGMENT_COPY_OPTIONS, SEGMENT_FORMAT_VERSION } from '../src/store/spans/segmentFormat.js';
import { LocalSegmentStore, segmentKey } from '../src/store/spans/segmentStore.js';
import { spanIdFilterSql } from '../src/store/spans/spanIdFilter.js';
import { mergeParts } from '../src/store/spans/summaryMerge.js';
import { insertPartsSql } from '../src/store/spans/traceParts.js';

export interface SyntheticScope {
  tenantId: string;
  appId: string;
  environmentId: string;
}

/** Traces start this far apart (4 s), going back in time from the newest. */
export const TRACE_GAP_NS = 4_000_000_000n;

/**
 * Rows of span `i` (0-based) as SQL expressions over `i`; traces start 4 s apart going back in time.
 * The range of `i` is left as the placeholders `$FROM` and `$TO`.
 */
export function spanSelect(scope: SyntheticScope, newestNs: bigint): string {
  return `
    SELECT '${scope.tenantId}'::UUID AS tenant_id, '${scope.appId}'::UUID AS app_id, '${scope.environmentId}'::UUID AS environment_id,
           md5((i // 8)::VARCHAR) AS trace_id, substr(md5(i::VARCHAR), 1, 16) AS span_id,
           CASE WHEN i % 8 = 0 THEN NULL ELSE substr(md5((i - i % 8)::VARCHAR), 1, 16) END AS parent_id,
           CASE WHEN i % 8 = 0 THEN 'support-agent' WHEN i % 8 IN (1, 4) THEN 'chat' WHEN i % 8 = 2 THEN 'lookup_account' ELSE 'vector-search' END AS name,
           CASE WHEN i % 8 IN (1, 4) THEN 'GENERATION' ELSE 'SPAN' END AS type,
           CASE WHEN i % 8 = 0 THEN 'agent' WHEN i % 8 IN (1, 4) THEN 'llm' WHEN i % 8 = 2 THEN 'tool' ELSE 'retrieval' END AS span_kind,
           CASE WHEN hash(i // 8) % 50 = 0 THEN 'ERROR' ELSE 'OK' END AS status, NULL::VARCHAR AS status_message,
           (${newestNs}::BIGINT - (i // 8) * ${TRACE_GAP_NS} + (i % 8) * 1000000) AS start_ns,
           (${newestNs}::BIGINT - (i // 8) * ${TRACE_GAP_NS} + (i % 8) * 1000000 + (hash(i) % 3000)::BIGINT * 1000000) AS end_ns,
           CASE WHEN i % 8 IN (1, 4) THEN ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet-20241022', 'gemini-1.5-flash'][1 + (hash(i) % 4)::BIGINT] END AS model,
           CASE WHEN i % 8 = 1 THEN 'support-answer' END AS prompt_name, 'support-bot' AS service_name,
           CASE WHEN i % 8 IN (1, 4) THEN (200 + hash(i) % 2000)::INTEGER END AS input_tokens,
           CASE WHEN i % 8 IN (1, 4) THEN (20 + hash(i) % 400)::INTEGER END AS output_tokens, NULL::INTEGER AS cached_input_tokens,
           CASE WHEN i % 8 IN (1, 4) THEN (220 + hash(i) % 2400)::INTEGER END AS tokens,
           CASE WHEN i % 8 IN (1, 4) THEN (hash(i) % 1000) / 100000.0 END AS cost,
           NULL::VARCHAR AS input_preview, NULL::VARCHAR AS output_preview,
           'How do I reset my password?' AS input, 'Open Settings, then Security.' AS output, NULL::VARCHAR AS input_ref, NULL::VARCHAR AS output_ref,
           'session-' || ((i // 8) % 20000) AS session_id, 'user-' || ((i // 8) % 5000) AS user_id, NULL::VARCHAR AS run_id, NULL::VARCHAR[] AS tags,
           '{"customer":"customer-' || ((i // 8) % 100) || '","tier":"' || ['gold','silver','bronze'][1 + ((i // 8) % 3)::BIGINT] || '"}' AS metadata,
           NULL::VARCHAR AS graph, '{"gen_ai.system":"openai"}' AS attributes, 42::UBIGINT AS resource_id, NULL::INTEGER AS attributes_in_columns
      FROM range(${'$FROM'}, ${'$TO'}) r(i)`;
}

/**
 * Writes `spans` synthetic spans (whole traces) as segments of `scope`, one file per day, and
 * their summaries. The newest trace starts a minute before `nowMs`.
 */
export async function loadSynthetic(
  db: Database,
  dataDir: string,
  scope: SyntheticScope,
  spans: number,
  nowMs: number,
): Promise<void> {
  const store = new LocalSegmentStore(storeDirs(dataDir).segments);
  const newestNs = BigInt(nowMs - 60_000) * 1_000_000n;
  const select = spanSelect(scope, newestNs);
  // Traces are 4 s apart: a day holds 21,600 traces = 172,800 spans.
  const perDay = 21_600 * 8;
  for (let from = 0; from < spans; from += perDay) {
    const to = Math.min(spans, from + perDay);
    const sql = select.replace('$FROM', String(from)).replace('$TO', String(to));
    const [{ day } = { day: '' }] = await db.query<{ day: string }>(
      `SELECT strftime(make_timestamp(max(start_ns) // 1000), '%Y-%m-%d') AS day FROM (${sql})`,
    );
    const key = segmentKey({ tenantId: scope.tenantId, appId: scope.appId, date: day, name: `synthetic-${from}` });
    const temp = store.tempPath();
    await db.exec(`COPY (${sql} ORDER BY start_ns, trace_id, span_id) TO '${temp}' (${SEGMENT_COPY_OPTIONS})`);
    await store.publish(temp, { tenantId: scope.tenantId, appId: scope.appId, date: day, name: `synthetic-${from}` });
    const [filter] = await db.query<{ bits: string }>(
      `SELECT span_filter::VARCHAR AS bits FROM (${spanIdFilterSql('read_parquet($1)', to - from)})`,
      [store.readPath(key)],
    );
    if (filter?.bits) await store.writeSpanFilter(key, DuckDBBitValue.fromString(filter.bits).data);
    await db.transaction(async (tx) => {
      await tx.exec(
        `INSERT INTO segments (tenant_id, app_id, environment_id, date, path, level, format_version, rows, bytes, min_start_ns, max_start_ns)
         SELECT $1, $2, $3, $4::DATE, $5, $6, $7, count(*), $8, min(start_ns), max(start_ns) FROM read_parquet($9)`,
        [
          scope.tenantId,
          scope.appId,
          scope.environmentId,
          day,
          key,
          INGEST_LEVEL + 1,
          SEGMENT_FORMAT_VERSION,
          store.size(key),
          store.readPath(key),
        ],
      );
      await tx.exec(insertPartsSql('read_parquet($1)'), [store.readPath(key)]);
    });
  }
  await db.exec(
    `INSERT INTO resources (tenant_id, app_id, resource_id, resource, scope_name, scope_version)
     VALUES ($1, $2, 42, '{"service.name":"support-bot"}', 'bench', '1.0.0') ON CONFLICT DO NOTHING`,
    [scope.tenantId, scope.appId],
  );
  await mergeParts(db);
}

/** The trace id of the `n`-th synthetic trace (as the SQL above makes it). */
export function syntheticTraceId(n: number): string {
  return createHash('md5').update(String(n)).digest('hex');
}

/** The span id of the `n`-th synthetic span (as the SQL above makes it). */
export function syntheticSpanId(n: number): string {
  return syntheticTraceId(n).slice(0, 16);
}

/** The trace a bench's `i`-th read takes of `traces`: a different one each run, spread over them all. */
export function spreadTrace(i: number, traces: number): number {
  return Math.floor((((i * 7919) % 997) / 997) * traces);
}
