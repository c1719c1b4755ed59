/**
 * Integration: every route that changes something, sent several times at once. races.test.ts
 * states what requests at once must answer for the cases that matter most (one name created by
 * many, one thing deleted by many); this sweep holds every other changing route to the least of
 * it: whatever arrives together, each answer is one the reference lists for the route, in its
 * shape, and none is a server error — a write conflict between two transactions is the store's to
 * settle (store/db.ts), never the client's 500.
 *
 * A group is four requests: two copies of one body the reference calls valid and two of another
 * (test/helpers/schemaSample.ts, real ids mixed in as in validBodies.test.ts; a route's first group
 * sends its documented examples instead, which succeed where sampled bodies seldom do); routes
 * without a body are sent four times alike. Seeds are fixed; `TRACELAKE_SWEEP_SEEDS=1,2,…` sweeps
 * others.
 */
import t, { type Test } from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../src/contract/catalog.js';
import type { AnyRoute as DocumentedRoute } from '../../src/http/route.js';
import { documentedRoutes } from '../../src/http/routeTable.js';
import { noteKey } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { seededRandom } from '../helpers/random.js';
import { sample } from '../helpers/schemaSample.js';
import { call, type Answer } from '../helpers/server.js';
import { answerProblems, DOC, populatedServer, SWEEP_SEEDS, sweepCount, type Populated } from '../helpers/sweep.js';

/** `npm test` sends fewer groups, of one seed; `npm run test:full` all (test/helpers/sweepSize.ts). */
const GROUPS_PER_ROUTE = sweepCount(8, 3);
const MIXED_GROUPS = sweepCount(60, 15);
const MIXED_AT_ONCE = 8;

/**
 * Routes left to the end of a seed, in this order: each can take away what the others need (the
 * lease ends, the git connection, the app itself).
 */
const LAST = [
  'POST /v1/workers/leases/:leaseId/complete',
  'POST /v1/workers/leases/:leaseId/release',
  'DELETE /v1/apps/:appId/git',
  'DELETE /v1/environments/:id',
  'DELETE /v1/apps/:appId',
];

/** The id of what a set-up request created. */
async function createdId(answer: Promise<Answer>): Promise<string> {
  const a = await answer;
  if (a.status >= 300 || typeof a.body?.data?.id !== 'string')
    throw new Error(`set-up failed: ${a.status} ${a.text.slice(0, 300)}`);
  return a.body.data.id as string;
}

/** The profile of the staging sessions' turns: no other run has it, so a claim of it takes theirs. */
const STAGING_PROFILE = 'codex';

/**
 * The run id of the staging environment's open session, opened when there is none (and the
 * environment made again when a group before deleted it: the mixed groups send deletions at random).
 */
async function stagingSession({ server, root }: Populated): Promise<string> {
  const body = {
    ...(OPERATIONS['POST /v1/workers/sessions']!.body!.examples!['session'] as object),
    environment: 'staging',
    profile: STAGING_PROFILE,
  };
  let made = await call(server, 'POST', '/v1/workers/sessions', { auth: root, body });
  if (made.status === 404 && made.body?.error?.details?.environment !== undefined) {
    await createdId(
      call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } }),
    );
    made = await call(server, 'POST', '/v1/workers/sessions', { auth: root, body });
  }
  // An environment has one session open at most: the conflict names it.
  const runId = made.status === 409 ? made.body?.error?.run_id : made.body?.data?.id;
  if (typeof runId !== 'string') throw new Error(`set-up failed: ${made.status} ${made.text.slice(0, 300)}`);
  return runId;
}

/** A claim of the oldest queued turn of `profiles`, without waiting (no lease in the answer when none is queued). */
function claimTurn({ server, root }: Populated, profiles: unknown[]): Promise<Answer> {
  return call(server, 'POST', '/v1/workers/claim', {
    auth: root,
    body: { worker: 'sweep', profiles, wait_seconds: 0 },
  });
}

/**
 * The staging session's environment with no turn running or queued, so that a turn sent there can
 * be taken: its session opened when there is none, then its queued turns (of its profile alone)
 * claimed and completed.
 */
async function idleStagingEnvironment(p: Populated): Promise<Record<string, string>> {
  const { server, root } = p;
  const runId = await stagingSession(p);
  // The open session may be one a sweep opened, of the profile its body drew.
  const session = await call(server, 'GET', `/v1/workers/runs/${runId}`, { auth: root });
  const profile = session.body?.data?.profile ?? STAGING_PROFILE;
  // Until none is left: the sweeps before queue as many turns as their bodies happen to.
  for (let i = 0; i < 256; i++) {
    const lease = (await claimTurn(p, [profile])).body?.data;
    if (typeof lease?.lease_id !== 'string') break;
    const done = await call(server, 'POST', `/v1/workers/leases/${lease.lease_id}/complete`, {
      auth: root,
      body: OPERATIONS['POST /v1/workers/leases/:leaseId/complete']!.body!.examples!['succeeded'],
    });
    if (done.status !== 200) throw new Error(`set-up failed: ${done.status} ${done.text.slice(0, 300)}`);
  }
  const run = await call(server, 'GET', `/v1/workers/runs/${runId}`, { auth: root });
  if (typeof run.body?.data?.environment_id !== 'string')
    throw new Error(`set-up failed: ${run.status} ${run.text.slice(0, 300)}`);
  return { envId: run.body.data.environment_id as string };
}

