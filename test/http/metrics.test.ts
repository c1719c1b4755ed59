/**
 * Integration: `GET /v1/metrics` over traces, spans and scores sent through the real OpenTelemetry
 * SDK. Every measure under every grouping is checked against figures computed here, in the test,
 * from the fixture itself (not from the API's other answers); then windows, buckets, filters, the
 * group limit, environments, permissions, errors and the local surface.
 */
import t from 'tap';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { exporterFor } from '../helpers/otel.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface FixtureSpan {
  name: string;
  kind: 'agent' | 'function' | 'llm' | 'tool';
  startMs: number;
  endMs: number;
  error: boolean;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
  promptName: string | null;
  userId: string | null;
  sessionId: string | null;
}

interface FixtureTrace {
  environment: 'production' | 'staging';
  service: 'web' | 'worker';
  spans: FixtureSpan[];
}

/** 24 traces over the last five and a half hours, of one to three spans, in two environments. */
function fixture(now: number): FixtureTrace[] {
  const out: FixtureTrace[] = [];
  for (let i = 0; i < 24; i++) {
    const start = now - (15 + i * 13) * MINUTE - (i % 7) * 1000;
    const user = ['alice', 'bob', 'carol'][i % 3]!;
    const session = i % 5 === 0 ? null : `s-${i % 4}`;
    const spans: FixtureSpan[] = [
      {
        name: ['checkout', 'search', 'support'][Math.floor(i / 2) % 3]!,
        kind: i % 2 === 0 ? 'agent' : 'function',
        startMs: start,
        endMs: start + 200 + ((i * 37) % 500),
        error: i % 6 === 1,
        model: null,
        inputTokens: null,
        outputTokens: null,
        cost: null,
        promptName: null,
        userId: user,
        sessionId: session,
      },
      {
        name: 'chat',
        kind: 'llm',
        startMs: start + 5,
        endMs: start + 5 + 100 + ((i * 53) % 300),
        error: false,
        model: ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet'][(i * 5) % 3]!,
        inputTokens: 100 + i * 10,
        outputTokens: 20 + i * 3,
        cost: 0.0001 * (i + 1) + 0.00037,
        promptName: i % 2 === 0 ? 'answer-v2' : null,
        userId: null,
        sessionId: null,
      },
    ];
    if (i % 2 === 0) {
      spans.push({
        name: 'lookup',
        kind: 'tool',
        startMs: start + 10,
        endMs: start + 10 + 20 + i * 3,
        error: i % 7 === 2,
        model: null,
        inputTokens: null,
        outputTokens: null,
        cost: null,
        promptName: null,
        userId: null,
        sessionId: null,
      });
    }
    out.push({ environment: i % 4 === 3 ? 'staging' : 'production', service: i % 2 === 0 ? 'web' : 'worker', spans });
  }
  return out;
}

function attributesOf(s: FixtureSpan): Record<string, string | number> {
  const a: Record<string, string | number> = {};
  if (s.kind === 'agent') a['openinference.span.kind'] = 'AGENT';
  if (s.kind === 'tool') a['openinference.span.kind'] = 'TOOL';
  if (s.kind === 'llm') a['gen_ai.operation.name'] = 'chat';
  if (s.model) a['gen_ai.request.model'] = s.model;
  if (s.inputTokens !== null) a['gen_ai.usage.input_tokens'] = s.inputTokens;
  if (s.outputTokens !== null) a['gen_ai.usage.output_tokens'] = s.outputTokens;
  if (s.cost !== null) a['tracelake.cost'] = s.cost;
  if (s.promptName) a['tracelake.prompt.name'] = s.promptName;
  if (s.userId) a['user.id'] = s.userId;
  if (s.sessionId) a['session.id'] = s.sessionId;
  return a;
}

