/**
 * Lists and searches of traces and spans (spec: GET /v1/traces, POST /v1/traces/search, GET /v1/spans,
 * POST /v1/spans/search) and the filter schema. The string `filter` and the JSON `filters` become one
 * checked AST, which the store compiles to SQL with bound parameters after its scope and window.
 */
import {
  validateSpanListQuery,
  validateSpanSearchBody,
  validateTraceListQuery,
  validateTraceSearchBody,
  type SpanListQuery,
} from '../../contract/search.js';
import { ApiError } from '../../core/errors.js';
import {
  checkFilter,
  equalityValues,
  filterSchema,
  parseFilter,
  validateJsonFilters,
  type Filter,
} from '../../core/filter/index.js';
import { resolveWindow, type WindowBounds } from '../../core/window.js';
import type { SearchQuery } from '../../store/spans/search.js';
import { bytes, data, file, json } from '../reply.js';
import { readScopeOf } from '../principal.js';
import { route, type Context } from '../route.js';
import { SUMMARY_EXAMPLE } from '../../openapi/examples.js';
import { CSV, LIST_REFUSALS, PAGE_HEADERS, SEARCH_REFUSALS } from '../../openapi/phrases.js';
import { answer as noteAnswer, payload } from '../../openapi/note.js';

const DEFAULT_LIMIT = 50;

type Window = WindowBounds & {
  limit?: number;
  offset?: number;
  sort_by?: string;
  sort_order?: 'asc' | 'desc';
  format?: 'json' | 'csv' | 'parquet' | 'arrow';
};

/** The search of a list or search request: the caller's read scope, narrowed by `environment` when named. */
async function query(ctx: Context, q: Window & { environment?: string }, part: 'query' | 'body'): Promise<SearchQuery> {
  return {
    scope: await narrowedScope(ctx, q.environment, part),
    ...resolveWindow(q, Date.now()),
    limit: q.limit ?? DEFAULT_LIMIT,
    offset: q.offset ?? 0,
    sortBy: q.sort_by ?? 'start',
    sortOrder: q.sort_order ?? 'desc',
    format: q.format === 'csv' ? 'csv' : 'json',
  };
}

/**
 * Admin credentials read every environment of the app; `environment` narrows that to one. Naming
 * an environment the app lacks is 400; naming another than the one a key is confined to is 403.
 */
export async function narrowedScope(ctx: Context, name: string | undefined, part: 'query' | 'body') {
  const scope = readScopeOf(ctx.principal);
  if (name === undefined) return scope;
  const env = await ctx.services.store.run('selectEnvironment', {
    tenantId: scope.tenantId,
    appId: scope.appId,
    name,
    createPreview: false,
  });
  if (!env) {
    throw new ApiError(part === 'query' ? 'invalid_query_parameters' : 'invalid_request_body', undefined, {
      details: { environment: `no environment "${name}" in this app` },
    });
  }
  if (scope.environmentId !== null && scope.environmentId !== env.id) {
    throw new ApiError('forbidden', `This key reads its own environment only, not "${name}"`);
  }
  return { ...scope, environmentId: env.id };
}

/** A filter naming an environment the app lacks is a mistake to report, not an empty answer. */
export async function checkEnvironmentNames(ctx: Context, filter: Filter): Promise<void> {
  const named = equalityValues(filter, 'environment').map(String);
  if (named.length === 0) return;
  const known = (
    await ctx.services.store.run('listEnvironments', { tenantId: ctx.principal.tenantId, appId: ctx.principal.appId })
  ).map((e) => e.name);
  const unknown = named.find((n) => !known.includes(n));
  if (unknown !== undefined)
    throw new ApiError('invalid_filter', `unknown environment "${unknown}"; this app has ${known.join(', ')}`);
}

const EXPORT_TYPES = {
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.stream',
} as const;

/**
 * `format=parquet|arrow` on the span list: every span the filter and window select (or the page
 * that `limit`/`offset` name, when given), as a file streamed to the client.
 */
async function exportAnswer(ctx: Context, q: SpanListQuery, format: 'parquet' | 'arrow', filter: Filter) {
  await checkEnvironmentNames(ctx, filter);
  const search = await query(ctx, q, 'query');
  const checked = checkFilter(filter, 'spans');
  const limit = q.limit ?? null;
  const out = await ctx.services.store.run('exportSpans', { query: search, filter: checked, format, limit });
  const name = `spans.${format === 'parquet' ? 'parquet' : 'arrows'}`;
  return file(out.path, EXPORT_TYPES[format], {
    'Content-Disposition': `attachment; filename="${name}"`,
    'X-Total-Count': String(out.rows),
  });
}

/**
 * Runs a list or search. `search` is called here, after the filter was parsed: a promise made
 * before it, when the filter then failed to parse, was left to reject with nobody listening (an
 * "unhandled rejection" in the log for every such request, and an environment lookup for nothing).
 * The filter is checked after the scope (the span list's parameter predicates are built unchecked),
 * so its refusals stay this request's 400, before the store is asked.
 */
async function answer(
  ctx: Context,
  task: 'searchTraces' | 'searchSpans',
  filter: Filter,
  search: () => Promise<SearchQuery>,
) {
  const [q] = await Promise.all([search(), checkEnvironmentNames(ctx, filter)]);
  const checked = checkFilter(filter, task === 'searchTraces' ? 'traces' : 'spans');
  const result = await ctx.services.store.run(task, { query: q, filter: checked });
  if (result.kind === 'csv') {
    const name = task === 'searchTraces' ? 'traces' : 'spans';
    return bytes(result.csv, 'text/csv; charset=utf-8', 200, {
      'Content-Disposition': `attachment; filename="${name}.csv"`,
      'X-Total-Count': String(result.total),
    });
  }
  return json({ data: result.data, pagination: { total: result.total, limit: q.limit, offset: q.offset } });
}

