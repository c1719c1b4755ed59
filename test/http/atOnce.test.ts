/**
 * Integration: every route that changes something, sent several times at once. races.test.ts
 * states what requests at once must answer for the cases that matter most (one name created by
 * many, one thing deleted by many); this sweep holds every other changing route to the least of
 * it: whatever arrives together, each answer is one the reference lists for the route, in its
 * shape, and none is a server error — a write conflict between two transactions is the store's to
 * settle (store/db.ts), never the client's 500.
 *
 * A group is four requests: two copies of one body the reference calls valid and two of another
 * (test/helpers/schemaSample.ts, real ids mixed in as in validBodies.test.ts); routes without a
 * body are sent four times alike. Seeds are fixed; `TRACELAKE_SWEEP_SEEDS=1,2,…` sweeps others.
 */
import t from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../src/contract/catalog.js';
import { documentedRoutes } from '../../src/http/routeTable.js';
import { noteKey } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { seededRandom } from '../helpers/random.js';
import { sample } from '../helpers/schemaSample.js';
import { call, type Answer } from '../helpers/server.js';
import { answerProblems, DOC, populatedServer, SWEEP_SEEDS, type Populated } from '../helpers/sweep.js';

const GROUPS_PER_ROUTE = 8;

/**
 * Routes left to the end of a seed, in this order: each can take away what the others need (the
 * lease ends, the git connection, the app itself).
 */
const LAST = ['POST /v1/workers/leases/:leaseId/complete', 'POST /v1/workers/leases/:leaseId/release', 'DELETE /v1/apps/:appId/git', 'DELETE /v1/environments/:id', 'DELETE /v1/apps/:appId'];

/** The id of what a set-up request created. */
async function createdId(answer: Promise<Answer>): Promise<string> {
  const a = await answer;
  if (a.status >= 300 || typeof a.body?.data?.id !== 'string') throw new Error(`set-up failed: ${a.status} ${a.text.slice(0, 300)}`);
  return a.body.data.id as string;
}

/**
 * Routes whose target the first group uses up (a deletion, a run's end): each group gets a new
 * one, made before it is sent, so that every group has one request that can succeed.
 */
const FRESH: Record<string, (p: Populated) => Promise<Record<string, string>>> = {
  'DELETE /v1/scores/:scoreId': async ({ server, root, real }) => ({
    scoreId: await createdId(call(server, 'POST', '/v1/scores', { auth: root, body: { name: 'at-once', resource_id: real.trace_id![0], score: 0.5 } })),
  }),
  'DELETE /v1/comments/:commentId': async ({ server, root, real }) => ({
    commentId: await createdId(call(server, 'POST', '/v1/comments', { auth: root, body: { resource_type: 'trace', resource_id: real.trace_id![0], content: 'once' } })),
  }),
  'DELETE /v1/api-keys/:id': async ({ server, root }) => ({ id: await createdId(call(server, 'POST', '/v1/api-keys', { auth: root, body: { name: 'at-once', role: 'SDK' } })) }),
  'DELETE /v1/operator/apps/:app/keys/:id': async ({ server, operator, pathValues }) => ({
    id: await createdId(call(server, 'POST', `/v1/operator/apps/${pathValues.app}/keys`, { headers: operator, body: { name: 'at-once', role: 'sdk', environment: 'production' } })),
  }),
  'POST /v1/workers/runs/:runId/cancel': async ({ server, root }) => ({ runId: await createdId(call(server, 'POST', '/v1/workers/runs', { auth: root, body: OPERATIONS['POST /v1/workers/runs']!.body!.examples!['run'] })) }),
  'POST /v1/workers/runs/:runId/close': async ({ server, root }) => ({ runId: await createdId(call(server, 'POST', '/v1/workers/runs', { auth: root, body: OPERATIONS['POST /v1/workers/runs']!.body!.examples!['run'] })) }),
};

t.test('requests sent at once, on every route that changes something', async (t) => {
  const populated = await populatedServer(t);
  const { server, root, operator, pathValues, nameOf, real } = populated;
  const changing = documentedRoutes().filter((r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
  const order = (key: string) => LAST.indexOf(key);
  const routes = [...changing].sort((a, b) => order(noteKey(a.method, a.path)) - order(noteKey(b.method, b.path)));
  t.ok(routes.length >= 45, `${routes.length} routes change something`);
  const statuses = new Map<string, Set<number>>();

  for (const seed of SWEEP_SEEDS) {
    const random = seededRandom(seed);
    // The seed before ended with the git connection deleted; worker runs need it.
    const connected = await call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, { auth: root, body: { provider: 'local', repository: 'acme/prompts', branch: 'main' } });
    t.equal(connected.status, 200, `seed ${seed}: the app's git connection`);
    for (const route of routes) {
      const key = noteKey(route.method, route.path);
      const type = OPERATIONS[key]?.body?.type;
      const pathWith = (values: Record<string, string>) =>
        route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(name === 'name' ? nameOf(route.path) : (values[name] ?? pathValues[name] ?? String(real[name]?.[0] ?? 'unknown'))));
      let path = pathWith({});
      const send = (body: unknown): Promise<Answer> => {
        if (key === 'POST /v1/traces') return call(server, 'POST', path, { headers: { authorization: root.key, 'x-service-app-id': root.appId }, body: exportRequest([{ traceId: real.trace_id![0] as string, spanId: hex(8), name: 'again' }]) });
        const options = { body, ...(route.path.startsWith('/v1/operator/') ? { headers: operator } : { auth: root }) };
        return call(server, route.method, path, options);
      };
      const bodyOf = (): unknown => {
        if (!type) return undefined;
        const body = sample({ $ref: `#/components/schemas/${type}` }, { components: DOC.components.schemas, random, hints: (p) => real[p] ?? [] }) as Record<string, unknown>;
        if (type === 'ClaimBody') body.wait_seconds = 0;
        return body;
      };
      const found: string[] = [];
      for (let g = 0; g < GROUPS_PER_ROUTE; g++) {
        const a = bodyOf();
        const b = bodyOf();
        const invalid = [a, b].filter((body) => type && !validateCatalogValues({ [type]: [body] } as CatalogValues).success);
        if (invalid.length > 0) {
          found.push(`seed ${seed} group ${g}: not a valid ${type} by its own validator: ${JSON.stringify(invalid[0]).slice(0, 300)}`);
          continue;
        }
        if (FRESH[key]) path = pathWith(await FRESH[key](populated));
        const answers = await Promise.all([a, a, b, b].map(send));
        answers.forEach((answer, i) => {
          const seen = statuses.get(key) ?? new Set<number>();
          statuses.set(key, seen.add(answer.status));
          const where = `${key} seed ${seed} group ${g} request ${i} ${JSON.stringify(i < 2 ? a : b)?.slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`;
          found.push(...answerProblems(route.method, route.path, answer, where));
        });
      }
      t.same(found, [], `${key}: ${GROUPS_PER_ROUTE} groups of four at once, seed ${seed}`);
    }
  }
  t.notOk(
    server.logs.some((l) => l.msg === 'request failed'),
    'no request failed in the server',
    { failed: server.logs.filter((l) => l.msg === 'request failed').slice(0, 5) },
  );
  t.comment(JSON.stringify(Object.fromEntries([...statuses].map(([k, s]) => [k, [...s].sort()]))));
  t.equal((await call(server, 'GET', '/health')).status, 200, 'and the server still serves');
});
