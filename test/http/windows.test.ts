/**
 * Integration: every windowed endpoint takes each bound by both of its names (`start_date` or
 * `from`, `end_date` or `to`) and answers the same for either spelling over stored traces, spans
 * and scores; the two names of one bound disagreeing is a 400 naming both.
 */
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor, type Answer, type Credentials, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;

/** A root span `ageMs` old, in session `session`, naming version `version` of the prompt `greeting`. */
function spanAged(traceId: string, ageMs: number, session: string, version: number) {
  const start = BigInt(Date.now() - ageMs) * 1_000_000n;
  const attributes = {
    'session.id': session,
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 10 * version,
    'tracelake.prompt.name': 'greeting',
    'tracelake.prompt.version': version,
  };
  return {
    traceId,
    spanId: hex(8),
    name: 'chat',
    kind: 3,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 250_000_000n),
    attributes: Object.entries(attributes).map(([key, v]) => ({
      key,
      value: typeof v === 'string' ? { stringValue: v } : { intValue: v },
    })),
    status: { code: 1 },
  };
}

type Names = 'dates' | 'from-to' | 'mixed';

/** A window's bounds under the names `names` spells them with (`mixed`: `from` and `end_date`). */
function spelt(names: Names, startMs: number, endMs: number): Record<string, string> {
  const [start, end] = [new Date(startMs).toISOString(), new Date(endMs).toISOString()];
  if (names === 'dates') return { start_date: start, end_date: end };
  if (names === 'from-to') return { from: start, to: end };
  return { from: start, end_date: end };
}

/** One windowed endpoint: asked with a window's fields, answering what the window selected. */
interface Windowed {
  name: string;
  ask(server: TestServer, auth: Credentials, window: Record<string, string>): Promise<Answer>;
}

const get =
  (path: string, extra: Record<string, string> = {}): Windowed['ask'] =>
  (server, auth, window) =>
    call(server, 'GET', `${path}?${new URLSearchParams({ ...extra, ...window })}`, { auth });
const post =
  (path: string, extra: Record<string, unknown> = {}): Windowed['ask'] =>
  (server, auth, window) =>
    call(server, 'POST', path, { auth, body: { ...extra, ...window } });

const SPAN_ROUTES: Windowed[] = [
  { name: 'GET /v1/traces', ask: get('/v1/traces') },
  { name: 'POST /v1/traces/search', ask: post('/v1/traces/search') },
  { name: 'GET /v1/spans', ask: get('/v1/spans') },
  { name: 'POST /v1/spans/search', ask: post('/v1/spans/search') },
  { name: 'GET /v1/sessions', ask: get('/v1/sessions') },
  { name: 'GET /v1/metrics', ask: get('/v1/metrics', { measures: 'count,total_tokens' }) },
  { name: 'GET /v1/prompts/greeting/metrics', ask: get('/v1/prompts/greeting/metrics') },
];

const SCORE_ROUTES: Windowed[] = [
  { name: 'GET /v1/scores', ask: get('/v1/scores') },
  { name: 'POST /v1/scores/search', ask: post('/v1/scores/search') },
  { name: 'GET /v1/scores/aggregations', ask: get('/v1/scores/aggregations') },
];

/** What an answer says the window held, in a form comparable across endpoints: its rows' count. */
function rows(a: Answer): number {
  const data = a.body.data as Record<string, unknown>[];
  if (data.length === 0) return 0;
  if ('count' in data[0]! && !('session_id' in data[0]!)) return data.reduce((n, r) => n + Number(r.count ?? 0), 0);
  if ('spans' in data[0]! && 'version' in data[0]!) return data.reduce((n, r) => n + Number(r.spans), 0);
  return data.length;
}

t.test('both names of each bound, on every windowed endpoint', async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  const now = Date.now();
  // One trace an hour old, one five hours old, one thirty: a window from 6 to 2 hours ago holds
  // the middle one only, so ignoring either of its bounds would add another.
  const traces = [
    spanAged(hex(16), 1 * HOUR, 'recent', 1),
    spanAged(hex(16), 5 * HOUR, 'middle', 2),
    spanAged(hex(16), 30 * HOUR, 'old', 3),
  ];
  const sent = await call(server, 'POST', '/v1/traces', {
    headers: { authorization: auth.key, 'x-service-app-id': auth.appId },
    body: {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'windows' } }] },
          scopeSpans: [{ scope: { name: 'test' }, spans: traces }],
        },
      ],
    },
  });
  t.equal(sent.status, 200, sent.text);

  const beforeScores = Date.now();
  for (const s of traces) {
    const r = await call(server, 'POST', '/v1/scores', {
      auth,
      body: { resource_id: s.traceId, name: 'helpful', score: 1 },
    });
    t.equal(r.status, 201, r.text);
  }
  const afterScores = Date.now() + 1;

  const cases: { routes: Windowed[]; startMs: number; endMs: number; rows: number; what: string }[] = [
    { routes: SPAN_ROUTES, startMs: now - 6 * HOUR, endMs: now - 2 * HOUR, rows: 1, what: 'the middle trace' },
    { routes: SPAN_ROUTES, startMs: now - 2 * HOUR, endMs: now + HOUR, rows: 1, what: 'the recent trace' },
    { routes: SCORE_ROUTES, startMs: beforeScores - 1, endMs: afterScores, rows: 3, what: 'every score' },
    { routes: SCORE_ROUTES, startMs: afterScores, endMs: afterScores + HOUR, rows: 0, what: 'no score (after)' },
    { routes: SCORE_ROUTES, startMs: beforeScores - HOUR, endMs: beforeScores - 1, rows: 0, what: 'no score (before)' },
  ];
  for (const c of cases) {
    for (const route of c.routes) {
      const answers = await Promise.all(
        (['dates', 'from-to', 'mixed'] as const).map((names) =>
          route.ask(server, auth, spelt(names, c.startMs, c.endMs)),
        ),
      );
      const [dates, fromTo, mixed] = answers;
      for (const a of answers) t.equal(a.status, 200, `${route.name}: ${a.text}`);
      if (answers.some((a) => a.status !== 200)) continue;
      t.equal(rows(dates!), c.rows, `${route.name} over ${c.what}`);
      t.same(fromTo!.body, dates!.body, `${route.name}: from/to answer as start_date/end_date over ${c.what}`);
      t.same(mixed!.body, dates!.body, `${route.name}: from with end_date too`);
    }
  }

  // The same instant under both names is that bound; different instants are refused, naming both.
  for (const route of [...SPAN_ROUTES, ...SCORE_ROUTES]) {
    const middle = spelt('dates', now - 6 * HOUR, now - 2 * HOUR);
    const same = await route.ask(server, auth, { ...middle, from: middle.start_date!, to: middle.end_date! });
    t.equal(same.status, 200, `${route.name}: both names, one instant: ${same.text}`);
    const start = await route.ask(server, auth, { ...middle, from: new Date(now - 7 * HOUR).toISOString() });
    t.equal(start.status, 400, `${route.name}: start_date and from disagree`);
    t.equal(start.body?.error?.code, 'invalid_time_window', route.name);
    t.same(Object.keys(start.body?.error?.details ?? {}).sort(), ['from', 'start_date'], route.name);
    const end = await route.ask(server, auth, { ...middle, to: new Date(now).toISOString() });
    t.equal(end.status, 400, `${route.name}: end_date and to disagree`);
    t.same(Object.keys(end.body?.error?.details ?? {}).sort(), ['end_date', 'to'], route.name);
  }
});
