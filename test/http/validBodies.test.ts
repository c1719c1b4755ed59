/**
 * Integration: every route that takes a JSON body, fed bodies the API reference calls valid —
 * random values of the route's documented body type (test/helpers/schemaSample.ts), with real ids
 * of a populated server mixed in so that the sweep reaches past "not found". Each body is first
 * checked against the type's own validator (the reference and the validators agree); each answer
 * must be a status the reference lists for the route — never a 5xx other than 501 and 503 — and a
 * valid value of the type it names for that status. The malformed side is malformed.test.ts.
 *
 * Seeds are fixed, so a failure reproduces; `TRACELAKE_SWEEP_SEEDS=1,2,…` sweeps others.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../src/contract/catalog.js';
import { documentedRoutes } from '../../src/http/routeTable.js';
import { noteKey, openApiPath } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import { git, workingRepo } from '../helpers/git.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { seededRandom } from '../helpers/random.js';
import { sample, type Schema } from '../helpers/schemaSample.js';
import { call, rootCredentials, serverFor, tempDir, type Answer } from '../helpers/server.js';

interface Operation {
  responses: Record<string, unknown>;
}
const DOC = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const OPERATOR_TOKEN = `op-${hex(24)}`;
const SEEDS = (process.env.TRACELAKE_SWEEP_SEEDS ?? '1,2').split(',').map(Number);
const BODIES_PER_ROUTE = 30;

t.test('bodies the reference calls valid, on every route that takes one', async (t) => {
  const gitRoot = tempDir('tracelake-git-root-');
  t.teardown(() => rmSync(gitRoot, { recursive: true, force: true }));
  const repo = join(gitRoot, 'acme', 'prompts');
  workingRepo(repo, { 'prompts/greeting.md': '---\nlabels: [production]\nmodel: gpt-4o\n---\nHello {{name}}, welcome to {{product}}!\n' });
  git(repo, 'branch', 'staging');
  const server = await serverFor(t, { args: ['--git-root', gitRoot], env: { TRACELAKE_OPERATOR_TOKEN: OPERATOR_TOKEN } });
  const root = rootCredentials(server);
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const ok = async (a: Promise<Answer>, what: string) => {
    const answer = await a;
    t.ok(answer.status < 300, `set-up: ${what}`, { status: answer.status, body: answer.text.slice(0, 300) });
    return answer.body?.data;
  };

  // A populated app: a trace in a session, a score config, prompts, an environment, an eval run
  // and its experiment, a worker session with a lease, an operator tenant with an app.
  const traceId = hex(16);
  const spanId = hex(8);
  await ok(call(server, 'POST', '/v1/traces', { headers: { authorization: root.key, 'x-service-app-id': root.appId }, body: exportRequest([{ traceId, spanId, name: 'root', attributes: { 'session.id': 'session-1', 'gen_ai.request.model': 'gpt-4o' } }]) }), 'a trace');
  await ok(call(server, 'POST', '/v1/score-configs', { auth: root, body: { name: 'tone', data_type: 'NUMERIC', min_value: 0, max_value: 1 } }), 'a score config');
  for (const example of Object.values(OPERATIONS['POST /v1/prompts']!.body!.examples!)) await ok(call(server, 'POST', '/v1/prompts', { auth: root, body: example }), 'a prompt');
  await ok(call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, { auth: root, body: { provider: 'local', repository: 'acme/prompts', branch: 'main' } }), 'a git connection');
  const environment = await ok(call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } }), 'an environment');
  const run = await ok(call(server, 'POST', '/v1/evals/runs', { auth: root, body: OPERATIONS['POST /v1/evals/runs']!.body!.examples!['run'] }), 'an eval run');
  const session = await ok(call(server, 'POST', '/v1/workers/sessions', { auth: root, body: OPERATIONS['POST /v1/workers/sessions']!.body!.examples!['session'] }), 'a worker session');
  const claim = await ok(call(server, 'POST', '/v1/workers/claim', { auth: root, body: { worker: 'sweep', profiles: [session.profile] } }), 'a lease');
  const tenant = await ok(call(server, 'POST', '/v1/operator/tenants', { headers: operator, body: { name: 'acme' } }), 'a tenant');
  const app = await ok(call(server, 'POST', `/v1/operator/tenants/${tenant.tenant_id}/apps`, { headers: operator, body: { name: 'web' } }), 'an operator app');

  const pathValues: Record<string, string> = {
    appId: root.appId,
    id: environment.id,
    runId: run.id,
    experimentId: run.experiment_id,
    envId: session.environment_id,
    leaseId: claim.lease_id,
    tenant: tenant.tenant_id,
    app: app.id,
    version: '1',
  };
  const nameOf = (template: string) => (template.startsWith('/v1/score-configs') ? 'tone' : 'greeting');
  const real: Record<string, unknown[]> = {
    resource_id: [traceId, spanId],
    trace_id: [traceId],
    traceId: [traceId],
    span_id: [spanId],
    session_id: ['session-1'],
    name: ['tone', 'greeting', 'staging', 'helpfulness'],
    run_id: [run.id],
    evalRunId: [run.id],
    baseline_run_id: [run.id],
    app_id: [root.appId, app.id],
    tenant_id: [tenant.tenant_id],
    environment: ['production', 'staging'],
    environment_name: ['production', 'staging'],
    profile: [session.profile],
    profiles: [session.profile],
    repository: ['acme/prompts'],
    branch: ['main', 'staging'],
    data_type: ['NUMERIC', 'BOOLEAN', 'CATEGORICAL'],
    dataType: ['NUMERIC', 'BOOLEAN', 'CATEGORICAL'],
    source: ['api', 'eval', 'annotation'],
    field: ['name', 'status', 'cost', 'score', 'model', 'tokens', 'metadata.customer', 'session_id', 'value'],
    resource_type: ['trace', 'span', 'session'],
    role: ['SDK', 'sdk', 'Read-Only', 'user', 'assistant'],
    label: ['production', 'staging', 'latest'],
    labels: ['production'],
  };

  const routes = documentedRoutes().filter((r) => OPERATIONS[noteKey(r.method, r.path)]?.body?.type);
  t.ok(routes.length >= 35, `${routes.length} routes take a documented JSON body`);
  const answered = new Map<string, Map<number, number>>();
  for (const seed of SEEDS) {
    const random = seededRandom(seed);
    for (const route of routes) {
      const key = noteKey(route.method, route.path);
      const type = OPERATIONS[key]!.body!.type!;
      const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(name === 'name' ? nameOf(route.path) : (pathValues[name] ?? 'unknown')));
      const documented = DOC.paths[openApiPath(route.path)]![route.method.toLowerCase()]!.responses;
      const found: string[] = [];
      for (let i = 0; i < BODIES_PER_ROUTE; i++) {
        const body = sample({ $ref: `#/components/schemas/${type}` }, { components: DOC.components.schemas, random, hints: (p) => real[p] ?? [] }) as Record<string, unknown>;
        // A claim's long poll would only wait (up to 30 s a body) when no work is queued.
        if (type === 'ClaimBody') body.wait_seconds = 0;
        const valid = validateCatalogValues({ [type]: [body] } as CatalogValues);
        if (!valid.success) {
          found.push(`seed ${seed} body ${i}: not a valid ${type} by its own validator: ${JSON.stringify(valid.errors.slice(0, 2))} ${JSON.stringify(body).slice(0, 300)}`);
          continue;
        }
        const a = route.path.startsWith('/v1/operator/') ? await call(server, route.method, path, { headers: operator, body }) : await call(server, route.method, path, { auth: root, body });
        const statuses = answered.get(key) ?? new Map<number, number>();
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        answered.set(key, statuses);
        const where = `seed ${seed} body ${i} ${JSON.stringify(body).slice(0, 400)} → ${a.status} ${a.text.slice(0, 300)}`;
        if (a.status >= 500 && a.status !== 501 && a.status !== 503) found.push(`a server error: ${where}`);
        if (!documented[String(a.status)]) found.push(`a status the reference does not list: ${where}`);
        const answerType = OPERATIONS[key]!.answers.find((x) => x.status === a.status)?.type ?? (a.status >= 400 ? 'ErrorBody' : undefined);
        if (answerType) {
          const shaped = validateCatalogValues({ [answerType]: [a.body] } as CatalogValues);
          if (!shaped.success) found.push(`not a valid ${answerType}: ${JSON.stringify(shaped.errors.slice(0, 2))} ${where}`);
        }
      }
      t.same(found, [], `${key}: ${BODIES_PER_ROUTE} bodies of seed ${seed}`);
    }
  }
  const summary = Object.fromEntries([...answered].map(([k, m]) => [k, Object.fromEntries(m)]));
  const reachedSuccess = [...answered.values()].filter((m) => [...m.keys()].some((s) => s < 300)).length;
  t.ok(reachedSuccess >= routes.length * 0.6, `most routes took some of the bodies (${reachedSuccess} of ${routes.length})`, { summary });
  t.equal((await call(server, 'GET', '/health')).status, 200, 'and the server still serves');
});