/** A lease of its own: a one-shot run made, then a turn claimed (that one or another queued). */
async function freshLease(p: Populated): Promise<Record<string, string>> {
  await createdId(
    call(p.server, 'POST', '/v1/workers/runs', {
      auth: p.root,
      body: OPERATIONS['POST /v1/workers/runs']!.body!.examples!['run'],
    }),
  );
  const claim = await claimTurn(p, p.real.profile!);
  const leaseId = claim.body?.data?.lease_id;
  if (typeof leaseId !== 'string') throw new Error(`set-up failed: ${claim.status} ${claim.text.slice(0, 300)}`);
  return { leaseId };
}

/**
 * Routes whose target the first group uses up (a deletion, a run's end): each group gets a new
 * one, made before it is sent, so that every group has one request that can succeed (a turn: the
 * first group of a route's sweep only, `group` 0, each making a session idle with a claim and a
 * complete, to keep the sweep's time).
 */
const FRESH: Record<string, (p: Populated, group: number) => Promise<Record<string, string>>> = {
  'DELETE /v1/scores/:scoreId': async ({ server, root, real }) => ({
    scoreId: await createdId(
      call(server, 'POST', '/v1/scores', {
        auth: root,
        body: { name: 'at-once', resource_id: real.trace_id![0], score: 0.5 },
      }),
    ),
  }),
  'DELETE /v1/comments/:commentId': async ({ server, root, real }) => ({
    commentId: await createdId(
      call(server, 'POST', '/v1/comments', {
        auth: root,
        body: { resource_type: 'trace', resource_id: real.trace_id![0], content: 'once' },
      }),
    ),
  }),
  'DELETE /v1/api-keys/:id': async ({ server, root }) => ({
    id: await createdId(call(server, 'POST', '/v1/api-keys', { auth: root, body: { name: 'at-once', role: 'SDK' } })),
  }),
  'DELETE /v1/operator/apps/:app/keys/:id': async ({ server, operator, pathValues }) => ({
    id: await createdId(
      call(server, 'POST', `/v1/operator/apps/${pathValues.app}/keys`, {
        headers: operator,
        body: { name: 'at-once', role: 'sdk', environment: 'production' },
      }),
    ),
  }),
  'POST /v1/workers/runs/:runId/cancel': async ({ server, root }) => ({
    runId: await createdId(
      call(server, 'POST', '/v1/workers/runs', {
        auth: root,
        body: OPERATIONS['POST /v1/workers/runs']!.body!.examples!['run'],
      }),
    ),
  }),
  // A session is what closes (a one-shot run is cancelled): one of staging's, where the set-up's
  // session (production's, which the turn routes use) is not.
  'POST /v1/workers/runs/:runId/close': async (p) => ({ runId: await stagingSession(p) }),
  // The set-up's session has a turn running (its lease is the heartbeat's and events' target).
  'POST /v1/workers/environments/:envId/turns': async (p, group) => (group === 0 ? idleStagingEnvironment(p) : {}),
  // The set-up's lease ends with the first of these to succeed.
  'POST /v1/workers/leases/:leaseId/complete': freshLease,
  'POST /v1/workers/leases/:leaseId/release': freshLease,
};

/** The routes whose fresh target is a worker run, which needs the app's git connection. */
const FRESH_RUNS = new Set([
  'POST /v1/workers/environments/:envId/turns',
  'POST /v1/workers/runs/:runId/cancel',
  'POST /v1/workers/runs/:runId/close',
  'POST /v1/workers/leases/:leaseId/complete',
  'POST /v1/workers/leases/:leaseId/release',
]);

/**
 * What an example needs beyond the ids `withRealIds` puts in: the operator's app is one of the
 * operator's tenant; a claim does not wait (the documented one long-polls 20 s when nothing is queued).
 */
const EXAMPLE_VALUES: Record<string, (p: Populated) => Record<string, unknown>> = {
  'POST /v1/operator/tokens': ({ pathValues }) => ({ tenant_id: pathValues.tenant, app_id: pathValues.app }),
  'POST /v1/workers/claim': () => ({ wait_seconds: 0 }),
};

