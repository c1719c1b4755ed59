/**
 * The values a filter field took in a window, for the filter bar to suggest after `model = `: the
 * field's groups in `GET /v1/metrics` (count by that dimension, over the window, commonest first),
 * so only fields that are metrics dimensions have them, and only where metrics are offered (the
 * filter bar's caller says).
 */
import { get, query, type Dimension, type MetricsAnswer, type MetricsView, type SchemaField } from '../api.js';

/** The dimensions each metrics view groups by (spec: `GET /v1/metrics`). */
const VIEW_DIMENSIONS = {
  traces: ['name', 'environment', 'user_id', 'session_id'],
  spans: ['model', 'name', 'environment', 'user_id', 'session_id', 'prompt_name', 'service_name', 'span_kind'],
} as const satisfies Partial<Record<MetricsView, readonly Dimension[]>>;

/** At most this many values are suggested (the commonest). */
const MOST = 50;

/** The metrics view whose groups are a field's values: a trace's span-level fields are spans'. */
function viewFor(resource: 'traces' | 'spans', field: SchemaField): 'traces' | 'spans' | null {
  const view = resource === 'traces' && field.level !== 'span' ? 'traces' : 'spans';
  return (VIEW_DIMENSIONS[view] as readonly string[]).includes(field.name) ? view : null;
}

/** Whether values of this field can be asked for at all. */
export function hasValuesSeen(resource: 'traces' | 'spans' | 'scores', field: SchemaField): boolean {
  return resource !== 'scores' && !field.values && viewFor(resource, field) !== null;
}

/** The field's values in the window starting at `from` (ISO), commonest first. */
export async function valuesSeen(resource: 'traces' | 'spans', field: SchemaField, from: string): Promise<string[]> {
  const view = viewFor(resource, field);
  if (!view) return [];
  const answer = await get<MetricsAnswer>(
    `/v1/metrics${query({ view, from, bucket: 'week', measures: 'count', group_by: field.name, group_limit: MOST })}`,
  );
  const counts = new Map<string, number>();
  for (const r of answer.data) {
    const v = r[field.name];
    if (v !== null && v !== undefined && v !== '')
      counts.set(String(v), (counts.get(String(v)) ?? 0) + Number(r.count));
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([v]) => v);
}
