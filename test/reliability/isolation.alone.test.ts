/**
 * The isolation matrix: every route of the server's own table (src/http/routeTable.ts) is called
 * with tenant A's object ids by
 *   - another tenant:                     a Full Access key of tenant B;
 *   - another app:                        a production-pinned Full Access key of A2, another app of
 *                                         A's tenant (a tenant admin);
 *   - another app, preview-pinned admin:  a Full Access key of A2 pinned to its staging environment;
 *   - another environment:                a Full Access key of A's app pinned to staging;
 *   - lacking the permission:             a key of A's production without the route's permission
 *                                         (Custom with all the others; an SDK key for admin routes).
 * Each must be refused, or answer within its own reach, never showing A's data, except where ALLOWED
 * says why; writes must leave A's objects as a snapshot taken before found them. The cases are
 * generated from the table: a route without an entry in TARGETS fails by name, so a new route
 * cannot skip the matrix. A's own key then reaches every target, so no case passes by aiming at
 * nothing. `npm test` tries each route with two of the callers, `npm run test:full` with all.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { PERMISSIONS, type Requirement } from '../../src/core/permissions.js';
import type { AnyRoute } from '../../src/http/route.js';
import { allRoutes } from '../../src/http/routeTable.js';
import { refusalFor } from '../../src/http/surface.js';
import { join } from 'node:path';
import { workingRepo } from '../helpers/git.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import {
  call,
  createKey,
  serverFor,
  tempDir,
  type Answer,
  type Credentials,
  type TestServer,
} from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';
import { FULL_SWEEPS } from '../helpers/sweepSize.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

type Caller =
  | 'another tenant'
  | 'another app'
  | 'another app, preview-pinned admin'
  | 'another environment'
  | 'lacking the permission';
const CALLERS: readonly Caller[] = [
  'another tenant',
  'another app',
  'another app, preview-pinned admin',
  'another environment',
  'lacking the permission',
];
/** Callers whose key belongs to another app than A's: naming A's app with it must be 401. */
const FOREIGN: readonly Caller[] = ['another tenant', 'another app', 'another app, preview-pinned admin'];

/**
 * What of A a request names: `data` a trace, span, session, run, score, comment or blob of A's
 * production; `config` a score config or a prompt of A's app (both shared by its environments); `key` a production key of A (minted or revoked);
 * `environment` a production-kind environment of A; `app` A's app itself (read, or its keys and
 * environments listed); `tenant app` another app of A's tenant (updated or deleted).
 */
type Aim = 'data' | 'config' | 'key' | 'environment' | 'app' | 'tenant app';

/** The only aims a caller may reach (2xx); every other aimed request must be refused. */
const ALLOWED: Record<Caller, readonly Aim[]> = {
  'another tenant': [],
  // A production-pinned Full Access key is a tenant admin (core/admin/rules.ts, isTenantAdmin): it
  // administers every app of its tenant with their keys and environments. An app's data and score
  // configs stay with the app all the same.
  'another app': ['key', 'environment', 'app', 'tenant app'],
  // An admin pinned to a preview environment stays inside its own app (isTenantAdmin).
  'another app, preview-pinned admin': [],
  // A staging-pinned admin of A's app reads its own app (its environments, and its keys filtered to
  // the ones it manages: managesKeysOf); score configs belong to the app and are shared by its
  // environments (docs/decisions.md, Configs) — to read: a change is a tenant admin's (`isAllowed`).
  'another environment': ['app', 'config'],
  'lacking the permission': [],
};

/** Groups of A's strings that an answer must not contain, by who may not see them. */
type Category = 'data' | 'config' | 'production keys' | 'staging keys' | 'app' | 'tenant';

const HIDDEN: Record<Caller, readonly Category[]> = {
  'another tenant': ['data', 'config', 'production keys', 'staging keys', 'app', 'tenant'],
  // The tenant admin of the same tenant sees A's app, environments and keys (see ALLOWED).
  'another app': ['data', 'config'],
  'another app, preview-pinned admin': ['data', 'config', 'production keys', 'staging keys', 'app'],
  // Same app: its id, environments and configs are the caller's own; production's data and keys are not.
  'another environment': ['data', 'production keys'],
  'lacking the permission': ['data', 'config', 'production keys', 'staging keys', 'app', 'tenant'],
};

/** Tokens put into A's objects, so that any of them in an answer is seen. */
const DATA_TOKEN = `data-${hex(8)}`;
const PROD_KEYS_TOKEN = `prodkey-${hex(8)}`;
const STAGING_KEYS_TOKEN = `stagingkey-${hex(8)}`;
const APP_TOKEN = `app-${hex(8)}`;

interface TenantA {
  root: Credentials;
  tenantId: string;
  appId: string;
  productionId: string;
  stagingId: string;
  traceId: string;
  spanIds: [string, string];
  sessionId: string;
  runId: string;
  sha256: string;
  scoreId: string;
  commentId: string;
  configName: string;
  /** A succeeded eval run of A's production, its experiment and the experiment's name. */
  evalRunId: string;
  experimentId: string;
  experimentName: string;
  promptName: string;
  /** An ended worker run of A's production whose prompt and events carry the data token. */
  workerRunId: string;
  /** Keys of A made for the matrix, whose rows the snapshot holds. */
  keyIds: string[];
}

interface World {
  server: TestServer;
  a: TenantA;
  callers: Record<Exclude<Caller, 'lacking the permission'>, Credentials>;
  /** A's production keys, each lacking one requirement ('admin': an SDK key). */
  lacking: Map<Requirement, Credentials>;
  markers: Record<Category, string[]>;
}

interface Target {
  path: string;
  body?: unknown;
  /** A's state that the request could change, read with A's root key; compared after the matrix. */
  probe?: () => Promise<unknown>;
}

interface Fixture {
  /** What of A the request names; absent when it acts in the caller's own reach (list, search, create). */
  aim?: Aim;
  /** The request, aimed at A's objects; write routes get a disposable object of A each time. */
  target(w: World): Target | Promise<Target>;
  /** A refusal other than 401/403/404 (a batch refuses item by item). */
  refused?(answer: Answer): boolean;
  /**
   * The route authenticates a key sent alone, without the app id (its permission is `none` to the
   * router): 401 without one, and each caller learns its own app and nothing of A's.
   */
  credentialAlone?: true;
}