/** Properties whose documented values are ids of the reference's own examples. */
const ID_PROPERTY = /(^|_)id$|Id$|^profiles?$/;

/**
 * A documented example with the populated server's values in place of the reference's ids (of the
 * same length where there are several: a trace id or a span id), so that it can succeed here.
 */
function withRealIds(value: unknown, real: Populated['real']): unknown {
  if (Array.isArray(value)) return value.map((v) => withRealIds(v, real));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const options = real[k];
      if (!ID_PROPERTY.test(k) || !options) return [k, withRealIds(v, real)];
      const like = (x: unknown) =>
        options.find((o) => typeof o === typeof x && String(o).length === String(x).length) ?? options[0];
      return [k, Array.isArray(v) ? v.map(like) : like(v)];
    }),
  );
}

interface Sender {
  key: string;
  route: DocumentedRoute;
  /** The route's documented example bodies, the server's ids in them (none for a route without). */
  examples: unknown[];
  /** A body the reference calls valid (undefined for a route without one), or a problem. */
  body: () => { body: unknown } | { problem: string };
  /** Makes the route's target afresh when a request can use it up (`FRESH`). */
  refresh: (group: number) => Promise<void>;
  send: (body: unknown) => Promise<Answer>;
}

/** How the sweeps send requests to a route of the populated server. */
function senderFor(populated: Populated, route: DocumentedRoute, random: () => number): Sender {
  const { server, root, operator, pathValues, nameOf, real } = populated;
  const key = noteKey(route.method, route.path);
  const type = OPERATIONS[key]?.body?.type;
  const pathWith = (values: Record<string, string>) =>
    route.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
      encodeURIComponent(
        name === 'name'
          ? nameOf(route.path)
          : (values[name] ?? pathValues[name] ?? String(real[name]?.[0] ?? 'unknown')),
      ),
    );
  let path = pathWith({});
  return {
    key,
    route,
    examples: Object.values(OPERATIONS[key]?.body?.examples ?? {}).map((e) => {
      const withIds = withRealIds(e, real);
      return EXAMPLE_VALUES[key] ? { ...(withIds as object), ...EXAMPLE_VALUES[key](populated) } : withIds;
    }),
    body: () => {
      if (!type) return { body: undefined };
      const body = sample(
        { $ref: `#/components/schemas/${type}` },
        { components: DOC.components.schemas, random, hints: (p) => real[p] ?? [] },
      ) as Record<string, unknown>;
      // A claim's long poll would only wait when no work is queued.
      if (type === 'ClaimBody') body.wait_seconds = 0;
      const valid = validateCatalogValues({ [type]: [body] } as CatalogValues).success;
      return valid
        ? { body }
        : { problem: `not a valid ${type} by its own validator: ${JSON.stringify(body).slice(0, 300)}` };
    },
    refresh: async (group) => {
      if (FRESH[key]) path = pathWith(await FRESH[key](populated, group));
    },
    send: (body) => {
      if (key === 'POST /v1/traces' || key === 'POST /api/public/otel/v1/traces')
        return call(server, 'POST', path, {
          headers: { authorization: root.key, 'x-service-app-id': root.appId },
          body: exportRequest([{ traceId: real.trace_id![0] as string, spanId: hex(8), name: 'again' }]),
        });
      return call(server, route.method, path, {
        body,
        ...(route.path.startsWith('/v1/operator/') ? { headers: operator } : { auth: root }),
      });
    },
  };
}