/** The span list's convenience parameters, as predicates of the same AST. */
function spanParamFilters(q: SpanListQuery): Filter {
  const f: Filter = [];
  if (q.type !== undefined) f.push({ field: 'type', op: 'equals', value: q.type });
  if (q.status !== undefined) f.push({ field: 'status', op: 'equals', value: q.status });
  if (q.min_duration_ms !== undefined) f.push({ field: 'duration_ms', op: 'gte', value: q.min_duration_ms });
  if (q.max_duration_ms !== undefined) f.push({ field: 'duration_ms', op: 'lte', value: q.max_duration_ms });
  if (q.model !== undefined) f.push({ field: 'model', op: 'equals', value: q.model });
  if (q.name !== undefined) f.push({ field: 'name', op: 'equals', value: q.name });
  if (q.trace_id !== undefined) f.push({ field: 'trace_id', op: 'equals', value: q.trace_id.toLowerCase() });
  return f;
}

export const searchRoutes = [
  route({
    method: 'GET',
    path: '/v1/traces',
    permission: 'trace.read',
    validate: { query: validateTraceListQuery },
    note: {
      tag: 'Traces',
      summary: 'List traces',
      description:
        'Latest first by default; `filter` is the string filter expression (`GET /v1/filter-schema` lists fields and operators).',
      query: 'TraceListQuery',
      answers: [
        { ...noteAnswer(200, 'TraceSearchPage', 'A page of trace summaries.'), media: CSV, headers: PAGE_HEADERS },
      ],
      errors: [{ status: 400, when: LIST_REFUSALS }],
    },
    handler: ({ query: q }, ctx) =>
      answer(ctx, 'searchTraces', q.filter === undefined ? [] : parseFilter(q.filter, 'traces'), () =>
        query(ctx, q, 'query'),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/traces/search',
    permission: 'trace.read',
    validate: { body: validateTraceSearchBody },
    note: {
      tag: 'Traces',
      summary: 'Search traces with JSON filters',
      description: 'Top-level filters are combined with AND; an `or` group holds predicates of which one must match.',
      body: payload('TraceSearchBody', {
        slowAndExpensive: {
          filters: [
            { field: 'latency_ms', operator: 'between', value: [1000, 5000] },
            {
              or: [
                { field: 'model', operator: 'equals', value: 'gpt-4o' },
                { field: 'model', operator: 'startsWith', value: 'claude' },
              ],
            },
          ],
          sort_by: 'cost',
          sort_order: 'desc',
          limit: 20,
        },
      }),
      answers: [
        noteAnswer(200, 'TraceSearchPage', 'A page of trace summaries.', {
          page: { data: [SUMMARY_EXAMPLE], pagination: { total: 1, limit: 20, offset: 0 } },
        }),
      ],
      errors: [{ status: 400, when: SEARCH_REFUSALS }],
    },
    handler: ({ body }, ctx) =>
      answer(ctx, 'searchTraces', validateJsonFilters(body?.filters ?? [], 'traces'), () =>
        query(ctx, body ?? {}, 'body'),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/spans',
    permission: 'span.read',
    validate: { query: validateSpanListQuery },
    note: {
      tag: 'Spans',
      summary: 'List spans',
      description:
        'The convenience parameters and `filter` are combined with AND. `format=parquet` or `arrow` streams every matching span as a file (or the page `limit`/`offset` name).',
      query: 'SpanListQuery',
      answers: [
        {
          ...noteAnswer(200, 'SpanPage', 'A page of spans.'),
          media: {
            ...CSV,
            'application/vnd.apache.parquet': 'With `format=parquet`: the spans as a Parquet file.',
            'application/vnd.apache.arrow.stream': 'With `format=arrow`: the spans as an Arrow IPC stream.',
          },
          headers: PAGE_HEADERS,
        },
      ],
      errors: [{ status: 400, when: LIST_REFUSALS }],
    },
    handler: ({ query: q }, ctx) => {
      const filter = [...spanParamFilters(q), ...(q.filter === undefined ? [] : parseFilter(q.filter, 'spans'))];
      return q.format === 'parquet' || q.format === 'arrow'
        ? exportAnswer(ctx, q, q.format, filter)
        : answer(ctx, 'searchSpans', filter, () => query(ctx, q, 'query'));
    },
  }),
  route({
    method: 'POST',
    path: '/v1/spans/search',
    permission: 'span.read',
    validate: { body: validateSpanSearchBody },
    note: {
      tag: 'Spans',
      summary: 'Search spans with JSON filters',
      body: payload('SpanSearchBody', {
        generations: {
          filters: [
            { field: 'type', operator: 'equals', value: 'GENERATION' },
            { field: 'tokens', operator: 'gt', value: 1000 },
          ],
        },
      }),
      answers: [noteAnswer(200, 'SpanPage', 'A page of spans.')],
      errors: [{ status: 400, when: SEARCH_REFUSALS }],
    },
    handler: ({ body }, ctx) =>
      answer(ctx, 'searchSpans', validateJsonFilters(body?.filters ?? [], 'spans'), () =>
        query(ctx, body ?? {}, 'body'),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/filter-schema',
    permission: 'trace.read',
    note: {
      tag: 'Traces',
      summary: 'Filterable fields and operators',
      description:
        "Per resource (traces, spans, scores): each field's type and operators, the operators' string and JSON spellings, and the limits.",
      answers: [noteAnswer(200, 'FilterSchemaAnswer', 'The filter schema.')],
    },
    handler: () => data(filterSchema()),
  }),
];
