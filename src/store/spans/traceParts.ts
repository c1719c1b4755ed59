/**
 * Per-trace summary parts (ARCHITECTURE §3): each ingest transaction adds, for every trace it
 * touches, one row summarising the spans it stored. Parts merge associatively — min start, max end,
 * sums, any-error, the root-most earliest span's name and previews — so late spans add a row rather
 * than rewrite one, and trace lists and searches cost O(parts) ≈ O(traces) instead of O(spans).
 */
import type { ColumnKind, SpanRow } from './columns.js';
import { COLUMN_INDEX as C } from './columns.js';

export const PART_COLUMNS = [
  ['tenant_id', 'uuid'],
  ['app_id', 'uuid'],
  ['environment_id', 'uuid'],
  ['trace_id', 'text'],
  ['start_ns', 'bigint'],
  ['end_ns', 'bigint'],
  /** The part's best candidate for the trace's root: 0 when it has no parent, then earliest. */
  ['best_r', 'int'],
  ['best_s', 'bigint'],
  ['best_name', 'text'],
  ['best_input_preview', 'text'],
  ['best_output_preview', 'text'],
  ['cost', 'double'],
  ['tokens', 'double'],
  ['span_count', 'int'],
  ['has_error', 'int'],
  ['has_ok', 'int'],
  ['tags', 'text_list'],
  ['session_id', 'text'],
  ['user_id', 'text'],
] as const satisfies readonly (readonly [string, ColumnKind])[];

export const PART_KINDS: ColumnKind[] = PART_COLUMNS.map(([, kind]) => kind);

type Part = (string | number | bigint | string[] | null)[];

/** The parts of a set of stored span rows, one per trace. */
export function partsOf(rows: readonly SpanRow[]): Part[] {
  const parts = new Map<string, { part: Part; tags: Set<string>; costSeen: boolean; tokensSeen: boolean }>();
  for (const row of rows) {
    const v = (i: number) => row[i] ?? null;
    const key = `${v(C.tenant_id)}/${v(C.app_id)}/${v(C.trace_id)}`;
    const start = v(C.start_ns) as bigint;
    const end = v(C.end_ns) as bigint;
    const r = v(C.parent_id) === null ? 0 : 1;
    let p = parts.get(key);
    if (!p) {
      p = {
        part: [v(C.tenant_id), v(C.app_id), v(C.environment_id), v(C.trace_id), start, end, r, start, v(C.name), v(C.input_preview), v(C.output_preview), 0, 0, 0, 0, 0, [], null, null],
        tags: new Set(),
        costSeen: false,
        tokensSeen: false,
      };
      parts.set(key, p);
    }
    const part = p.part;
    if (start < (part[4] as bigint)) part[4] = start;
    if (end > (part[5] as bigint)) part[5] = end;
    if (r < (part[6] as number) || (r === part[6] && start < (part[7] as bigint))) {
      part[6] = r;
      part[7] = start;
      part[8] = v(C.name);
      part[9] = v(C.input_preview);
      part[10] = v(C.output_preview);
    }
    if (v(C.cost) !== null) {
      part[11] = (part[11] as number) + (v(C.cost) as number);
      p.costSeen = true;
    }
    if (v(C.tokens) !== null) {
      part[12] = (part[12] as number) + (v(C.tokens) as number);
      p.tokensSeen = true;
    }
    if (v(C.type) !== 'EVENT') part[13] = (part[13] as number) + 1;
    if (v(C.status) === 'ERROR') part[14] = 1;
    if (v(C.status) === 'OK') part[15] = 1;
    for (const tag of (v(C.tags) as string[] | null) ?? []) p.tags.add(tag);
    part[17] ??= v(C.session_id);
    part[18] ??= v(C.user_id);
  }
  return [...parts.values()].map(({ part, tags }) => {
    part[16] = [...tags];
    return part;
  });
}

/**
 * Parts computed in SQL from spans already stored: the backfill of migration 3, and what the
 * search bench uses after loading spans directly.
 */
export const PARTS_FROM_SPANS_SQL = `
  INSERT INTO trace_parts
  SELECT tenant_id, app_id, any_value(environment_id), trace_id, min(start_ns), max(end_ns),
         arg_min(CASE WHEN parent_id IS NULL THEN 0 ELSE 1 END, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(start_ns, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(name, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(input_preview, {'r': parent_id IS NOT NULL, 's': start_ns}),
         arg_min(output_preview, {'r': parent_id IS NOT NULL, 's': start_ns}),
         coalesce(sum(cost), 0), coalesce(sum(tokens), 0)::DOUBLE,
         (count(*) FILTER (WHERE type <> 'EVENT'))::INTEGER,
         bool_or(status = 'ERROR')::INTEGER, bool_or(status = 'OK')::INTEGER,
         list_distinct(flatten(list(coalesce(tags, [])))),
         any_value(session_id) FILTER (WHERE session_id IS NOT NULL),
         any_value(user_id) FILTER (WHERE user_id IS NOT NULL)
    FROM spans GROUP BY tenant_id, app_id, trace_id`;

/**
 * Trace summaries merged from their parts: one row per trace of the parts `x` that pass `where`
 * (which must scope by tenant and app first), keeping the groups that pass `having`. Columns: the
 * trace-summary relation of the filter contract (`tenant_id, app_id, id, name, status, start_ns,
 * end_ns, latency_ms, cost, tokens, span_count, input_preview, output_preview, tags, session_id,
 * user_id, environment_id, environment`). Every trace summary the API answers comes from here.
 */
export function mergedTracesSql(where: string, having = 'TRUE'): string {
  const best = `{'r': x.best_r, 's': x.best_s}`;
  return `
    SELECT x.tenant_id, x.app_id, x.trace_id AS id,
      arg_min(x.best_name, ${best}) AS name,
      CASE WHEN max(x.has_error) = 1 THEN 'ERROR' WHEN max(x.has_ok) = 1 THEN 'OK' ELSE 'UNSET' END AS status,
      min(x.start_ns) AS start_ns, max(x.end_ns) AS end_ns,
      ((max(x.end_ns) - min(x.start_ns)) / 1e6)::DOUBLE AS latency_ms,
      sum(x.cost)::DOUBLE AS cost,
      sum(x.tokens)::DOUBLE AS tokens,
      sum(x.span_count)::INTEGER AS span_count,
      arg_min(x.best_input_preview, ${best}) AS input_preview,
      arg_min(x.best_output_preview, ${best}) AS output_preview,
      list_sort(list_distinct(flatten(list(x.tags)))) AS tags,
      any_value(x.session_id) FILTER (WHERE x.session_id IS NOT NULL) AS session_id,
      any_value(x.user_id) FILTER (WHERE x.user_id IS NOT NULL) AS user_id,
      any_value(x.environment_id) AS environment_id,
      any_value(e.name) AS environment
    FROM trace_parts x LEFT JOIN environments e ON e.id = x.environment_id
    WHERE ${where}
    GROUP BY x.tenant_id, x.app_id, x.trace_id
    HAVING ${having}`;
}

/** The columns of a merged summary as the API answers them (times as epoch ms, converted by the caller). */
export const SUMMARY_COLUMNS = `id, name, status, (start_ns / 1e6)::DOUBLE AS start_ms, (end_ns / 1e6)::DOUBLE AS end_ms, latency_ms, cost, tokens,
       span_count, input_preview, output_preview, tags, session_id, user_id, environment_id, environment`;