/** The routes that change something, those of `LAST` last. */
function changingRoutes(): DocumentedRoute[] {
  const order = (r: DocumentedRoute) => LAST.indexOf(noteKey(r.method, r.path));
  return documentedRoutes()
    .filter((r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
    .sort((a, b) => order(a) - order(b));
}

/** Connects the app's git repository again: a sweep deletes the connection, and worker runs need it. */
async function connectGit(t: Test, { server, root }: Populated, when: string): Promise<void> {
  const connected = await call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, {
    auth: root,
    body: { provider: 'local', repository: 'acme/prompts', branch: 'main' },
  });
  t.equal(connected.status, 200, `${when}: the app's git connection`);
}

function noFailures(t: Test, server: Populated['server']): void {
  const failed = server.logs.filter((l) => l.msg === 'request failed');
  t.same(failed.slice(0, 5), [], 'no request failed in the server');
}

t.test('requests sent at once, on every route that changes something', async (t) => {
  const populated = await populatedServer(t);
  const routes = changingRoutes();
  t.ok(routes.length >= 45, `${routes.length} routes change something`);
  const statuses = new Map<string, Set<number>>();

  for (const seed of SWEEP_SEEDS) {
    const random = seededRandom(seed);
    await connectGit(t, populated, `seed ${seed}`);
    for (const route of routes) {
      const sender = senderFor(populated, route, random);
      const found: string[] = [];
      for (let g = 0; g < GROUPS_PER_ROUTE; g++) {
        // The first group sends the documented examples, which can succeed where sampled bodies
        // seldom do (a score's value and type that agree, an environment's own name).
        const documented = g === 0 && sender.examples.length > 0;
        const [a, b] = documented
          ? [{ body: sender.examples[0] }, { body: sender.examples[1] ?? sender.examples[0] }]
          : [sender.body(), sender.body()];
        const problem = 'problem' in a ? a.problem : 'problem' in b ? b.problem : null;
        if (problem !== null || !('body' in a) || !('body' in b)) {
          found.push(`seed ${seed} group ${g}: ${problem}`);
          continue;
        }
        await sender.refresh(g);
        const bodies = [a.body, a.body, b.body, b.body];
        const answers = await Promise.all(bodies.map(sender.send));
        answers.forEach((answer, i) => {
          statuses.set(sender.key, (statuses.get(sender.key) ?? new Set<number>()).add(answer.status));
          const where = `${sender.key} seed ${seed} group ${g} request ${i} ${JSON.stringify(bodies[i])?.slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`;
          found.push(...answerProblems(route.method, route.path, answer, where));
        });
      }
      t.same(found, [], `${sender.key}: ${GROUPS_PER_ROUTE} groups of four at once, seed ${seed}`);
      // A connect that succeeded leaves the connection waiting for its repository: the routes after need it whole.
      if (sender.key === 'POST /v1/apps/:appId/git/connect')
        await connectGit(t, populated, `seed ${seed}, after ${sender.key}`);
    }
  }
  noFailures(t, populated.server);
  t.comment(JSON.stringify(Object.fromEntries([...statuses].map(([k, s]) => [k, [...s].sort()]))));
  // What the fresh targets are for: a group's requests race for something one of them can have.
  for (const key of Object.keys(FRESH))
    t.ok(
      [...(statuses.get(key) ?? [])].some((s) => s >= 200 && s < 300),
      `${key}: a fresh target taken by one request at least`,
    );
  t.equal((await call(populated.server, 'GET', '/health')).status, 200, 'and the server still serves');
});

/** An event stream stays open while its run lives: not a request that answers. */
const STREAMS = new Set(['GET /v1/workers/runs/:runId/stream']);

t.test('requests to different routes sent at once, reads among them', async (t) => {
  const populated = await populatedServer(t);
  // The routes of `LAST` end what the others work on; here they come at random like the rest, and
  // reads (without a query string: validQueries.test.ts sweeps those) among the changes.
  const reads = documentedRoutes().filter((r) => r.method === 'GET' && !STREAMS.has(noteKey(r.method, r.path)));
  const routes = [...changingRoutes(), ...reads];
  for (const seed of SWEEP_SEEDS) {
    const random = seededRandom(seed);
    await connectGit(t, populated, `seed ${seed}`);
    const senders = routes.map((route) => senderFor(populated, route, random));
    const found: string[] = [];
    for (let g = 0; g < MIXED_GROUPS; g++) {
      const picked = Array.from({ length: MIXED_AT_ONCE }, () => senders[Math.floor(random() * senders.length)]!);
      const bodies = picked.map((sender) => sender.body());
      // A worker run is made afresh for some routes (FRESH_RUNS); a group before may have deleted the git connection it needs.
      if (picked.some((sender) => FRESH_RUNS.has(sender.key)))
        await connectGit(t, populated, `seed ${seed} group ${g}`);
      for (const sender of new Set(picked)) await sender.refresh(0);
      const answers = await Promise.all(
        picked.map((sender, i) => {
          const b = bodies[i]!;
          return 'body' in b ? sender.send(b.body) : Promise.resolve(null);
        }),
      );
      for (const [i, answer] of answers.entries()) {
        const b = bodies[i]!;
        if (answer === null || !('body' in b)) {
          found.push(`seed ${seed} group ${g}: ${'problem' in b ? b.problem : ''}`);
          continue;
        }
        const where = `${picked[i]!.key} seed ${seed} group ${g} (with ${picked.map((p) => p.key).join(', ')}) ${JSON.stringify(b.body)?.slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 300)}`;
        const { method, path } = picked[i]!.route;
        found.push(
          ...answerProblems(
            method,
            path,
            answer,
            where,
            path.startsWith('/ui') || path === '/metrics' ? 'other' : 'json',
          ),
        );
      }
    }
    t.same(found, [], `${MIXED_GROUPS} groups of ${MIXED_AT_ONCE} requests to routes drawn at random, seed ${seed}`);
  }
  noFailures(t, populated.server);
  t.equal((await call(populated.server, 'GET', '/health')).status, 200, 'and the server still serves');
});