let serial = 0;
const next = (prefix: string) => `${prefix}-${++serial}`;
const at = (path: string, body?: unknown): Target => ({ path, ...(body === undefined ? {} : { body }) });

/** How to aim each route at A: the only hand-written part of the matrix. */
const TARGETS: Record<string, Fixture> = {
  'GET /health': { target: () => at('/health') },
  'GET /v1/health/ingestion': { target: () => at('/v1/health/ingestion') },
  'GET /v1/health/files': { target: () => at('/v1/health/files') },
  'GET /v1/capabilities': { target: () => at('/v1/capabilities') },
  'GET /v1/pricing': { target: () => at('/v1/pricing') },
  'GET /v1/openapi.json': { target: () => at('/v1/openapi.json') },
  'GET /v1/reference': { target: () => at('/v1/reference') },
  'GET /': { target: () => at('/') },
  'GET /ui/:file': { target: () => at('/ui/app.js') },
  'GET /v1/dev/whoami': { target: () => at('/v1/dev/whoami') },
  'GET /v1/auth/app': { target: () => at('/v1/auth/app'), credentialAlone: true },

  // A fresh trace id: a foreign trace with A's id would be the foreign caller's own, not a leak.
  'POST /v1/traces': { target: () => at('/v1/traces', exportRequest([{ traceId: hex(16), name: 'intruder' }])) },
  'POST /api/public/otel/v1/traces': {
    target: () => at('/api/public/otel/v1/traces', exportRequest([{ traceId: hex(16), name: 'intruder' }])),
  },
  // A sync writes into the caller's own app (a session id of its own); an empty batch still crosses auth and scope.
  'POST /v1/agents/sync': { target: () => at('/v1/agents/sync', { schemaVersion: 1, sessions: [], blobs: [] }) },
  'GET /v1/traces/:traceId': { aim: 'data', target: (w) => at(`/v1/traces/${w.a.traceId}`) },
  'GET /v1/traces/:traceId/graph': { aim: 'data', target: (w) => at(`/v1/traces/${w.a.traceId}/graph`) },
  'GET /v1/traces/:traceId/spans': { aim: 'data', target: (w) => at(`/v1/traces/${w.a.traceId}/spans`) },
  'GET /v1/traces/:traceId/spans/:spanId': {
    aim: 'data',
    target: (w) => at(`/v1/traces/${w.a.traceId}/spans/${w.a.spanIds[0]}`),
  },
  'GET /v1/spans/:spanId': { aim: 'data', target: (w) => at(`/v1/spans/${w.a.spanIds[1]}`) },
  'GET /v1/sessions': { target: () => at('/v1/sessions') },
  'GET /v1/sessions/:sessionId/traces': { aim: 'data', target: (w) => at(`/v1/sessions/${w.a.sessionId}/traces`) },
  'GET /v1/runs/:runId/traces': { aim: 'data', target: (w) => at(`/v1/runs/${w.a.runId}/traces`) },
  'GET /v1/agents/blob/:sha256': { aim: 'data', target: (w) => at(`/v1/agents/blob/${w.a.sha256}`) },
  'GET /v1/traces': { target: () => at('/v1/traces') },
  'POST /v1/traces/search': { target: () => at('/v1/traces/search', {}) },
  'GET /v1/spans': { target: (w) => at(`/v1/spans?trace_id=${w.a.traceId}`) },
  'POST /v1/spans/search': { target: () => at('/v1/spans/search', {}) },
  'GET /v1/filter-schema': { target: () => at('/v1/filter-schema') },

  'POST /v1/scores': {
    aim: 'data',
    target: (w) => at('/v1/scores', { name: 'intruder', resource_id: w.a.traceId, score: 1 }),
  },
  'POST /v1/scores/batch': {
    aim: 'data',
    target: (w) => at('/v1/scores/batch', { scores: [{ name: 'intruder', resource_id: w.a.traceId, score: 1 }] }),
    refused: (r) =>
      r.status === 400 &&
      r.body?.error?.results?.every((x: { error?: { code: string } }) => x.error?.code === 'not_found'),
  },
  // Langfuse's ingestion answers 207 whatever each event became: a foreign caller's score of A's trace is not found.
  'POST /api/public/ingestion': {
    aim: 'data',
    target: (w) =>
      at('/api/public/ingestion', {
        batch: [
          { id: next('event'), type: 'score-create', body: { name: 'intruder', traceId: w.a.traceId, value: 1 } },
        ],
      }),
    refused: (r) =>
      r.status === 207 &&
      r.body?.successes?.length === 0 &&
      r.body?.errors?.every((e: { status: number }) => e.status === 404),
  },
  'POST /api/public/scores': {
    aim: 'data',
    target: (w) => at('/api/public/scores', { name: 'intruder', traceId: w.a.traceId, value: 1 }),
  },
  'GET /v1/scores': { target: (w) => at(`/v1/scores?session_id=${w.a.sessionId}`) },
  'GET /v1/scores/names': { target: () => at('/v1/scores/names') },
  'GET /v1/scores/aggregations': { target: () => at('/v1/scores/aggregations') },
  // Grouped by name, so A's trace names would show if the scope leaked.
  'GET /v1/metrics': { target: () => at('/v1/metrics?group_by=name') },
  'POST /v1/scores/search': { target: () => at('/v1/scores/search', {}) },
  'GET /v1/scores/:scoreId': { aim: 'data', target: (w) => at(`/v1/scores/${w.a.scoreId}`) },
  'DELETE /v1/scores/:scoreId': { aim: 'data', target: freshScore },
  'GET /v1/score-configs': { target: () => at('/v1/score-configs') },
  'GET /v1/score-configs/:name': { aim: 'config', target: (w) => at(`/v1/score-configs/${w.a.configName}`) },
  'POST /v1/score-configs': { target: () => at('/v1/score-configs', { name: next('intruder'), data_type: 'NUMERIC' }) },
  'PATCH /v1/score-configs/:name': { aim: 'config', target: freshConfig },
  'POST /v1/comments': {
    aim: 'data',
    target: (w) => at('/v1/comments', { resource_type: 'trace', resource_id: w.a.traceId, content: 'intruder' }),
  },
  'GET /v1/comments': { target: (w) => at(`/v1/comments?resource_type=trace&resource_id=${w.a.traceId}`) },
  'GET /v1/comments/:commentId': { aim: 'data', target: (w) => at(`/v1/comments/${w.a.commentId}`) },
  'DELETE /v1/comments/:commentId': { aim: 'data', target: freshComment },

  'POST /v1/api-keys': { aim: 'key', target: mintKey },
  'GET /v1/api-keys': { aim: 'app', target: (w) => at(`/v1/api-keys?app_id=${w.a.appId}`) },
  'DELETE /v1/api-keys/:id': { aim: 'key', target: freshKey },
  'POST /v1/apps': { target: () => at('/v1/apps', { name: next('intruder') }) },
  'GET /v1/apps': { target: () => at('/v1/apps') },
  'GET /v1/apps/:appId': { aim: 'app', target: (w) => at(`/v1/apps/${w.a.appId}`) },
  'PATCH /v1/apps/:appId': {
    aim: 'tenant app',
    target: (w) => freshApp(w, () => ({ display_name: 'intruder', retention_days: 1 })),
  },
  'DELETE /v1/apps/:appId': { aim: 'tenant app', target: (w) => freshApp(w, (name) => ({ confirmation_name: name })) },
  'POST /v1/environments': { aim: 'environment', target: createEnvironment },
  'GET /v1/environments': { aim: 'app', target: (w) => at(`/v1/environments?app_id=${w.a.appId}`) },
  'PATCH /v1/environments/:id': {
    aim: 'environment',
    target: (w) => freshEnvironment(w, () => ({ name: next('renamed'), app_id: w.a.appId })),
  },
  'DELETE /v1/environments/:id': {
    aim: 'environment',
    target: (w) => freshEnvironment(w, (name) => ({ confirmation_name: name, app_id: w.a.appId })),
  },

  'POST /v1/evals/runs': { target: () => at('/v1/evals/runs', { experiment: next('intruder'), suite: 'intruder' }) },
  'GET /v1/evals/runs': { target: () => at('/v1/evals/runs') },
  'GET /v1/evals/runs/:runId': { aim: 'data', target: (w) => at(`/v1/evals/runs/${w.a.evalRunId}`) },
  'GET /v1/evals/runs/:runId/trials': { aim: 'data', target: (w) => at(`/v1/evals/runs/${w.a.evalRunId}/trials`) },
  'POST /v1/evals/runs/:runId/status': { aim: 'data', target: freshEvalRun },
  'POST /v1/evals/trials': { aim: 'data', target: freshTrials },
  'GET /v1/experiments': { target: () => at('/v1/experiments') },
  'GET /v1/experiments/:experimentId': { aim: 'data', target: (w) => at(`/v1/experiments/${w.a.experimentId}`) },
  'GET /v1/experiments/baseline': {
    aim: 'data',
    target: (w) => at(`/v1/experiments/baseline?experiment_id=${w.a.experimentId}`),
  },
  'PUT /v1/experiments/:experimentId/baseline': {
    aim: 'data',
    target: (w) => ({
      path: `/v1/experiments/${w.a.experimentId}/baseline`,
      body: { run_id: w.a.evalRunId },
      probe: () =>
        read(w, `/v1/experiments/${w.a.experimentId}`, (x: { baseline_run_id: unknown }) => x.baseline_run_id),
    }),
  },
  // Git: A's app is connected to acme/prompts of the world's git root.
  'GET /v1/apps/:appId/git': { aim: 'app', target: (w) => at(`/v1/apps/${w.a.appId}/git`) },
  'GET /v1/apps/:appId/git/repositories': { aim: 'app', target: (w) => at(`/v1/apps/${w.a.appId}/git/repositories`) },
  'GET /v1/apps/:appId/git/branches': {
    aim: 'app',
    target: (w) => at(`/v1/apps/${w.a.appId}/git/branches?repository=acme/prompts`),
  },
  'POST /v1/apps/:appId/git/connect': { aim: 'tenant app', target: (w) => freshGitApp(w, false) },
  'DELETE /v1/apps/:appId/git': { aim: 'tenant app', target: (w) => freshGitApp(w, true) },
  // The handshake's pages answer to the state token, never to credentials.
  'GET /v1/git/setup': { target: () => at('/v1/git/setup?state=unknown') },
  'POST /v1/git/setup': { target: () => at('/v1/git/setup', { state: 'unknown' }) },
  'GET /v1/git/github/callback': { target: () => at('/v1/git/github/callback?state=unknown&installation_id=1') },
  'GET /v1/templates': { target: () => at('/v1/templates?path=prompts/isolation.md') },
  'GET /v1/prompts': { target: () => at('/v1/prompts') },
  'POST /v1/prompts': { target: () => at('/v1/prompts', { name: next('intruder'), prompt: 'intruder' }) },
  'POST /v1/prompts/sync': { target: () => at('/v1/prompts/sync') },
  'GET /v1/prompts/:name': { aim: 'config', target: (w) => at(`/v1/prompts/${w.a.promptName}?label=latest`) },
  'GET /api/public/v2/prompts/:name': {
    aim: 'config',
    target: (w) => at(`/api/public/v2/prompts/${w.a.promptName}?label=latest`),
  },
  'POST /v1/prompts/:name/render': {
    aim: 'config',
    target: (w) => at(`/v1/prompts/${w.a.promptName}/render`, { variables: {}, label: 'latest' }),
  },
  'GET /v1/prompts/:name/metrics': { target: (w) => at(`/v1/prompts/${w.a.promptName}/metrics`) },
  'PATCH /v1/prompts/:name/versions/:version': {
    aim: 'config',
    target: (w) =>
      freshPrompt(w, (name) => ({ path: `/v1/prompts/${name}/versions/1`, body: { labels: ['intruder'] } })),
  },
  'DELETE /v1/prompts/:name/labels/:label': {
    aim: 'config',
    target: (w) => freshPrompt(w, (name) => ({ path: `/v1/prompts/${name}/labels/production` })),
  },

  // Workers: runs of A's production on its connected repository. Each profile name is fresh, so a
  // claim can only take the turn it aims at; nobody else's claim may take A's turns.
  'POST /v1/workers/runs': {
    target: () => at('/v1/workers/runs', { task_prompt: 'intruder', profile: next('intruder') }),
  },
  'POST /v1/workers/sessions': { target: freshSessionLaunch },
  'POST /v1/workers/environments/:envId/turns': { aim: 'data', target: freshIdleSession },
  'GET /v1/workers/runs': { target: () => at('/v1/workers/runs') },
  'GET /v1/workers/runs/:runId': { aim: 'data', target: (w) => at(`/v1/workers/runs/${w.a.workerRunId}`) },
  'GET /v1/workers/runs/:runId/events': {
    aim: 'data',
    target: (w) => at(`/v1/workers/runs/${w.a.workerRunId}/events`),
  },
  'GET /v1/workers/runs/:runId/stream': {
    aim: 'data',
    target: (w) => at(`/v1/workers/runs/${w.a.workerRunId}/stream`),
  },
  'POST /v1/workers/runs/:runId/cancel': { aim: 'data', target: (w) => freshWorkerRun(w, 'runs', 'cancel') },
  'POST /v1/workers/runs/:runId/close': { aim: 'data', target: (w) => freshWorkerRun(w, 'sessions', 'close') },
  // Another scope's claim finds nothing of A's: an empty claim is its refusal.
  'POST /v1/workers/claim': {
    aim: 'data',
    target: freshClaim,
    refused: (r) => r.status === 200 && r.body?.data === null,
  },
  'POST /v1/workers/leases/:leaseId/heartbeat': { aim: 'data', target: (w) => freshLease(w, 'heartbeat') },
  'POST /v1/workers/leases/:leaseId/events': {
    aim: 'data',
    target: (w) =>
      freshLease(w, 'events', {
        events: [{ seq: 0, at: '2026-11-24T10:00:00.000Z', kind: 'stdout', text: 'intruder' }],
      }),
  },
  'POST /v1/workers/leases/:leaseId/complete': {
    aim: 'data',
    target: (w) => freshLease(w, 'complete', { status: 'failed', reason: 'exit', exit_code: 1 }),
  },
  'POST /v1/workers/leases/:leaseId/release': { aim: 'data', target: (w) => freshLease(w, 'release') },
};