/** Sends the fixture through the OpenTelemetry SDK (batched, one provider per key and service). */
async function send(
  server: TestServer,
  keys: Record<FixtureTrace['environment'], Credentials>,
  traces: FixtureTrace[],
): Promise<string[]> {
  const providers = new Map<string, BasicTracerProvider>();
  const ids: string[] = [];
  for (const f of traces) {
    const id = `${f.environment}/${f.service}`;
    let provider = providers.get(id);
    if (!provider) {
      provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': f.service }),
        spanProcessors: [
          new BatchSpanProcessor(exporterFor(server, keys[f.environment], 'proto'), {
            maxExportBatchSize: 512,
            scheduledDelayMillis: 60_000,
          }),
        ],
      });
      providers.set(id, provider);
    }
    const tracer = provider.getTracer('metrics-test');
    const [root, ...children] = f.spans;
    const rootSpan = tracer.startSpan(root!.name, { startTime: root!.startMs, attributes: attributesOf(root!) });
    const parent = trace.setSpan(context.active(), rootSpan);
    for (const c of children) {
      const span = tracer.startSpan(c.name, { startTime: c.startMs, attributes: attributesOf(c) }, parent);
      if (c.error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
      else span.setStatus({ code: SpanStatusCode.OK });
      span.end(c.endMs);
    }
    if (root!.error) rootSpan.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
    else rootSpan.setStatus({ code: SpanStatusCode.OK });
    rootSpan.end(root!.endMs);
    ids.push(rootSpan.spanContext().traceId);
  }
  for (const p of providers.values()) await p.forceFlush();
  for (const p of providers.values()) await p.shutdown();
  return ids;
}

// ---- figures computed in the test --------------------------------------------------------------

type Row = { timeMs: number; dims: Record<string, string | null>; values: Record<string, number | null> };

/** The start of the UTC bucket holding `ms` (weeks start on Monday), by calendar arithmetic. */
function bucketStart(ms: number, bucket: string): number {
  const d = new Date(ms);
  if (bucket === 'minute')
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes());
  if (bucket === 'hour') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (bucket === 'day') return day;
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return day - sinceMonday * 24 * HOUR;
}

/** Linear interpolation between closest ranks (DuckDB's quantile_cont, numpy's default). */
function quantile(values: number[], q: number): number {
  const v = [...values].sort((a, b) => a - b);
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo]! + (v[hi]! - v[lo]!) * (pos - lo);
}

