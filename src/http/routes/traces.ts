/**
 * Reads of traces, spans, sessions and runs. Ids of other tenants or apps answer 404 exactly as ids
 * that do not exist: every query is scoped first.
 */
import {
  validateTracePageQuery,
  validateRunParams,
  validateSessionListQuery,
  validateSessionParams,
  validateSpanParams,
  validateEnvironmentQuery,
  validateTraceParams,
  validateTraceQuery,
  validateTraceSpanParams,
  type TracePageQuery,
} from '../../contract/traces.js';
import type { TraceDetail } from '../../contract/responses.js';
import { ApiError } from '../../core/errors.js';
import { buildGraph } from '../../core/graph.js';
import { resolveWindow } from '../../core/window.js';
import type { ReadScope } from '../../store/scope.js';
import { data } from '../reply.js';
import { paged } from '../paged.js';
import { narrowedScope } from './search.js';
import { route, type Context } from '../route.js';
import { CHILD_SPAN, ENV_ID, SPAN_EXAMPLE, SUMMARY_EXAMPLE } from '../../openapi/examples.js';
import { answer } from '../../openapi/note.js';
import { NO_SUCH_ENVIRONMENT } from '../../openapi/phrases.js';

/** The scope of a read: the caller's, narrowed to the environment `?environment=` names. */
function scopeOf(ctx: Context, query: { environment?: string }): Promise<ReadScope> {
  return narrowedScope(ctx, query.environment, 'query');
}

async function spansOf(ctx: Context, traceId: string, query: { environment?: string }) {
  const spans = await ctx.services.store.run('traceSpans', {
    scope: await scopeOf(ctx, query),
    traceId: traceId.toLowerCase(),
  });
  if (spans.length === 0) throw new ApiError('not_found', `Trace ${traceId} not found`);
  return spans;
}

