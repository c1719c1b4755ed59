/**
 * The answers the web UI reads, from a real server seeded through the OpenTelemetry SDK and the
 * API, validated field by field (typia) against the types the UI reads them as
 * (src/web/apiTypes.ts: the server's own answer types). The UI's build checks its code against
 * those types; this checks that the server's answers are what the types say — a type looser or
 * stricter than the answers (a field typed as never null that is null, or missing) fails here.
 * (Worker runs are left to test/web/workers.alone.test.ts: a run needs a repository and an agent.)
 */
import t, { type Test } from 'tap';
import typia, { type IValidation } from 'typia';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type * as Ui from '../../src/web/apiTypes.js';
import { createRun, report, sendTrials, trial } from '../evals/helpers.js';
import { tracerProvider } from '../helpers/otel.js';
import { call, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

async function read(server: TestServer, root: Credentials, path: string): Promise<unknown> {
  const r = await call(server, 'GET', path, { auth: root });
  if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${r.text}`);
  return r.body;
}

/** Passes when `check` accepts `answer`; else fails naming the fields the UI would misread. */
function fits(t: Test, what: string, check: IValidation<unknown>) {
  t.ok(check.success, `${what} is what the UI expects`, check.success ? {} : { errors: check.errors.slice(0, 5) });
}

t.test("a real server's answers have the fields and types the UI reads", async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);

  // A trace of two spans in a session, a generation naming a prompt version; a score and a comment.
  const created = await call(server, 'POST', '/v1/prompts', {
    auth: root,
    body: { name: 'answer', prompt: [{ role: 'user', content: '{{question}}' }], labels: ['production'] },
  });
  t.equal(created.status, 201, created.text);
  const { provider, tracer } = tracerProvider(server, root, 'proto', 'support-bot');
  const at = Date.now() - 60_000;
  const rootSpan = tracer.startSpan('support-turn', {
    startTime: at,
    attributes: { 'session.id': 'session-1', 'user.id': 'user-1', 'tracelake.metadata.team': 'blue' },
  });
  const generation = tracer.startSpan(
    'chat gpt-4o',
    {
      startTime: at + 10,
      attributes: {
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 30,
        'tracelake.prompt.name': 'answer',
        'tracelake.prompt.version': 1,
      },
    },
    trace.setSpan(context.active(), rootSpan),
  );
  generation.setStatus({ code: SpanStatusCode.OK });
  generation.end(at + 500);
  rootSpan.end(at + 600);
  await provider.forceFlush();
  await provider.shutdown();
  const traceId = rootSpan.spanContext().traceId;
  const spanId = generation.spanContext().spanId;
  t.equal(
    (
      await call(server, 'POST', '/v1/scores', {
        auth: root,
        body: { name: 'accuracy', resource_id: traceId, score: 0.5, reason: 'half right' },
      })
    ).status,
    201,
  );
  t.equal(
    (
      await call(server, 'POST', '/v1/comments', {
        auth: root,
        body: { resource_type: 'trace', resource_id: traceId, content: 'Escalated.' },
      })
    ).status,
    201,
  );
  // Two runs of an experiment with a trial each, so that the second compares with the first.
  const runs = [];
  for (const resolved of [false, true]) {
    const r = await createRun(server, root, { experiment: 'checkout-agent', suite: 'swe-mini' });
    for (const step of [
      () => report(server, r.worker, r.id, {}),
      () => sendTrials(server, r.worker, r.id, [trial('t1', { resolved, costUsd: 0.1, durationMs: 1000 })]),
      () => report(server, r.worker, r.id, { card: { resolved: resolved ? 1 : 0, tasks: 1 }, costUsd: 0.1 }),
    ]) {
      const answer = await step();
      t.equal(answer.status, 200, answer.text);
    }
    runs.push(r);
  }
  const run = runs[1]!;

  const since = new Date(at - 3_600_000).toISOString();
  /** A list answer, holding `count` items: an empty list would validate nothing. */
  const listed = async (path: string, count: number, what: string) => {
    const answer = (await read(server, root, path)) as { data: unknown[] };
    t.equal(answer.data.length, count, what);
    return answer;
  };
  const traces = await listed(`/v1/traces?start_date=${since}`, 1, 'the trace is listed');
  fits(t, 'GET /v1/traces', typia.validate<Ui.Page<Ui.TraceSummary>>(traces));
  const sessionTraces = await listed('/v1/sessions/session-1/traces', 1, "the session's trace is listed");
  fits(t, 'GET /v1/sessions/{id}/traces', typia.validate<Ui.Page<Ui.TraceSummary>>(sessionTraces));
  const detail = (await read(server, root, `/v1/traces/${traceId}?fields=graph`)) as {
    data: { spans: unknown[]; graph: unknown };
  };
  t.equal(detail.data.spans.length, 2, 'the trace has its two spans');
  t.ok(detail.data.graph, 'the graph was asked for and given');
  fits(t, 'GET /v1/traces/{id}?fields=graph', typia.validate<{ data: Ui.TraceDetail }>(detail));
  const spans = await listed(`/v1/spans?start_date=${since}`, 2, 'both spans are listed');
  fits(t, 'GET /v1/spans', typia.validate<Ui.Page<Ui.Span>>(spans));
  fits(
    t,
    'GET /v1/traces/{id}/spans/{id}',
    typia.validate<{ data: Ui.SpanDetail }>(await read(server, root, `/v1/traces/${traceId}/spans/${spanId}`)),
  );
  const scores = await listed(`/v1/scores?trace_id=${traceId}`, 1, 'the score is listed');
  fits(t, 'GET /v1/scores', typia.validate<Ui.Page<Ui.Score>>(scores));
  const aggregations = (await read(server, root, `/v1/scores/aggregations?start_date=${since}`)) as {
    data: { name: string; count: number }[];
  };
  t.match(
    aggregations.data.find((a) => a.name === 'accuracy'),
    { count: 1 },
    "the score name is aggregated (beside the trials' own scores)",
  );
  fits(t, 'GET /v1/scores/aggregations', typia.validate<{ data: Ui.Aggregation[] }>(aggregations));
  const comments = await listed(`/v1/comments?resource_type=trace&resource_id=${traceId}`, 1, 'the comment is listed');
  fits(t, 'GET /v1/comments', typia.validate<Ui.Page<Ui.Comment>>(comments));
  const sessions = await listed(`/v1/sessions?start_date=${since}`, 1, 'the session is listed');
  fits(t, 'GET /v1/sessions', typia.validate<Ui.Page<Ui.Session>>(sessions));
  const prompts = await listed('/v1/prompts', 1, 'the prompt is listed');
  fits(t, 'GET /v1/prompts', typia.validate<Ui.Page<Ui.PromptSummary>>(prompts));
  fits(
    t,
    'GET /v1/prompts/{name}?version=',
    typia.validate<{ data: Ui.PromptVersion }>(await read(server, root, '/v1/prompts/answer?version=1')),
  );
  const usage = await listed(`/v1/prompts/answer/metrics?start_date=${since}`, 1, 'the version used has its figures');
  fits(t, 'GET /v1/prompts/{name}/metrics', typia.validate<{ data: Ui.PromptVersionMetrics[] }>(usage));
  const experiments = await listed('/v1/experiments', 1, 'the experiment is listed');
  fits(t, 'GET /v1/experiments', typia.validate<Ui.Page<Ui.ExperimentSummary>>(experiments));
  const experiment = (await read(server, root, `/v1/experiments/${run.experimentId}`)) as { data: { runs: unknown[] } };
  t.equal(experiment.data.runs.length, 2, 'the experiment has its runs');
  fits(t, 'GET /v1/experiments/{id}', typia.validate<{ data: Ui.ExperimentDetail }>(experiment));
  const baseline = (await read(server, root, `/v1/experiments/baseline?run_id=${run.id}`)) as {
    data: { comparison: unknown };
  };
  t.ok(baseline.data.comparison, 'the second run is compared with the first');
  fits(t, 'GET /v1/experiments/baseline', typia.validate<{ data: Ui.BaselineComparison }>(baseline));
  fits(
    t,
    'GET /v1/filter-schema',
    typia.validate<{ data: Ui.FilterSchema }>(await read(server, root, '/v1/filter-schema')),
  );
  fits(
    t,
    'GET /v1/capabilities',
    typia.validate<{ data: Ui.Capabilities }>(await read(server, root, '/v1/capabilities')),
  );
  const metrics = (await read(
    server,
    root,
    `/v1/metrics?view=spans&from=${since}&measures=count,cost&group_by=model`,
  )) as { data: unknown[] };
  t.ok(metrics.data.length > 0, 'the metrics have rows');
  fits(t, 'GET /v1/metrics', typia.validate<Ui.MetricsAnswer>(metrics));
});
