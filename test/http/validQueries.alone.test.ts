/**
 * Integration: every route that takes query parameters, fed query strings the API reference calls
 * valid — each documented parameter present or not (always when required), with a random value of
 * its documented schema (test/helpers/schemaSample.ts: dates at both ends of what the format takes,
 * numbers at their bounds and extremes, strings with quotes, controls and emoji), real ids and
 * filters of a populated server mixed in. Each answer must be a status the reference lists for the
 * route — never a 5xx other than 501 and 503 — and a valid value of the type it names for that
 * status; a refusal of the parameters themselves (`invalid_query_parameters`) must name one the
 * reference bounds more tightly than its schema says (the semantic checks it documents: a window
 * whose end is before its start). The bodies' side is validBodies.test.ts.
 */
import t from 'tap';
import { documentedRoutes } from '../../src/http/routeTable.js';
import { noteKey } from '../../src/openapi/document.js';
import { seededRandom } from '../helpers/random.js';
import { sample } from '../helpers/schemaSample.js';
import { call } from '../helpers/server.js';
import {
  answerProblems,
  documented,
  DOC,
  populatedServer,
  SWEEP_SEEDS,
  sweepCount,
  unstatedRefusal,
} from '../helpers/sweep.js';

/** `npm test` sends a third of them, of one seed; `npm run test:full` all (test/helpers/sweepSize.ts). */
const QUERIES_PER_ROUTE = sweepCount(30, 10);
/** An event stream stays open while its run lives: not a request that answers. */
const STREAMS = new Set(['GET /v1/workers/runs/:runId/stream']);

t.test('query strings the reference calls valid, on every route that takes them', async (t) => {
  const populated = await populatedServer(t);
  const { server, root, operator, nameOf } = populated;
  const traceId = populated.real.trace_id![0] as string;
  const pathValues: Record<string, string> = {
    ...populated.pathValues,
    traceId,
    sessionId: 'session-1',
    file: 'app.js',
  };
  const real: Record<string, unknown[]> = {
    ...populated.real,
    filter: [
      'name = "root"',
      'cost > 0.5',
      'latency_ms >= 0',
      'metadata.customer = "acme"',
      'status = "ERROR" OR model = "gpt-4o"',
      'tokens > 9007199254740991',
    ],
    measures: ['count', 'cost', 'count,p95_latency_ms', 'avg_value'],
    group_by: ['model', 'name', 'environment', 'service_name'],
    path: ['prompts/greeting.md'],
    ref: ['main', 'staging'],
  };

  const routes = documentedRoutes().filter(
    (r) =>
      !STREAMS.has(noteKey(r.method, r.path)) &&
      (documented(r.method, r.path).parameters ?? []).some((p) => p.in === 'query'),
  );
  t.ok(routes.length >= 25, `${routes.length} routes take documented query parameters`);
  const answered = new Map<string, Map<number, number>>();
  for (const seed of SWEEP_SEEDS) {
    const random = seededRandom(seed);
    for (const route of routes) {
      const key = noteKey(route.method, route.path);
      const parameters = documented(route.method, route.path).parameters!.filter((p) => p.in === 'query');
      const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
        encodeURIComponent(name === 'name' ? nameOf(route.path) : (pathValues[name] ?? 'unknown')),
      );
      const found: string[] = [];
      for (let i = 0; i < QUERIES_PER_ROUTE; i++) {
        const query = new URLSearchParams();
        for (const p of parameters) {
          if (!p.required && random() < 0.5) continue;
          query.set(
            p.name,
            queryText(
              sample(
                p.schema,
                { components: DOC.components.schemas, random, hints: (name) => real[name] ?? [] },
                0,
                p.name,
              ),
            ),
          );
        }
        const target = `${path}?${query}`;
        const a = route.path.startsWith('/v1/operator/')
          ? await call(server, route.method, target, { headers: operator })
          : await call(server, route.method, target, { auth: root });
        const statuses = answered.get(key) ?? new Map<number, number>();
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        answered.set(key, statuses);
        const where = `seed ${seed} query ${i} ${route.method} ${target.slice(0, 400)} → ${a.status} ${a.text.slice(0, 300)}`;
        found.push(
          ...answerProblems(
            route.method,
            route.path,
            a,
            where,
            ['csv', 'parquet', 'arrow'].includes(query.get('format') ?? '') || route.path.startsWith('/ui/')
              ? 'other'
              : 'json',
          ),
        );
        found.push(...unstatedRefusal(key, a, 'invalid_query_parameters', where));
      }
      t.same(found, [], `${key}: ${QUERIES_PER_ROUTE} query strings of seed ${seed}`);
    }
  }
  const summary = Object.fromEntries([...answered].map(([k, m]) => [k, Object.fromEntries(m)]));
  const reachedSuccess = [...answered.values()].filter((m) => [...m.keys()].some((s) => s < 300)).length;
  t.ok(
    reachedSuccess >= routes.length * 0.6,
    `most routes took some of the query strings (${reachedSuccess} of ${routes.length})`,
    { summary },
  );
  t.equal((await call(server, 'GET', '/health')).status, 200, 'and the server still serves');
});

/** A query value as text: numbers in plain decimal (the strict parser refuses `1e21`, as JSON Schema's number has no text form). */
function queryText(v: unknown): string {
  if (typeof v !== 'number') return String(v);
  if (Number.isInteger(v)) return BigInt(v).toString();
  const text = String(v);
  const exponent = /^(-?)(\d)(?:\.(\d+))?e-(\d+)$/.exec(text);
  if (!exponent) return text;
  const [, sign, lead, rest = '', places] = exponent;
  return `${sign}0.${'0'.repeat(Number(places) - 1)}${lead}${rest}`;
}