// ---- A's disposable objects, for the write routes ----

/** A GET with A's root key, as the snapshot holds it. */
async function read(w: World, path: string, pick: (data: any) => unknown = (d) => d): Promise<unknown> {
  const r = await call(w.server, 'GET', path, { auth: w.a.root });
  return { status: r.status, state: r.status === 200 ? pick(r.body?.data ?? r.text) : r.body?.error?.code };
}

/** A call with A's root key that must succeed; its `data`. */
async function asRoot(w: World, method: string, path: string, body?: unknown): Promise<any> {
  const r = await call(w.server, method, path, { auth: w.a.root, body });
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
  return r.body?.data;
}

/** A key row without what using it changes. */
function keyRow(k: { id: string; last_used_at?: unknown } | undefined) {
  if (!k) return k;
  const { last_used_at: _used, ...row } = k;
  return row;
}

async function freshScore(w: World): Promise<Target> {
  const { id } = await asRoot(w, 'POST', '/v1/scores', { name: 'victim', resource_id: w.a.traceId, score: 0.5 });
  return { path: `/v1/scores/${id}`, probe: () => read(w, `/v1/scores/${id}`) };
}

async function freshComment(w: World): Promise<Target> {
  const { id } = await asRoot(w, 'POST', '/v1/comments', {
    resource_type: 'trace',
    resource_id: w.a.traceId,
    content: 'victim',
  });
  return { path: `/v1/comments/${id}`, probe: () => read(w, `/v1/comments/${id}`) };
}