const sum = (xs: (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
const mean = (xs: number[]) => sum(xs) / xs.length;

function measure(name: string, rows: Row[]): number {
  const latencies = rows.map((r) => r.values.latency!);
  switch (name) {
    case 'count':
      return rows.length;
    case 'cost':
      return sum(rows.map((r) => r.values.cost!));
    case 'input_tokens':
      return sum(rows.map((r) => r.values.input_tokens!));
    case 'output_tokens':
      return sum(rows.map((r) => r.values.output_tokens!));
    case 'total_tokens':
      return sum(rows.map((r) => r.values.tokens!));
    case 'latency_mean':
      return mean(latencies);
    case 'latency_p50':
      return quantile(latencies, 0.5);
    case 'latency_p90':
      return quantile(latencies, 0.9);
    case 'latency_p95':
      return quantile(latencies, 0.95);
    case 'latency_p99':
      return quantile(latencies, 0.99);
    case 'error_rate':
      return rows.filter((r) => r.values.error === 1).length / rows.length;
    case 'score_avg':
      return mean(rows.map((r) => r.values.score!));
    default:
      throw new Error(`no expectation for ${name}`);
  }
}

/** Expected answer rows: per bucket and group, every measure; sorted like the API's (bucket, then group size). */
function expected(rows: Row[], bucket: string, groupBy: string[], measures: string[], limit = 10) {
  const groupKey = (r: Row) => JSON.stringify(groupBy.map((d) => r.dims[d] ?? null));
  const sizes = new Map<string, number>();
  for (const r of rows) sizes.set(groupKey(r), (sizes.get(groupKey(r)) ?? 0) + 1);
  const rank = [...sizes.entries()].sort((a, b) => b[1] - a[1] || compareKeys(a[0], b[0])).map(([k]) => k);
  const kept = new Set(rank.slice(0, limit));
  const cells = new Map<string, Row[]>();
  for (const r of rows) {
    if (!kept.has(groupKey(r))) continue;
    const k = JSON.stringify([bucketStart(r.timeMs, bucket), groupKey(r)]);
    cells.set(k, [...(cells.get(k) ?? []), r]);
  }
  return {
    groups: sizes.size,
    rows: [...cells.entries()]
      .map(([k, members]) => {
        const [b, g] = JSON.parse(k) as [number, string];
        const values = JSON.parse(g) as (string | null)[];
        const out: Record<string, unknown> = { bucket: new Date(b).toISOString() };
        for (const [i, d] of groupBy.entries()) out[d] = values[i];
        for (const m of measures) out[m] = measure(m, members);
        return { b, rank: rank.indexOf(g), out };
      })
      .sort((x, y) => x.b - y.b || x.rank - y.rank)
      .map((x) => x.out),
  };
}

/** Group values compare like SQL's ORDER BY g0 NULLS LAST, g1 NULLS LAST. */
function compareKeys(a: string, b: string): number {
  const x = JSON.parse(a) as (string | null)[];
  const y = JSON.parse(b) as (string | null)[];
  for (let i = 0; i < x.length; i++) {
    if (x[i] === y[i]) continue;
    if (x[i] === null) return 1;
    if (y[i] === null) return -1;
    return x[i]! < y[i]! ? -1 : 1;
  }
  return 0;
}

function traceRows(traces: FixtureTrace[]): Row[] {
  return traces.map((f) => {
    const root = f.spans[0]!;
    const start = Math.min(...f.spans.map((s) => s.startMs));
    const end = Math.max(...f.spans.map((s) => s.endMs));
    return {
      timeMs: start,
      dims: { name: root.name, environment: f.environment, user_id: root.userId, session_id: root.sessionId },
      values: {
        latency: end - start,
        cost: sum(f.spans.map((s) => s.cost)),
        tokens: sum(f.spans.map((s) => (s.inputTokens ?? 0) + (s.outputTokens ?? 0))),
        error: f.spans.some((s) => s.error) ? 1 : 0,
      },
    };
  });
}

function spanRows(traces: FixtureTrace[]): Row[] {
  return traces.flatMap((f) =>
    f.spans.map((s) => ({
      timeMs: s.startMs,
      dims: {
        model: s.model,
        name: s.name,
        environment: f.environment,
        user_id: s.userId,
        session_id: s.sessionId,
        prompt_name: s.promptName,
        service_name: f.service,
        span_kind: s.kind,
      },
      values: {
        latency: s.endMs - s.startMs,
        cost: s.cost,
        input_tokens: s.inputTokens,
        output_tokens: s.outputTokens,
        tokens: s.inputTokens === null ? null : s.inputTokens + s.outputTokens!,
        error: s.error ? 1 : 0,
      },
    })),
  );
}

/** Numbers equal to 1e-9 (sums of decimal costs are exact in the store, not in JS). */
/**
 * Equal up to float noise; a key in `relative` within that relative error instead (the spans view's
 * percentiles are read from a histogram whose buckets are 2% wide: within 1%).
 */
function close(actual: unknown, want: unknown, relative: Record<string, number> = {}, key = ''): boolean {
  if (Array.isArray(actual) && Array.isArray(want))
    return actual.length === want.length && actual.every((a, i) => close(a, want[i], relative));
  if (typeof actual === 'number' && typeof want === 'number')
    return Math.abs(actual - want) <= (relative[key] ?? 1e-9) * Math.max(key in relative ? 0 : 1, Math.abs(want));
  if (actual && want && typeof actual === 'object' && typeof want === 'object') {
    const ka = Object.keys(actual).sort();
    const kw = Object.keys(want).sort();
    return (
      JSON.stringify(ka) === JSON.stringify(kw) &&
      ka.every((k) => close((actual as Record<string, unknown>)[k], (want as Record<string, unknown>)[k], relative, k))
    );
  }
  return actual === want;
}

const HISTOGRAM_ERROR = 0.01;
const PERCENTILES = ['latency_p50', 'latency_p90', 'latency_p95', 'latency_p99'];
/** What `close` allows the percentiles of a view. */
const percentileError = (view: string): Record<string, number> =>
  view === 'spans' ? Object.fromEntries(PERCENTILES.map((p) => [p, HISTOGRAM_ERROR])) : {};

t.test('GET /v1/metrics', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } })).status,
    201,
  );
  const keys = {
    production: await createKey(server, root, { name: 'prod sdk', role: 'SDK' }),
    staging: await createKey(server, root, { name: 'staging sdk', role: 'SDK', environment_name: 'staging' }),
  };
  const now = Date.now();
  const traces = fixture(now);
  const traceIds = await send(server, keys, traces);

  // Scores: two names, given by two users, some scoped to the trace's session.
  const environments = new Map<string, string>(
    ((await call(server, 'GET', '/v1/environments', { auth: root })).body.data as { id: string; name: string }[]).map(
      (e) => [e.id, e.name],
    ),
  );
  const scores: Row[] = [];
  for (const [i, id] of traceIds.entries()) {
    for (const name of i % 3 === 0 ? ['quality', 'helpfulness'] : ['quality']) {
      const score = ((i * 7 + name.length) % 10) / 10;
      const user = i % 2 === 0 ? 'reviewer-1' : 'reviewer-2';
      const session = traces[i]!.spans[0]!.sessionId;
      const body = {
        name,
        resource_id: id,
        score,
        user_id: user,
        ...(i % 4 === 1 && session ? { session_id: session } : {}),
      };
      const r = await call(server, 'POST', '/v1/scores', { auth: root, body });
      t.equal(r.status, 201, r.text);
      scores.push({
        timeMs: Date.parse(r.body.data.created_at),
        dims: {
          score_name: name,
          environment: environments.get(r.body.data.environment_id) ?? null,
          user_id: user,
          session_id: 'session_id' in body ? session : null,
        },
        values: { score },
      });
    }
  }

  const window = `from=${new Date(now - 6 * HOUR).toISOString()}&to=${new Date(now + MINUTE).toISOString()}`;
  const metrics = async (query: string, auth: Credentials = root) =>
    call(server, 'GET', `/v1/metrics?${query}`, { auth });

  const VIEWS = {
    traces: {
      rows: traceRows(traces),
      measures: [
        'count',
        'cost',
        'total_tokens',
        'latency_mean',
        'latency_p50',
        'latency_p90',
        'latency_p95',
        'latency_p99',
        'error_rate',
      ],
      groupings: [[], ['name'], ['environment'], ['user_id'], ['session_id'], ['name', 'user_id']],
    },
    spans: {
      rows: spanRows(traces),
      measures: [
        'count',
        'cost',
        'input_tokens',
        'output_tokens',
        'total_tokens',
        'latency_mean',
        'latency_p50',
        'latency_p90',
        'latency_p95',
        'latency_p99',
        'error_rate',
      ],
      groupings: [
        [],
        ['model'],
        ['name'],
        ['environment'],
        ['user_id'],
        ['session_id'],
        ['prompt_name'],
        ['service_name'],
        ['span_kind'],
        ['model', 'environment'],
      ],
    },
    scores: {
      rows: scores,
      measures: ['count', 'score_avg'],
      groupings: [[], ['score_name'], ['environment'], ['user_id'], ['session_id'], ['score_name', 'user_id']],
    },
  } as const;

  for (const [view, spec] of Object.entries(VIEWS)) {
    t.test(`view ${view}: every measure under every grouping`, async (t) => {
      for (const groupBy of spec.groupings) {
        const q = `view=${view}&bucket=hour&${window}&measures=${spec.measures.join(',')}${groupBy.length ? `&group_by=${groupBy.join(',')}` : ''}&group_limit=100`;
        const r = await metrics(q);
        t.equal(r.status, 200, `${q}: ${r.text.slice(0, 300)}`);
        const want = expected(spec.rows, 'hour', [...groupBy], [...spec.measures], 100);
        t.ok(close(r.body.data, want.rows, percentileError(view)), `${view} by [${groupBy.join(', ')}]`, {
          found: r.body.data,
          wanted: want.rows,
        });
        if (groupBy.length) t.equal(r.body.meta.groups, want.groups, 'the groups counted');
        t.same(r.body.meta.measures, spec.measures);
        t.same(r.body.meta.group_by, groupBy);
      }
    });
  }

  t.test('buckets: minute, hour, day and week, aligned in UTC; the default follows the window', async (t) => {
    for (const bucket of ['minute', 'hour', 'day', 'week']) {
      const r = await metrics(`view=spans&bucket=${bucket}&${window}&measures=count,cost&group_by=model`);
      t.equal(r.status, 200, r.text);
      t.ok(close(r.body.data, expected(VIEWS.spans.rows, bucket, ['model'], ['count', 'cost']).rows), bucket);
      t.equal(r.body.meta.bucket, bucket);
    }
    const auto = await metrics(window);
    t.equal(auto.body.meta.bucket, 'hour', 'six hours: 362 minutes are over 200 buckets, 7 or 8 hours are not');
    // Seven UTC hours, eight when the window's last minute crosses the hour (failed in CI at 01:59 UTC).
    const hoursTouched = Math.floor((now + MINUTE - 1) / HOUR) - Math.floor((now - 6 * HOUR) / HOUR) + 1;
    t.equal(auto.body.meta.buckets, hoursTouched);
    const hourly = await metrics(`from=${new Date(now - HOUR).toISOString()}&to=${new Date(now).toISOString()}`);
    t.equal(hourly.body.meta.bucket, 'minute', 'an hour: minutes');
    const week = await metrics('');
    t.equal(week.body.meta.bucket, 'hour', 'the default window, 7 days: hours');
  });

  t.test("the filter of the view's list, and the group limit", async (t) => {
    const llm = await metrics(
      `view=spans&${window}&bucket=day&measures=count,total_tokens&filter=${encodeURIComponent('type = GENERATION and model starts with gpt')}`,
    );
    t.equal(llm.status, 200, llm.text);
    const gpt = VIEWS.spans.rows.filter((r) => r.dims.model?.startsWith('gpt'));
    t.ok(close(llm.body.data, expected(gpt, 'day', [], ['count', 'total_tokens']).rows));
    const errors = await metrics(`${window}&bucket=day&filter=${encodeURIComponent('status = ERROR')}`);
    t.ok(
      close(
        errors.body.data,
        expected(
          VIEWS.traces.rows.filter((r) => r.values.error === 1),
          'day',
          [],
          ['count'],
        ).rows,
      ),
    );
    const byModel = await metrics(
      `view=traces&${window}&bucket=day&filter=${encodeURIComponent('model = claude-3-5-sonnet')}`,
    );
    t.equal(
      sum(byModel.body.data.map((r: { count: number }) => r.count)),
      traces.filter((f) => f.spans.some((s) => s.model === 'claude-3-5-sonnet')).length,
      'span-level predicates on the traces view',
    );
    const top = await metrics(`view=spans&${window}&bucket=day&group_by=name&group_limit=2`);
    const want = expected(VIEWS.spans.rows, 'day', ['name'], ['count'], 2);
    t.ok(close(top.body.data, want.rows), 'the two largest groups are kept');
    t.equal(top.body.meta.groups, want.groups);
    t.equal(top.body.meta.groups_omitted, want.groups - 2);
    const scoreFilter = await metrics(
      `view=scores&${window}&bucket=day&measures=score_avg&filter=${encodeURIComponent('name = quality and score >= 0.5')}`,
    );
    t.ok(
      close(
        scoreFilter.body.data,
        expected(
          scores.filter((s) => s.dims.score_name === 'quality' && s.values.score! >= 0.5),
          'day',
          [],
          ['score_avg'],
        ).rows,
      ),
    );
    const badFilter = await metrics(`${window}&filter=${encodeURIComponent('nmae = x')}`);
    t.equal(badFilter.status, 400);
    t.equal(badFilter.body.error.code, 'invalid_filter');
  });

  t.test('environments: narrowed by name; a pinned key reads its own', async (t) => {
    const staging = await metrics(`${window}&bucket=day&environment=staging`);
    t.ok(
      close(
        staging.body.data,
        expected(
          VIEWS.traces.rows.filter((r) => r.dims.environment === 'staging'),
          'day',
          [],
          ['count'],
        ).rows,
      ),
    );
    const reader = await createKey(server, root, { name: 'reader', role: 'Read-Only' });
    const own = await metrics(`${window}&bucket=day&group_by=environment`, reader);
    // A row per day bucket: a window across midnight UTC gives production two (failed in CI at 00:40 UTC).
    t.same(
      [...new Set(own.body.data.map((r: { environment: string }) => r.environment))],
      ['production'],
      'a key pinned to production sees production only',
    );
    t.equal((await metrics(`${window}&environment=staging`, reader)).status, 403);
    const unknown = await metrics(`${window}&environment=nowhere`);
    t.equal(unknown.status, 400);
    t.match(unknown.body.error.details, { environment: /no environment "nowhere"/ });
  });

  t.test('refusals', async (t) => {
    const sdk = await metrics(window, keys.production);
    t.equal(sdk.status, 403, 'an SDK key has no metrics.read');
    t.equal(sdk.body.error.code, 'forbidden');
    const cases: [string, string, RegExp][] = [
      ['measures=count,nope', 'measures', /unknown measure "nope"/],
      ['measures=input_tokens', 'measures', /not offered by view traces \(it is by spans\)/],
      ['view=scores&measures=cost', 'measures', /not offered by view scores/],
      ['group_by=model', 'group_by', /not offered by view traces/],
      ['view=spans&group_by=model,name,environment', 'group_by', /at most 2/],
      ['measures=,', 'measures', /at least one measure/],
      ['bucket=minute&from=2026-01-01T00:00:00Z&to=2026-01-05T00:00:00Z', 'bucket', /5760; at most 2500/],
      ['bucket=fortnight', 'bucket', /must be one of/],
      ['view=logs', 'view', /must be one of/],
      ['group_limit=101', 'group_limit', /from 1 to 100/],
      ['since=2026-01-01T00:00:00Z', 'since', /unknown parameter/],
    ];
    for (const [query, param, message] of cases) {
      const r = await metrics(query);
      t.equal(r.status, 400, query);
      t.equal(r.body.error.code, 'invalid_query_parameters', query);
      t.match(r.body.error.details?.[param], message, query);
    }
    const reversed = await metrics(`from=${new Date(now).toISOString()}&to=${new Date(now - HOUR).toISOString()}`);
    t.equal(reversed.body.error.code, 'invalid_time_window');
    t.match(reversed.body.error.message, /from must be before to/);
    const wide = await metrics(`from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z`);
    t.match(wide.body.error.message, /at most 90 days/);
    const caps = await call(server, 'GET', '/v1/capabilities');
    t.equal(caps.body.data.features.metrics, true, 'capabilities report metrics');
  });
});

t.test('the local development server answers 501 not_available_locally', async (t) => {
  const server = await serverFor(t, { args: ['--mode', 'local'] });
  const r = await call(server, 'GET', '/v1/metrics');
  t.equal(r.status, 501);
  t.equal(r.body.error.code, 'not_available_locally');
  const caps = await call(server, 'GET', '/v1/capabilities');
  t.equal(caps.body.data.features.metrics, false);
});
