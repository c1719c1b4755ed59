/**
 * Integration: spans that name a prompt link to its versions — the `prompt_version` filter, and per
 * version the usage, cost, latency and average scores (one DuckDB query), checked against the same
 * figures computed here from the spans and scores the test sent.
 */
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';

interface Gen {
  trace: string;
  span: string;
  prompt: string | null;
  version: number | string | null;
  /** Which attribute names carry the link. */
  style: 'tracelake' | 'langfuse';
  input: number;
  output: number;
  cost: number;
  ms: number;
}

const [A, B, C, D, E] = [hex(16), hex(16), hex(16), hex(16), hex(16)];
const GENS: Gen[] = [
  {
    trace: A,
    span: hex(8),
    prompt: 'greeting',
    version: 1,
    style: 'tracelake',
    input: 100,
    output: 20,
    cost: 0.01,
    ms: 100,
  },
  {
    trace: B,
    span: hex(8),
    prompt: 'greeting',
    version: 1,
    style: 'langfuse',
    input: 50,
    output: 10,
    cost: 0.005,
    ms: 300,
  },
  {
    trace: B,
    span: hex(8),
    prompt: 'greeting',
    version: '2',
    style: 'tracelake',
    input: 80,
    output: 40,
    cost: 0.02,
    ms: 200,
  },
  {
    trace: C,
    span: hex(8),
    prompt: 'greeting',
    version: 2,
    style: 'langfuse',
    input: 10,
    output: 5,
    cost: 0.001,
    ms: 50,
  },
  {
    trace: C,
    span: hex(8),
    prompt: 'greeting',
    version: 2,
    style: 'tracelake',
    input: 30,
    output: 30,
    cost: 0.003,
    ms: 150,
  },
  {
    trace: D,
    span: hex(8),
    prompt: 'greeting',
    version: null,
    style: 'tracelake',
    input: 1,
    output: 1,
    cost: 0,
    ms: 10,
  },
  {
    trace: E,
    span: hex(8),
    prompt: 'farewell',
    version: 1,
    style: 'tracelake',
    input: 7,
    output: 7,
    cost: 0.5,
    ms: 999,
  },
];

function otlp(gens: Gen[]) {
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'metrics-test' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: gens.map((g, i) => {
              const attrs: Record<string, string | number> = {
                'gen_ai.request.model': 'gpt-4o',
                'gen_ai.usage.input_tokens': g.input,
                'gen_ai.usage.output_tokens': g.output,
                'tracelake.cost': g.cost,
              };
              const ns = g.style === 'tracelake' ? 'tracelake.prompt' : 'langfuse.observation.prompt';
              if (g.prompt !== null) attrs[`${ns}.name`] = g.prompt;
              if (g.version !== null) attrs[`${ns}.version`] = g.version;
              const s = start + BigInt(i) * 1_000_000_000n;
              return {
                traceId: g.trace,
                spanId: g.span,
                name: 'chat gpt-4o',
                kind: 3,
                startTimeUnixNano: String(s),
                endTimeUnixNano: String(s + BigInt(g.ms) * 1_000_000n),
                attributes: Object.entries(attrs).map(([key, v]) => ({
                  key,
                  value:
                    typeof v === 'string'
                      ? { stringValue: v }
                      : Number.isInteger(v)
                        ? { intValue: v }
                        : { doubleValue: v },
                })),
                status: { code: 1 },
              };
            }),
          },
        ],
      },
    ],
  };
}

/** DuckDB's quantile_cont: linear interpolation between the closest ranks. */
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (pos - lo);
}

function averages(scores: { name: string; score: number }[]) {
  const by = new Map<string, number[]>();
  for (const s of scores) by.set(s.name, [...(by.get(s.name) ?? []), s.score]);
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, xs]) => ({ name, count: xs.length, avg_score: xs.reduce((a, b) => a + b, 0) / xs.length }));
}