async function freshConfig(w: World): Promise<Target> {
  const name = next('victim');
  await asRoot(w, 'POST', '/v1/score-configs', { name, data_type: 'NUMERIC', min_value: 0, max_value: 1 });
  return {
    path: `/v1/score-configs/${name}`,
    body: { max_value: 100 },
    probe: () => read(w, `/v1/score-configs/${name}`),
  };
}

function mintKey(w: World): Target {
  const name = next('intruder');
  return {
    path: '/v1/api-keys',
    body: { name, role: 'Full Access', app_id: w.a.appId, environment_name: 'production' },
    probe: () => read(w, '/v1/api-keys', (keys: { name: string }[]) => keys.filter((k) => k.name === name).length),
  };
}

async function freshKey(w: World): Promise<Target> {
  const { id } = await createKey(w.server, w.a.root, {
    name: next('victim'),
    role: 'SDK',
    environment_name: 'production',
  });
  return {
    path: `/v1/api-keys/${id}?app_id=${w.a.appId}`,
    probe: () => read(w, '/v1/api-keys', (keys: { id: string }[]) => keyRow(keys.find((k) => k.id === id))),
  };
}

async function freshApp(w: World, body: (name: string) => unknown): Promise<Target> {
  const name = next('victim');
  const { id } = await asRoot(w, 'POST', '/v1/apps', { name });
  return { path: `/v1/apps/${id}`, body: body(name), probe: () => read(w, `/v1/apps/${id}`) };
}

/** Another app of A's tenant, connected to the world's repository when `connected`. */
async function freshGitApp(w: World, connected: boolean): Promise<Target> {
  const { id } = await asRoot(w, 'POST', '/v1/apps', { name: next('victim') });
  if (connected)
    await asRoot(w, 'POST', `/v1/apps/${id}/git/connect`, { provider: 'local', repository: 'acme/prompts' });
  return {
    path: connected ? `/v1/apps/${id}/git` : `/v1/apps/${id}/git/connect`,
    ...(connected ? {} : { body: { provider: 'local', repository: 'acme/prompts' } }),
    probe: () => read(w, `/v1/apps/${id}/git`),
  };
}

