/**
 * Integration: every route that takes a JSON body, fed bodies the API reference calls valid —
 * random values of the route's documented body type (test/helpers/schemaSample.ts), with real ids
 * of a populated server mixed in so that the sweep reaches past "not found". Each body is first
 * checked against the type's own validator (the reference and the validators agree); each answer
 * must be a status the reference lists for the route — never a 5xx other than 501 and 503 — and a
 * valid value of the type it names for that status; a refusal of the body (`invalid_request_body`)
 * must name only fields whose rule a documented 400 of the route states in words (a score against
 * its config, a label's form, a typed confirmation, one of two fields); and after a refusal the
 * listings the route can change read as before it (no half-applied update). Those reads, after
 * every answer, found cached statements answering from stale statistics (store/db.ts). The
 * malformed side is malformed.test.ts.
 *
 * Seeds are fixed, so a failure reproduces; `TRACELAKE_SWEEP_SEEDS=1,2,…` sweeps others; `npm test`
 * sends a third of the bodies of one seed, `npm run test:full` all (test/helpers/sweepSize.ts).
 */
import t from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../src/contract/catalog.js';
import { documentedRoutes } from '../../src/http/routeTable.js';
import { noteKey } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import { seededRandom } from '../helpers/random.js';
import { sample } from '../helpers/schemaSample.js';
import { call } from '../helpers/server.js';
import {
  answerProblems,
  DOC,
  populatedServer,
  storedListing,
  SWEEP_SEEDS,
  sweepCount,
  unstatedRefusal,
} from '../helpers/sweep.js';

const BODIES_PER_ROUTE = sweepCount(30, 10);

/**
 * What a route can change, by its path's start: read after each answer, so that a refusal is seen
 * to change nothing (a refused request changes no stored data: no half-applied update).
 */
const WATCHED: [prefix: string, listings: string[]][] = [
  ['/v1/scores', ['/v1/scores?limit=1000']],
  ['/v1/score-configs', ['/v1/score-configs']],
  ['/v1/comments', ['/v1/comments?resource_type=trace&resource_id=:traceId']],
  ['/v1/api-keys', ['/v1/api-keys']],
  ['/v1/apps', ['/v1/apps', '/v1/environments']],
  ['/v1/environments', ['/v1/environments', '/v1/api-keys']],
  ['/v1/prompts', ['/v1/prompts']],
  ['/v1/evals', ['/v1/evals/runs']],
  ['/v1/experiments', ['/v1/experiments']],
  [
    '/v1/operator',
    [
      '/v1/operator/tenants',
      '/v1/operator/tenants/:tenant/apps',
      '/v1/operator/apps/:app/environments',
      '/v1/operator/apps/:app/keys',
    ],
  ],
];

t.test('bodies the reference calls valid, on every route that takes one', async (t) => {
  const { server, root, operator, pathValues, nameOf, real } = await populatedServer(t);
  const traceId = real.trace_id![0] as string;
  /** The listings a route can change, as read now. */
  const watched = async (template: string): Promise<Record<string, unknown>> => {
    const read: Record<string, unknown> = {};
    for (const listing of WATCHED.find(([prefix]) => template.startsWith(prefix))?.[1] ?? []) {
      const path = listing.replace(/:([A-Za-z]+)/g, (_, name: string) =>
        name === 'traceId' ? traceId : pathValues[name]!,
      );
      const a = path.startsWith('/v1/operator/')
        ? await call(server, 'GET', path, { headers: operator })
        : await call(server, 'GET', path, { auth: root });
      read[path] = storedListing(a);
    }
    return read;
  };

  const routes = documentedRoutes().filter((r) => OPERATIONS[noteKey(r.method, r.path)]?.body?.type);
  t.ok(routes.length >= 35, `${routes.length} routes take a documented JSON body`);
  const answered = new Map<string, Map<number, number>>();
  for (const seed of SWEEP_SEEDS) {
    const random = seededRandom(seed);
    for (const route of routes) {
      const key = noteKey(route.method, route.path);
      const type = OPERATIONS[key]!.body!.type!;
      const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
        encodeURIComponent(name === 'name' ? nameOf(route.path) : (pathValues[name] ?? 'unknown')),
      );
      const found: string[] = [];
      let stored = await watched(route.path);
      for (let i = 0; i < BODIES_PER_ROUTE; i++) {
        const body = sample(
          { $ref: `#/components/schemas/${type}` },
          { components: DOC.components.schemas, random, hints: (p) => real[p] ?? [] },
        ) as Record<string, unknown>;
        // A claim's long poll would only wait (up to 30 s a body) when no work is queued.
        if (type === 'ClaimBody') body.wait_seconds = 0;
        const valid = validateCatalogValues({ [type]: [body] } as CatalogValues);
        if (!valid.success) {
          found.push(
            `seed ${seed} body ${i}: not a valid ${type} by its own validator: ${JSON.stringify(valid.errors.slice(0, 2))} ${JSON.stringify(body).slice(0, 300)}`,
          );
          continue;
        }
        const a = route.path.startsWith('/v1/operator/')
          ? await call(server, route.method, path, { headers: operator, body })
          : await call(server, route.method, path, { auth: root, body });
        const statuses = answered.get(key) ?? new Map<number, number>();
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        answered.set(key, statuses);
        const where = `${key} seed ${seed} body ${i} ${JSON.stringify(body).slice(0, 400)} → ${a.status} ${a.text.slice(0, 300)}`;
        found.push(...answerProblems(route.method, route.path, a, where));
        found.push(...unstatedRefusal(key, a, 'invalid_request_body', where));
        const now = await watched(route.path);
        const changed = Object.keys(now).filter(
          (listing) => JSON.stringify(now[listing]) !== JSON.stringify(stored[listing]),
        );
        if (a.status >= 400 && changed.length > 0)
          found.push(
            `a refusal changed what is stored (${changed.map((l) => `${l}: ${JSON.stringify(stored[l]).slice(0, 300)} → ${JSON.stringify(now[l]).slice(0, 300)}`).join('; ')}): ${where}`,
          );
        stored = now;
      }
      t.same(found, [], `${key}: ${BODIES_PER_ROUTE} bodies of seed ${seed}`);
    }
  }
  const summary = Object.fromEntries([...answered].map(([k, m]) => [k, Object.fromEntries(m)]));
  const reachedSuccess = [...answered.values()].filter((m) => [...m.keys()].some((s) => s < 300)).length;
  t.ok(
    reachedSuccess >= routes.length * 0.6,
    `most routes took some of the bodies (${reachedSuccess} of ${routes.length})`,
    { summary },
  );
  t.equal((await call(server, 'GET', '/health')).status, 200, 'and the server still serves');
});