t.test('prompt version metrics', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const ingest = await call(server, 'POST', '/v1/traces', {
    body: otlp(GENS),
    headers: { authorization: root.key, 'x-service-app-id': root.appId },
  });
  t.equal(ingest.status, 200, ingest.text);

  const spanScores = [
    { resource_id: GENS[0]!.span, name: 'accuracy', score: 0.8 },
    { resource_id: GENS[1]!.span, name: 'accuracy', score: 0.6 },
    { resource_id: GENS[2]!.span, name: 'accuracy', score: 1 },
    { resource_id: GENS[3]!.span, name: 'accuracy', score: 0.5 },
    { resource_id: GENS[3]!.span, name: 'tone', score: 0.25 },
    { resource_id: GENS[6]!.span, name: 'accuracy', score: 0 },
  ];
  const traceScores = [
    { resource_id: B, name: 'helpful', score: 1 },
    { resource_id: C, name: 'helpful', score: 0 },
    { resource_id: A, name: 'helpful', score: 0.5 },
  ];
  for (const s of [...spanScores, ...traceScores]) {
    const r = await call(server, 'POST', '/v1/scores', { auth: root, body: s });
    t.equal(r.status, 201, r.text);
  }

  // The expected figures, from what was sent.
  const mine = GENS.filter((g) => g.prompt === 'greeting');
  const versionOf = (g: Gen) => (g.version === null ? null : Number(g.version));
  const versions = [...new Set(mine.map(versionOf))].sort((a, b) => (a === null ? 1 : b === null ? -1 : b - a));
  const expected = versions.map((v) => {
    const gs = mine.filter((g) => versionOf(g) === v);
    const traces = [...new Set(gs.map((g) => g.trace))];
    const ms = gs.map((g) => g.ms);
    return {
      version: v,
      spans: gs.length,
      traces: traces.length,
      input_tokens: gs.reduce((a, g) => a + g.input, 0),
      output_tokens: gs.reduce((a, g) => a + g.output, 0),
      tokens: gs.reduce((a, g) => a + g.input + g.output, 0),
      cost: gs.reduce((a, g) => a + g.cost, 0),
      latency_ms: { avg: ms.reduce((a, b) => a + b, 0) / ms.length, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) },
      scores: averages(spanScores.filter((s) => gs.some((g) => g.span === s.resource_id))),
      trace_scores: averages(traceScores.filter((s) => traces.includes(s.resource_id))),
    };
  });

  const r = await call(server, 'GET', '/v1/prompts/greeting/metrics', { auth: root });
  t.equal(r.status, 200, r.text);
  t.equal(r.body.data.length, expected.length, 'versions 2, 1 and the spans without a version');
  r.body.data.forEach(
    (
      got: Record<string, unknown> & {
        cost: number;
        latency_ms: Record<string, number>;
        scores: { avg_score: number }[];
      },
      i: number,
    ) => {
      const want = expected[i]!;
      t.match(
        got,
        {
          version: want.version,
          spans: want.spans,
          traces: want.traces,
          input_tokens: want.input_tokens,
          output_tokens: want.output_tokens,
          tokens: want.tokens,
        },
        `version ${want.version}`,
      );
      t.ok(Math.abs(got.cost - want.cost) < 1e-9, `cost of ${want.version}: ${got.cost} vs ${want.cost}`);
      for (const k of ['avg', 'p50', 'p95'] as const)
        t.ok(
          Math.abs(got.latency_ms[k]! - want.latency_ms[k]) < 1e-6,
          `latency ${k} of ${want.version}: ${got.latency_ms[k]} vs ${want.latency_ms[k]}`,
        );
      t.same(round(got.scores), round(want.scores), `span scores of ${want.version}`);
      t.same(
        round(got.trace_scores as typeof want.scores),
        round(want.trace_scores),
        `trace scores of ${want.version}`,
      );
      t.match(got.first_seen, /Z$/);
    },
  );
  t.same((await call(server, 'GET', '/v1/prompts/nothing/metrics', { auth: root })).body.data, []);
  t.equal(
    (await call(server, 'GET', '/v1/prompts/greeting/metrics?start_date=2020-01-01T00:00:00Z', { auth: root })).status,
    400,
    'past the 90-day window',
  );
  const noMetrics = await call(server, 'POST', '/v1/api-keys', {
    auth: root,
    body: { name: 'no-metrics', role: 'SDK' },
  });
  t.equal(
    (
      await call(server, 'GET', '/v1/prompts/greeting/metrics', {
        auth: { key: noMetrics.body.data.plaintext_key, appId: root.appId },
      })
    ).status,
    403,
    'metrics.read',
  );

  const v2 = await call(server, 'GET', `/v1/spans?filter=${encodeURIComponent('prompt_version = 2')}`, { auth: root });
  t.same(
    v2.body.data.map((s: { id: string }) => s.id).sort(),
    GENS.filter((g) => g.prompt === 'greeting' && Number(g.version) === 2)
      .map((g) => g.span)
      .sort(),
    'the prompt_version filter on spans',
  );
  const traces = await call(
    server,
    'GET',
    `/v1/traces?filter=${encodeURIComponent('prompt_name = greeting and prompt_version = 1')}`,
    { auth: root },
  );
  t.same(traces.body.data.map((x: { id: string }) => x.id).sort(), [A, B].sort(), 'and on traces');
});

function round<T extends { avg_score: number }>(xs: T[]): T[] {
  return xs.map((x) => ({ ...x, avg_score: Math.round(x.avg_score * 1e9) / 1e9 }));
}