/** A prompt of A's app with a production version. */
async function freshPrompt(w: World, aim: (name: string) => Omit<Target, 'probe'>): Promise<Target> {
  const name = next('victim');
  await asRoot(w, 'POST', '/v1/prompts', { name, prompt: 'victim', labels: ['production'] });
  return { ...aim(name), probe: () => read(w, `/v1/prompts?name=${name}`) };
}

function environmentsNamed(w: World, name: string) {
  return read(w, '/v1/environments', (envs: { name: string }[]) => envs.filter((e) => e.name === name));
}

function createEnvironment(w: World): Target {
  const name = next('intruder');
  return {
    path: '/v1/environments',
    body: { name, kind: 'production', app_id: w.a.appId },
    probe: () => environmentsNamed(w, name),
  };
}

/** A production-kind environment of A besides the default: what a staging admin must not manage. */
async function freshEnvironment(w: World, body: (name: string) => unknown): Promise<Target> {
  const name = next('victim');
  const { id } = await asRoot(w, 'POST', '/v1/environments', { name, kind: 'production' });
  return {
    path: `/v1/environments/${id}`,
    body: body(name),
    probe: () => read(w, '/v1/environments', (envs: { id: string }[]) => envs.find((e) => e.id === id)),
  };
}

/** A queued eval run of A, for a status report (a claim) aimed at it. */
async function freshEvalRun(w: World): Promise<Target> {
  const { id } = await asRoot(w, 'POST', '/v1/evals/runs', { experiment: w.a.experimentName, suite: 'victim' });
  return {
    path: `/v1/evals/runs/${id}/status`,
    body: {},
    probe: () => read(w, `/v1/evals/runs/${id}`, (r: { status: string }) => r.status),
  };
}

/** A claimed eval run of A, for trials aimed at it. */
async function freshTrials(w: World): Promise<Target> {
  const { id } = await asRoot(w, 'POST', '/v1/evals/runs', { experiment: w.a.experimentName, suite: 'victim' });
  await asRoot(w, 'POST', `/v1/evals/runs/${id}/status`, {});
  const trials = [{ taskId: 'intruder', resolved: true, costUsd: 0, durationMs: 0, artifact: {} }];
  return {
    path: '/v1/evals/trials',
    body: { evalRunId: id, schemaVersion: 1, trials },
    probe: () => read(w, `/v1/evals/runs/${id}/trials`),
  };
}

/** A launch of a session in a fresh environment of A (one open session per environment). */
async function freshSessionLaunch(w: World): Promise<Target> {
  const { name } = await asRoot(w, 'POST', '/v1/environments', { name: next('iso'), kind: 'development' });
  return at('/v1/workers/sessions', { task_prompt: 'intruder', profile: next('intruder'), environment: name });
}

/** An open, idle session of A (its first turn cancelled), for a turn aimed at its environment. */
async function freshIdleSession(w: World): Promise<Target> {
  const env = await asRoot(w, 'POST', '/v1/environments', { name: next('iso'), kind: 'development' });
  const run = await asRoot(w, 'POST', '/v1/workers/sessions', {
    task_prompt: 'victim',
    profile: next('victim'),
    environment: env.name,
  });
  await asRoot(w, 'POST', `/v1/workers/runs/${run.id}/cancel`);
  return {
    path: `/v1/workers/environments/${env.id}/turns`,
    body: { task_prompt: 'intruder' },
    probe: () => read(w, `/v1/workers/runs/${run.id}`, (r: { turn_count: number }) => r.turn_count),
  };
}

/** A queued run (or open session) of A, for a cancel (or close) aimed at it. */
async function freshWorkerRun(w: World, kind: 'runs' | 'sessions', action: 'cancel' | 'close'): Promise<Target> {
  const env =
    kind === 'sessions'
      ? (await asRoot(w, 'POST', '/v1/environments', { name: next('iso'), kind: 'development' })).name
      : undefined;
  const run = await asRoot(w, 'POST', `/v1/workers/${kind}`, {
    task_prompt: 'victim',
    profile: next('victim'),
    ...(env ? { environment: env } : {}),
  });
  return {
    path: `/v1/workers/runs/${run.id}/${action}`,
    probe: () => read(w, `/v1/workers/runs/${run.id}`, (r: { status: string }) => r.status),
  };
}

/** A queued turn of A with a profile of its own, for a claim naming that profile. */
async function freshClaim(w: World): Promise<Target> {
  const profile = next('victim');
  const run = await asRoot(w, 'POST', '/v1/workers/runs', { task_prompt: 'victim', profile });
  return {
    path: '/v1/workers/claim',
    body: { worker: 'intruder', profiles: [profile] },
    probe: () => read(w, `/v1/workers/runs/${run.id}`, (r: { status: string }) => r.status),
  };
}

/** A turn of A claimed by A, for a report on its lease. */
async function freshLease(w: World, what: string, body?: unknown): Promise<Target> {
  const profile = next('victim');
  const run = await asRoot(w, 'POST', '/v1/workers/runs', { task_prompt: 'victim', profile });
  const claim = await asRoot(w, 'POST', '/v1/workers/claim', { worker: 'victim', profiles: [profile] });
  return {
    path: `/v1/workers/leases/${claim.lease_id}/${what}`,
    ...(body === undefined ? {} : { body }),
    probe: () =>
      read(w, `/v1/workers/runs/${run.id}`, (r: { latest_turn: { status: string; attempt: number } }) => [
        r.latest_turn.status,
        r.latest_turn.attempt,
      ]),
  };
}

// ---- the world: tenants A and B, A2, keys, and A's data ----