export const traceRoutes = [
  route({
    method: 'GET',
    path: '/v1/traces/:traceId',
    permission: 'trace.read',
    validate: { params: validateTraceParams, query: validateTraceQuery },
    note: {
      tag: 'Traces',
      summary: 'One trace with its spans',
      description:
        "`metadata` is the root span's; `?fields=graph` adds the trace's graph. Admin credentials read every environment: where the id is a trace in several, production's is answered unless `environment` names one (`environment_id` and `environment` say which).",
      params: 'TraceParams',
      query: 'TraceQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [
        answer(200, 'TraceDetailAnswer', 'The trace.', {
          trace: {
            data: { ...SUMMARY_EXAMPLE, environment_id: ENV_ID, metadata: { customer: 'acme' }, spans: [SPAN_EXAMPLE] },
          },
        }),
      ],
    },
    async handler({ params, query }, ctx) {
      const found = await ctx.services.store.run('traceWithSpans', {
        scope: await scopeOf(ctx, query),
        traceId: params.traceId.toLowerCase(),
      });
      if (!found) throw new ApiError('not_found', `Trace ${params.traceId} not found`);
      return data({
        ...found.trace,
        spans: found.spans.map(({ graph: _graph, ...span }) => span),
        ...(query.fields === 'graph' ? { graph: buildGraph(found.spans) } : {}),
      } satisfies TraceDetail);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/traces/:traceId/graph',
    permission: 'trace.read',
    validate: { params: validateTraceParams, query: validateEnvironmentQuery },
    note: {
      tag: 'Traces',
      summary: 'The graph of a trace',
      description: "Nodes from the spans' reserved `graph.node.*` attributes, edges from their parents.",
      params: 'TraceParams',
      query: 'EnvironmentQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [
        answer(200, 'TraceGraphAnswer', 'The graph.', {
          graph: {
            data: {
              nodes: [{ id: 'planner', span_id: CHILD_SPAN, name: 'planner', type: 'agent', attributes: {} }],
              edges: [],
            },
          },
        }),
      ],
    },
    handler: async ({ params, query }, ctx) => data(buildGraph(await spansOf(ctx, params.traceId, query))),
  }),
  route({
    method: 'GET',
    path: '/v1/traces/:traceId/spans',
    permission: 'span.read',
    validate: { params: validateTraceParams, query: validateEnvironmentQuery },
    note: {
      tag: 'Spans',
      summary: 'The spans of a trace',
      description: 'By start time; not paginated (traces are bounded at ingest).',
      params: 'TraceParams',
      query: 'EnvironmentQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [answer(200, 'TraceSpansAnswer', 'The spans.', { spans: { data: [SPAN_EXAMPLE] } })],
    },
    handler: async ({ params, query }, ctx) =>
      data((await spansOf(ctx, params.traceId, query)).map(({ graph: _graph, ...span }) => span)),
  }),
  route({
    method: 'GET',
    path: '/v1/traces/:traceId/spans/:spanId',
    permission: 'span.read',
    validate: { params: validateTraceSpanParams, query: validateEnvironmentQuery },
    note: {
      tag: 'Spans',
      summary: 'One span of a trace, opened',
      description: 'Input and output in full, attributes, resource and scope.',
      params: 'TraceSpanParams',
      query: 'EnvironmentQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [answer(200, 'SpanDetailAnswer', 'The span.')],
    },
    async handler({ params, query }, ctx) {
      const span = await ctx.services.store.run('spanDetail', {
        scope: await scopeOf(ctx, query),
        spanId: params.spanId.toLowerCase(),
        traceId: params.traceId.toLowerCase(),
      });
      if (!span) throw new ApiError('not_found', `Span ${params.spanId} not found in trace ${params.traceId}`);
      return data(span);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/spans/:spanId',
    permission: 'span.read',
    validate: { params: validateSpanParams, query: validateEnvironmentQuery },
    note: {
      tag: 'Spans',
      summary: 'One span, opened',
      description:
        "Named without its trace, the span is searched for in the scope's segments newest first, and only in those whose span id filter does not rule it out (every compacted segment has one; the small segments of the last minute are read whole): a recent span answers soonest, an old or unknown id reads little more. When the trace is known, `GET /v1/traces/{traceId}/spans/{spanId}` finds the span through it.",
      params: 'SpanParams',
      query: 'EnvironmentQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [answer(200, 'SpanDetailAnswer', 'The span.')],
    },
    async handler({ params, query }, ctx) {
      const span = await ctx.services.store.run('spanDetail', {
        scope: await scopeOf(ctx, query),
        spanId: params.spanId.toLowerCase(),
      });
      if (!span) throw new ApiError('not_found', `Span ${params.spanId} not found`);
      return data(span);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/sessions',
    permission: 'session.read',
    validate: { query: validateSessionListQuery },
    note: {
      tag: 'Sessions',
      summary: 'List sessions',
      description: 'Sessions with a trace starting in the window, aggregated over all their traces; latest first.',
      query: 'SessionListQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [answer(200, 'SessionPage', 'A page of sessions.')],
    },
    async handler({ query }, ctx) {
      const window = resolveWindow(query, Date.now());
      const userId = query.user_id === undefined ? {} : { userId: query.user_id };
      const scope = await scopeOf(ctx, query);
      return paged(query, (page) => ctx.services.store.run('listSessions', { scope, ...window, ...page, ...userId }));
    },
  }),
  route({
    method: 'GET',
    path: '/v1/sessions/:sessionId/traces',
    permission: 'session.read',
    validate: { params: validateSessionParams, query: validateTracePageQuery },
    note: {
      tag: 'Sessions',
      summary: 'The traces of a session',
      params: 'SessionParams',
      query: 'TracePageQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [answer(200, 'TracePage', 'A page of trace summaries, latest first.')],
    },
    handler: ({ params, query }, ctx) => tracesBy(ctx, 'session_id', params.sessionId, query),
  }),
  route({
    method: 'GET',
    path: '/v1/runs/:runId/traces',
    permission: 'trace.read',
    validate: { params: validateRunParams, query: validateTracePageQuery },
    note: {
      tag: 'Traces',
      summary: 'The traces of a run',
      params: 'RunParams',
      query: 'TracePageQuery',
      errors: [NO_SUCH_ENVIRONMENT],
      answers: [answer(200, 'TracePage', 'A page of trace summaries, latest first.')],
    },
    handler: ({ params, query }, ctx) => tracesBy(ctx, 'run_id', params.runId, query),
  }),
];

async function tracesBy(ctx: Context, column: 'session_id' | 'run_id', value: string, query: TracePageQuery) {
  const scope = await scopeOf(ctx, query);
  return paged(query, async (page) => {
    const found = await ctx.services.store.run('tracesWhere', { scope, column, value, ...page });
    if (found.total === 0)
      throw new ApiError('not_found', `No traces for ${column === 'session_id' ? 'session' : 'run'} ${value}`);
    return found;
  });
}
