/**
 * Reads of traces, spans, sessions and runs. Ids of other tenants or apps answer 404 exactly as ids
 * that do not exist: every query is scoped first.
 */
import {
  validatePageQuery,
  validateRunParams,
  validateSessionListQuery,
  validateSessionParams,
  validateSpanParams,
  validateTraceParams,
  validateTraceQuery,
  validateTraceSpanParams,
  type PageQuery,
  type RunParams,
  type SessionListQuery,
  type SessionParams,
  type SpanParams,
  type TraceParams,
  type TraceQuery,
  type TraceSpanParams,
} from '../../contract/traces.js';
import type { TraceDetail } from '../../contract/responses.js';
import { ApiError } from '../../core/errors.js';
import { buildGraph } from '../../core/graph.js';
import { resolveWindow } from '../../core/window.js';
import type { ReadScope } from '../../store/scope.js';
import { data, json } from '../reply.js';
import { readScopeOf } from '../principal.js';
import { route, type Context } from '../route.js';

const DEFAULT_PAGE = 50;

function readScope(ctx: Context): ReadScope {
  return readScopeOf(ctx.principal);
}

async function spansOf(ctx: Context, traceId: string) {
  const spans = await ctx.services.store.run('traceSpans', { scope: readScope(ctx), traceId: traceId.toLowerCase() });
  if (spans.length === 0) throw new ApiError('not_found', `Trace ${traceId} not found`);
  return spans;
}

export const traceRoutes = [
  route<TraceParams, TraceQuery>({
    method: 'GET',
    path: '/v1/traces/:traceId',
    permission: 'trace.read',
    validate: { params: validateTraceParams, query: validateTraceQuery },
    async handler({ params, query }, ctx) {
      const found = await ctx.services.store.run('traceWithSpans', { scope: readScope(ctx), traceId: params.traceId.toLowerCase() });
      if (!found) throw new ApiError('not_found', `Trace ${params.traceId} not found`);
      return data({
        ...found.trace,
        spans: found.spans.map(({ graph: _graph, ...span }) => span),
        ...(query.fields === 'graph' ? { graph: buildGraph(found.spans) } : {}),
      } satisfies TraceDetail);
    },
  }),
  route<TraceParams>({
    method: 'GET',
    path: '/v1/traces/:traceId/graph',
    permission: 'trace.read',
    validate: { params: validateTraceParams },
    handler: async ({ params }, ctx) => data(buildGraph(await spansOf(ctx, params.traceId))),
  }),
  route<TraceParams>({
    method: 'GET',
    path: '/v1/traces/:traceId/spans',
    permission: 'span.read',
    validate: { params: validateTraceParams },
    handler: async ({ params }, ctx) => data((await spansOf(ctx, params.traceId)).map(({ graph: _graph, ...span }) => span)),
  }),
  route<TraceSpanParams>({
    method: 'GET',
    path: '/v1/traces/:traceId/spans/:spanId',
    permission: 'span.read',
    validate: { params: validateTraceSpanParams },
    async handler({ params }, ctx) {
      const span = await ctx.services.store.run('spanDetail', {
        scope: readScope(ctx),
        spanId: params.spanId.toLowerCase(),
        traceId: params.traceId.toLowerCase(),
      });
      if (!span) throw new ApiError('not_found', `Span ${params.spanId} not found in trace ${params.traceId}`);
      return data(span);
    },
  }),
  route<SpanParams>({
    method: 'GET',
    path: '/v1/spans/:spanId',
    permission: 'span.read',
    validate: { params: validateSpanParams },
    async handler({ params }, ctx) {
      const span = await ctx.services.store.run('spanDetail', { scope: readScope(ctx), spanId: params.spanId.toLowerCase() });
      if (!span) throw new ApiError('not_found', `Span ${params.spanId} not found`);
      return data(span);
    },
  }),
  route<Record<string, string>, SessionListQuery>({
    method: 'GET',
    path: '/v1/sessions',
    permission: 'session.read',
    validate: { query: validateSessionListQuery },
    async handler({ query }, ctx) {
      const window = resolveWindow(query.start_date, query.end_date, Date.now());
      const limit = query.limit ?? DEFAULT_PAGE;
      const offset = query.offset ?? 0;
      const page = await ctx.services.store.run('listSessions', {
        scope: readScope(ctx),
        ...window,
        limit,
        offset,
        ...(query.user_id === undefined ? {} : { userId: query.user_id }),
      });
      return json({ data: page.data, pagination: { total: page.total, limit, offset } });
    },
  }),
  route<SessionParams, PageQuery>({
    method: 'GET',
    path: '/v1/sessions/:sessionId/traces',
    permission: 'session.read',
    validate: { params: validateSessionParams, query: validatePageQuery },
    handler: ({ params, query }, ctx) => tracesBy(ctx, 'session_id', params.sessionId, query),
  }),
  route<RunParams, PageQuery>({
    method: 'GET',
    path: '/v1/runs/:runId/traces',
    permission: 'trace.read',
    validate: { params: validateRunParams, query: validatePageQuery },
    handler: ({ params, query }, ctx) => tracesBy(ctx, 'run_id', params.runId, query),
  }),
];

async function tracesBy(ctx: Context, column: 'session_id' | 'run_id', value: string, query: PageQuery) {
  const limit = query.limit ?? DEFAULT_PAGE;
  const offset = query.offset ?? 0;
  const page = await ctx.services.store.run('tracesWhere', { scope: readScope(ctx), column, value, limit, offset });
  if (page.total === 0) throw new ApiError('not_found', `No traces for ${column === 'session_id' ? 'session' : 'run'} ${value}`);
  return json({ data: page.data, pagination: { total: page.total, limit, offset } });
}