function cli(dataDir: string, ...args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(...unhooked(process.execPath, [CLI, ...args, '--data-dir', dataDir]), (error, stdout, stderr) =>
      error ? reject(new Error(`tracelake ${args.join(' ')}: ${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

/** A tenant and a production-pinned Full Access key of its app, made offline (the CLI needs the store to itself). */
async function tenant(dataDir: string, name: string, keyName: string) {
  const made = await cli(dataDir, 'tenant', 'create', '--name', name);
  const key = await cli(
    dataDir,
    'key',
    'create',
    '--app',
    made.app_id,
    '--name',
    keyName,
    '--role',
    'full-access',
    '--environment',
    'production',
  );
  return {
    tenantId: made.tenant_id as string,
    productionId: made.environment_id as string,
    keyId: key.id as string,
    root: { key: key.plaintext_key as string, appId: made.app_id as string },
  };
}

/** A trace of A's production: two spans in a session and a run, an input with the data token, an image blob. */
async function ingestA(server: TestServer, root: Credentials) {
  const traceId = hex(16);
  const spanIds: [string, string] = [hex(8), hex(8)];
  const sessionId = `session-${hex(4)}`;
  const runId = `run-${hex(4)}`;
  const image = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from(DATA_TOKEN)]);
  const output = JSON.stringify({
    role: 'assistant',
    content: [{ type: 'image', mimeType: 'image/png', base64: image.toString('base64') }],
  });
  const common = { 'session.id': sessionId, 'tracelake.run.id': runId, 'input.value': `${DATA_TOKEN} prompt` };
  const r = await call(server, 'POST', '/v1/traces', {
    body: exportRequest([
      { traceId, spanId: spanIds[0], name: 'root', attributes: common },
      {
        traceId,
        spanId: spanIds[1],
        parentSpanId: spanIds[0],
        name: 'child',
        attributes: { ...common, 'output.value': output },
      },
    ]),
    headers: { authorization: root.key, 'x-service-app-id': root.appId },
  });
  if (r.status !== 200) throw new Error(`ingest answered ${r.status}: ${r.text}`);
  const sha256 = createHash('sha256').update(image).digest('hex');
  return { traceId, spanIds, sessionId, runId, sha256 };
}

async function world(t: Test): Promise<World> {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const a = await tenant(dataDir, 'tenant-a', `${PROD_KEYS_TOKEN}-root`);
  const b = await tenant(dataDir, 'tenant-b', 'b-root');
  const gitRoot = tempDir('tracelake-git-root-');
  t.teardown(() => rmSync(gitRoot, { recursive: true, force: true }));
  workingRepo(join(gitRoot, 'acme', 'prompts'), { 'prompts/isolation.md': 'Isolation {{x}}\n' });
  const server = await serverFor(t, { dataDir, args: ['--git-root', gitRoot] });
  const root = a.root;
  const admin = (path: string, body: unknown) =>
    call(server, 'POST', path, { auth: root, body }).then((r) => r.body.data);

  await call(server, 'PATCH', `/v1/apps/${root.appId}`, { auth: root, body: { display_name: APP_TOKEN } });
  const staging = await admin('/v1/environments', { name: 'staging', kind: 'preview' });
  const a2 = await admin('/v1/apps', { name: 'a2' });
  await admin('/v1/environments', { name: 'staging', kind: 'preview', app_id: a2.id });
  const key = (spec: Record<string, unknown>) => createKey(server, root, spec);
  const stagingAdmin = await key({
    name: `${STAGING_KEYS_TOKEN}-admin`,
    role: 'Full Access',
    environment_name: 'staging',
  });
  const a2Admin = await key({ name: 'a2-admin', role: 'Full Access', app_id: a2.id, environment_name: 'production' });
  const a2Pinned = await key({
    name: 'a2-staging-admin',
    role: 'Full Access',
    app_id: a2.id,
    environment_name: 'staging',
  });
  const lacking = new Map<Requirement, Credentials & { id: string }>([
    ['admin', await key({ name: `${PROD_KEYS_TOKEN}-sdk`, role: 'SDK' })],
  ]);
  for (const p of PERMISSIONS)
    lacking.set(p, await key({ name: `${PROD_KEYS_TOKEN}-no-${p}`, permissions: PERMISSIONS.filter((q) => q !== p) }));
  // An eval worker's routes take admin credentials or a run's own key: an SDK key has neither.
  lacking.set('eval_run', lacking.get('admin')!);
  // A worker's routes take a Worker key or admin credentials: an SDK key has neither.
  lacking.set('worker', lacking.get('admin')!);

  const trace = await ingestA(server, root);
  const score = await admin('/v1/scores', {
    name: 'quality',
    resource_id: trace.traceId,
    score: 1,
    reason: DATA_TOKEN,
  });
  const comment = await admin('/v1/comments', {
    resource_type: 'trace',
    resource_id: trace.traceId,
    content: DATA_TOKEN,
  });
  const configName = `config-${hex(6)}`;
  await admin('/v1/score-configs', { name: configName, data_type: 'NUMERIC', min_value: 0, max_value: 1 });
  const experimentName = `experiment-${DATA_TOKEN}`;
  const evalRun = await admin('/v1/evals/runs', {
    experiment: experimentName,
    suite: 'suite',
    config: { secret: DATA_TOKEN },
  });
  await admin(`/v1/evals/runs/${evalRun.id}/status`, {});
  await admin('/v1/evals/trials', {
    evalRunId: evalRun.id,
    schemaVersion: 1,
    trials: [
      {
        taskId: 'task',
        resolved: true,
        costUsd: 0.1,
        durationMs: 5,
        traceId: trace.traceId,
        artifact: { note: DATA_TOKEN },
      },
    ],
  });
  await admin(`/v1/evals/runs/${evalRun.id}/status`, { card: { note: DATA_TOKEN } });
  await admin(`/v1/apps/${root.appId}/git/connect`, { provider: 'local', repository: 'acme/prompts' });
  const promptName = `prompt-${hex(6)}`;
  await admin('/v1/prompts', { name: promptName, prompt: 'isolation prompt', labels: ['production'] });
  const workerRun = await admin('/v1/workers/runs', { task_prompt: `isolation ${DATA_TOKEN}`, profile: 'iso-world' });
  const lease = (await admin('/v1/workers/claim', { worker: 'iso', profiles: ['iso-world'] })).lease_id;
  await admin(`/v1/workers/leases/${lease}/events`, {
    events: [{ seq: 0, at: new Date().toISOString(), kind: 'stdout', text: DATA_TOKEN }],
  });
  await admin(`/v1/workers/leases/${lease}/complete`, { status: 'succeeded', reason: 'exit', exit_code: 0 });

  const tenantA: TenantA = {
    ...trace,
    root,
    tenantId: a.tenantId,
    appId: root.appId,
    productionId: a.productionId,
    stagingId: staging.id,
    scoreId: score.id,
    commentId: comment.id,
    configName,
    evalRunId: evalRun.id,
    experimentId: evalRun.experiment_id,
    experimentName,
    promptName,
    workerRunId: workerRun.id,
    keyIds: [a.keyId, stagingAdmin.id, ...[...lacking.values()].map((k) => k.id)],
  };
  return {
    server,
    a: tenantA,
    callers: {
      'another tenant': b.root,
      'another app': { key: a2Admin.key, appId: a2.id },
      'another app, preview-pinned admin': { key: a2Pinned.key, appId: a2.id },
      'another environment': stagingAdmin,
    },
    lacking,
    markers: markersOf(tenantA),
  };
}

function markersOf(a: TenantA): Record<Category, string[]> {
  return {
    data: [
      DATA_TOKEN,
      a.traceId,
      ...a.spanIds,
      a.sessionId,
      a.runId,
      a.sha256,
      a.scoreId,
      a.commentId,
      a.evalRunId,
      a.experimentId,
      a.workerRunId,
    ],
    config: [a.configName, a.promptName],
    'production keys': [PROD_KEYS_TOKEN, a.root.key],
    'staging keys': [STAGING_KEYS_TOKEN],
    app: [APP_TOKEN, a.appId, a.productionId, a.stagingId],
    tenant: [a.tenantId],
  };
}

/** A's objects as A's root key reads them: compared before and after the matrix. */
function snapshotProbes(w: World): [string, () => Promise<unknown>][] {
  const { a } = w;
  return [
    ['trace', () => read(w, `/v1/traces/${a.traceId}`)],
    ...a.spanIds.map((s): [string, () => Promise<unknown>] => [
      `span ${s}`,
      () => read(w, `/v1/traces/${a.traceId}/spans/${s}`),
    ]),
    ['blob', () => read(w, `/v1/agents/blob/${a.sha256}`)],
    ['score', () => read(w, `/v1/scores/${a.scoreId}`)],
    ['comment', () => read(w, `/v1/comments/${a.commentId}`)],
    ['score config', () => read(w, `/v1/score-configs/${a.configName}`)],
    ['eval run', () => read(w, `/v1/evals/runs/${a.evalRunId}`)],
    ['eval trials', () => read(w, `/v1/evals/runs/${a.evalRunId}/trials`)],
    ['prompt', () => read(w, `/v1/prompts?name=${a.promptName}`)],
    ['worker run', () => read(w, `/v1/workers/runs/${a.workerRunId}`)],
    ['worker events', () => read(w, `/v1/workers/runs/${a.workerRunId}/events`)],
    ['git', () => read(w, `/v1/apps/${a.appId}/git`)],
    ['app', () => read(w, `/v1/apps/${a.appId}`)],
    [
      'environments',
      () =>
        read(w, '/v1/environments', (envs: { id: string }[]) =>
          envs.filter((e) => e.id === a.productionId || e.id === a.stagingId),
        ),
    ],
    [
      'keys',
      () =>
        read(w, '/v1/api-keys', (keys: { id: string }[]) =>
          keys.filter((k) => a.keyIds.includes(k.id)).map((k) => keyRow(k)),
        ),
    ],
  ];
}

// ---- the matrix ----

const keyOf = (r: AnyRoute) => `${r.method} ${r.path}`;

/**
 * The callers a route is tried with: all of them in the full run; in `npm test` (test/helpers/sweepSize.ts)
 * two a route, taken in turn along the table, so that every route and every caller is tried.
 */
function callersOf(routeIndex: number): readonly Caller[] {
  if (FULL_SWEEPS) return CALLERS;
  return [CALLERS[routeIndex % CALLERS.length]!, CALLERS[(routeIndex + 2) % CALLERS.length]!];
}

function credentialsFor(w: World, caller: Caller, route: AnyRoute): Credentials {
  if (caller !== 'lacking the permission') return w.callers[caller];
  const key = w.lacking.get(route.permission as Requirement);
  if (!key) throw new Error(`no key lacking ${route.permission}`);
  return key;
}

/** Sends the target as `auth`, naming `appId` (default the key's own app). */
function send(w: World, route: AnyRoute, target: Target, auth: Credentials, appId = auth.appId): Promise<Answer> {
  // OTLP ingestion takes the raw key (spec: Authentication, rule 1).
  const authorization = route.rawKeyOnly ? auth.key : `Bearer ${auth.key}`;
  if (route.path.endsWith('/stream'))
    return openStream(w.server, target.path, { authorization, 'x-service-app-id': appId });
  return call(w.server, route.method, target.path, {
    body: target.body,
    headers: { authorization, 'x-service-app-id': appId },
  });
}

/** A live stream answers and stays open: its status and first message, then it is closed. */
async function openStream(server: TestServer, path: string, headers: Record<string, string>): Promise<Answer> {
  const abort = new AbortController();
  const res = await fetch(server.url + path, { headers, signal: abort.signal });
  let text: string;
  if (res.status === 200) {
    const { value } = await res.body!.getReader().read();
    text = new TextDecoder().decode(value);
    abort.abort();
  } else text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

const show = (r: Answer) => `${r.status} ${r.text.slice(0, 300)}`;
const isRefusal = (r: Answer, fixture: Fixture) => [401, 403, 404].includes(r.status) || fixture.refused?.(r) === true;
/** What every environment of the app shares is read by a staging admin, changed only by a tenant admin (`appWide`). */
const isAllowed = (route: AnyRoute, fixture: Fixture, caller: Caller) =>
  fixture.aim !== undefined &&
  ALLOWED[caller].includes(fixture.aim) &&
  !(caller === 'another environment' && route.appWide !== undefined);

/** The 501 of a route this (cloud) server does not offer: it comes before auth, for everyone. */
function surfaceRefusal(route: AnyRoute): string | null {
  return refusalFor('cloud', route.path.replace(/:[^/]+/g, 'x'));
}

function expectStatus(t: Test, route: AnyRoute, fixture: Fixture, caller: Caller, answer: Answer): void {
  const refusal = surfaceRefusal(route);
  if (refusal) {
    t.equal(answer.body?.error?.code, refusal, `the surface refuses it first: ${show(answer)}`);
  } else if (caller === 'lacking the permission') {
    t.equal(answer.status, 403, show(answer));
    t.equal(answer.body?.error?.code, 'forbidden');
  } else if (isAllowed(route, fixture, caller)) {
    t.ok(
      answer.status >= 200 && answer.status < 300,
      `allowed to reach A's ${fixture.aim} (see ALLOWED): ${show(answer)}`,
    );
  } else if (fixture.aim) {
    t.ok(isRefusal(answer, fixture), `refused on A's ${fixture.aim}: ${show(answer)}`);
  } else {
    t.ok(answer.status < 500, `within its own reach: ${show(answer)}`);
  }
}

/** A's strings the caller may not see, except those the request itself carries (a 404 echoes its id). */
function expectNothingOfA(t: Test, w: World, caller: Caller, target: Target, answer: Answer): void {
  const sent = target.path + JSON.stringify(target.body ?? null);
  const hidden = HIDDEN[caller].flatMap((c) => w.markers[c].map((m) => [c, m] as const));
  const shown = hidden.filter(([, m]) => !sent.includes(m) && answer.text.includes(m)).map(([c, m]) => `${c}: ${m}`);
  t.same(shown, [], `shows nothing of A's ${HIDDEN[caller].join(', ')}`);
}

interface Watched {
  name: string;
  probe: () => Promise<unknown>;
  before: unknown;
}

async function runCase(
  t: Test,
  w: World,
  route: AnyRoute,
  fixture: Fixture,
  caller: Caller,
  watched: Watched[],
): Promise<void> {
  const target = await fixture.target(w);
  // What a caller may reach it may change; everything else is compared after the matrix.
  if (target.probe && !isAllowed(route, fixture, caller))
    watched.push({ name: t.name, probe: target.probe, before: await target.probe() });
  const auth = credentialsFor(w, caller, route);
  if (FOREIGN.includes(caller) && !surfaceRefusal(route)) {
    const posing = await send(w, route, target, auth, w.a.appId);
    t.equal(posing.status, 401, `its key naming A's app is 401: ${show(posing)}`);
  }
  const answer = await send(w, route, target, auth);
  expectStatus(t, route, fixture, caller, answer);
  expectNothingOfA(t, w, caller, target, answer);
}

t.test('isolation matrix over the route table', async (t) => {
  // The table of a server started as serverFor starts it: without the fault-injection test hooks.
  const routes = allRoutes(Buffer.alloc(32), { faultInjection: false });
  const keys = new Set(routes.map(keyOf));
  await t.test('every route of the table has a target', async (t) => {
    for (const key of keys)
      if (!TARGETS[key]) t.fail(`${key} has no entry in TARGETS: say how to aim it at tenant A's objects`);
    for (const key of Object.keys(TARGETS))
      if (!keys.has(key)) t.fail(`TARGETS names ${key}, which the route table does not have`);
    t.pass(`${keys.size} routes`);
  });

  const w = await world(t);
  const covered = routes.filter((r) => TARGETS[keyOf(r)]);
  const probes = snapshotProbes(w);
  const snapshot = await Promise.all(probes.map(([, probe]) => probe()));
  const watched: Watched[] = [];

  for (const route of covered.filter((r) => r.permission === 'none')) {
    const fixture = TARGETS[keyOf(route)]!;
    await t.test(`${keyOf(route)}: without credentials`, async (t) => {
      const answer = await call(w.server, route.method, (await fixture.target(w)).path);
      if (fixture.credentialAlone) t.equal(answer.status, 401, `refused without a key: ${show(answer)}`);
      else t.notOk([401, 403].includes(answer.status), `answers without credentials: ${show(answer)}`);
    });
    if (!fixture.credentialAlone) continue;
    for (const caller of FOREIGN.concat('another environment')) {
      await t.test(`${keyOf(route)}: ${caller}, the key alone`, async (t) => {
        const target = await fixture.target(w);
        const auth = credentialsFor(w, caller, route);
        const answer = await call(w.server, route.method, target.path, {
          headers: { authorization: `Bearer ${auth.key}` },
        });
        t.equal(answer.status, 200, show(answer));
        t.equal(answer.body?.data?.app_id, auth.appId, "the caller's own app");
        expectNothingOfA(t, w, caller, target, answer);
      });
    }
  }
  for (const [i, route] of covered.filter((r) => r.permission !== 'none').entries()) {
    for (const caller of callersOf(i)) {
      await t.test(`${keyOf(route)}: ${caller}`, (t) => runCase(t, w, route, TARGETS[keyOf(route)]!, caller, watched));
    }
  }

  await t.test("A's objects are unchanged", async (t) => {
    const after = await Promise.all(probes.map(([, probe]) => probe()));
    for (const [i, [name]] of probes.entries()) t.same(after[i], snapshot[i], name);
    for (const { name, probe, before } of watched) t.same(await probe(), before, `the object aimed at by ${name}`);
  });

  // Last, as it writes to A: a target A's own key cannot reach would make its refusals meaningless.
  for (const route of covered.filter((r) => r.permission !== 'none')) {
    await t.test(`${keyOf(route)}: A's own key reaches the target`, async (t) => {
      const answer = await send(w, route, await TARGETS[keyOf(route)]!.target(w), w.a.root);
      const refusal = surfaceRefusal(route);
      if (refusal) t.equal(answer.body?.error?.code, refusal, show(answer));
      else t.ok(answer.status >= 200 && answer.status < 300, show(answer));
    });
  }
});
