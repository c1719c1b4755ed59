/**
 * Integration: the API reference on a real server. `GET /v1/openapi.json` is docs/openapi.json,
 * byte for byte, in both modes, with and without an operator token (and with the test-only fault
 * routes on); `GET /v1/reference` is a self-contained page naming every path; both answer HEAD. And
 * the document tells the truth: the answers a running server gives to every route, the operator
 * API's included, are valid values of the types the document names for them (typia's validators,
 * exactly: a field the type lacks fails).
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../src/contract/catalog.js';
import { documentedRoutes } from '../../src/http/routeTable.js';
import { noteKey, openApiPath, type OpenApiDocument } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import { git, workingRepo } from '../helpers/git.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import {
  call,
  rootCredentials,
  serverFor,
  tempDir,
  type Answer,
  type Credentials,
  type TestServer,
} from '../helpers/server.js';

const FILE = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
const DOC = JSON.parse(FILE) as OpenApiDocument;
const OPERATOR_TOKEN = `op-${hex(24)}`;

async function checkServed(t: Test, server: TestServer) {
  const doc = await fetch(`${server.url}/v1/openapi.json`);
  t.equal(doc.status, 200, 'no credentials needed');
  t.equal(doc.headers.get('content-type'), 'application/json');
  t.equal(await doc.text(), FILE, 'the same bytes as docs/openapi.json');

  const head = await fetch(`${server.url}/v1/openapi.json`, { method: 'HEAD' });
  t.equal(head.status, 200, 'HEAD');
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(FILE)), 'HEAD says the length of the document');
  t.equal(await head.text(), '', 'and sends no body');

  const page = await fetch(`${server.url}/v1/reference`);
  t.equal(page.status, 200);
  t.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  t.match(page.headers.get('content-security-policy'), /default-src 'none'/, 'the page may load nothing');
  const html = await page.text();
  t.notMatch(html, /<script|<link /, 'self-contained');
  const missing = Object.keys(DOC.paths).filter((p) => !html.includes(`<code>${p}</code>`));
  t.same(missing, [], `the page names every path (${Object.keys(DOC.paths).length})`);
  t.equal((await fetch(`${server.url}/v1/reference`, { method: 'HEAD' })).status, 200, 'HEAD of the page');
}

t.test('served by the cloud, with the fault routes on and no operator token', async (t) => {
  const server = await serverFor(t, { env: { TRACELAKE_FAULT_INJECTION: 'on' } });
  t.equal((await fetch(`${server.url}/v1/operator/server`)).status, 404, 'a server without the operator API');
  await checkServed(t, server);
});

t.test('served by the local server, with an operator token', async (t) => {
  const server = await serverFor(t, { args: ['--mode', 'local'], env: { TRACELAKE_OPERATOR_TOKEN: OPERATOR_TOKEN } });
  t.equal(
    (await fetch(`${server.url}/v1/operator/server`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } }))
      .status,
    200,
    'a server with the operator API',
  );
  await checkServed(t, server);
  const whoami = await call(server, 'GET', '/v1/dev/whoami');
  t.ok(validateCatalogValues({ WhoAmIAnswer: [whoami.body] }).success, 'GET /v1/dev/whoami answers a WhoAmIAnswer');
});

/** Routes whose answers this test does not hold to a type, and why. */
const NOT_CHECKED: Record<string, string> = {
  'GET /v1/openapi.json': 'the document itself (compared byte for byte above)',
  'GET /v1/reference': 'a page (checked above)',
  'GET /v1/dev/whoami': 'local only (checked above)',
};

t.test('the answers are the documented types', async (t) => {
  // A git root with one repository of prompts, so that the git, template and prompt routes answer.
  const gitRoot = tempDir('tracelake-git-root-');
  const prompts = join(gitRoot, 'acme', 'prompts');
  workingRepo(prompts, {
    'prompts/greeting.md': '---\nlabels: [production]\nmodel: gpt-4o\n---\nHello {{name}}, welcome to {{product}}!\n',
  });
  git(prompts, 'branch', 'staging');
  const server = await serverFor(t, {
    args: ['--git-root', gitRoot, '--metrics-listen', 'api'],
    env: { TRACELAKE_OPERATOR_TOKEN: OPERATOR_TOKEN },
  });
  const root = rootCredentials(server);
  const checked = new Set<string>();

  /** Fetches `path` as `route`, an answer that is not JSON: a documented status of a documented media type. */
  async function expectMedia(route: string, path: string, init: RequestInit = {}): Promise<Response> {
    const answer = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
    const documented = OPERATIONS[route]?.answers.find((a) => a.status === answer.status);
    t.ok(documented, `${route}: ${answer.status} is a documented answer`);
    const media = (answer.headers.get('content-type') ?? '').split(';')[0]!;
    const documentedMedia = Object.keys(documented?.media ?? {}).map((m) => m.split(';')[0]);
    t.ok(
      documentedMedia.includes(media),
      `${route}: ${media} is a documented media type (${documentedMedia.join(', ')})`,
    );
    checked.add(route);
    return answer;
  }

  /** Calls `path` as `route` and holds the answer to the type the document names for its status. */
  async function expect(
    route: string,
    path: string,
    options: { body?: unknown; auth?: Credentials | null; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const [method] = route.split(' ') as [string];
    const answer = await call(server, method, path, {
      ...(options.auth === null ? {} : { auth: options.auth ?? root }),
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.headers ? { headers: options.headers } : {}),
    });
    const documented = OPERATIONS[route]?.answers.find((a) => a.status === answer.status);
    const type = documented?.type ?? (answer.status >= 400 ? 'ErrorBody' : undefined);
    t.ok(type, `${route}: ${answer.status} is a documented answer`, { body: answer.text.slice(0, 500) });
    const [, template] = route.split(' ') as [string, string];
    t.ok(
      DOC.paths[openApiPath(template)]?.[method.toLowerCase()]?.responses[String(answer.status)],
      `${route}: the document lists ${answer.status}`,
    );
    if (type) {
      const result = validateCatalogValues({ [type]: [answer.body] } as CatalogValues);
      t.ok(
        result.success,
        `${route} → ${answer.status} ${type}`,
        result.success ? {} : { errors: result.errors.slice(0, 5), body: answer.text.slice(0, 1000) },
      );
    }
    checked.add(route);
    return answer;
  }

  // A trace of two spans in a session and a run, the child's output an image (a blob).
  const traceId = hex(16);
  const [rootSpan, childSpan] = [hex(8), hex(8)];
  const image = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const common = {
    'session.id': 'session-1',
    'tracelake.run.id': 'run-1',
    'gen_ai.request.model': 'gpt-4o',
    'graph.node.id': 'planner',
  };
  const output = JSON.stringify({
    role: 'assistant',
    content: [{ type: 'image', mimeType: 'image/png', base64: image.toString('base64') }],
  });
  await expect('POST /v1/traces', '/v1/traces', {
    auth: null,
    headers: { authorization: root.key, 'x-service-app-id': root.appId },
    body: exportRequest([
      { traceId, spanId: rootSpan, name: 'root', attributes: common },
      {
        traceId,
        spanId: childSpan,
        parentSpanId: rootSpan,
        name: 'child',
        attributes: { ...common, 'graph.node.id': 'tool', 'output.value': output },
      },
    ]),
  });

  // The Langfuse SDK's export, with Basic auth, and the Langfuse client's calls (JSON that is Langfuse's, not a catalog type).
  const basic = `Basic ${Buffer.from(`${root.appId}:${root.key}`).toString('base64')}`;
  await expect('POST /api/public/otel/v1/traces', '/api/public/otel/v1/traces', {
    auth: null,
    headers: { authorization: basic },
    body: exportRequest([{ traceId: hex(16), spanId: hex(8), name: 'langfuse' }]),
  });
  const langfuseJson = { authorization: basic, 'content-type': 'application/json' };
  const scored = { name: 'langfuse-score', traceId, value: 1 };
  await expectMedia('POST /api/public/ingestion', '/api/public/ingestion', {
    method: 'POST',
    headers: langfuseJson,
    body: JSON.stringify({ batch: [{ id: 'e1', type: 'score-create', body: scored }] }),
  });
  await expectMedia('POST /api/public/scores', '/api/public/scores', {
    method: 'POST',
    headers: langfuseJson,
    body: JSON.stringify(scored),
  });

  for (const route of [
    'GET /health',
    'GET /v1/health/ingestion',
    'GET /v1/health/files',
    'GET /v1/capabilities',
    'GET /v1/pricing',
    'GET /v1/filter-schema',
  ]) {
    await expect(route, route.split(' ')[1]!);
  }
  await expect('GET /v1/traces', '/v1/traces');
  await expect('POST /v1/traces/search', '/v1/traces/search', {
    body: { filters: [{ field: 'name', operator: 'equals', value: 'root' }] },
  });
  const detail = await expect('GET /v1/traces/:traceId', `/v1/traces/${traceId}?fields=graph`);
  t.equal(detail.body.data.spans.length, 2, 'the trace read back');
  await expect('GET /v1/traces/:traceId', `/v1/traces/${traceId}`);
  await expect('GET /v1/traces/:traceId/graph', `/v1/traces/${traceId}/graph`);
  await expect('GET /v1/traces/:traceId/spans', `/v1/traces/${traceId}/spans`);
  await expect('GET /v1/traces/:traceId/spans/:spanId', `/v1/traces/${traceId}/spans/${childSpan}`);
  await expect('GET /v1/spans/:spanId', `/v1/spans/${rootSpan}`);
  await expect('GET /v1/spans', `/v1/spans?trace_id=${traceId}`);
  await expect('POST /v1/spans/search', '/v1/spans/search', { body: {} });
  await expect('GET /v1/sessions', '/v1/sessions');
  await expect('GET /v1/sessions/:sessionId/traces', '/v1/sessions/session-1/traces');
  await expect('GET /v1/runs/:runId/traces', '/v1/runs/run-1/traces');
  const blob = await call(server, 'GET', `/v1/agents/blob/${createHash('sha256').update(image).digest('hex')}`, {
    auth: root,
  });
  t.equal(blob.status, 200, 'GET /v1/agents/blob/:sha256 answers the bytes');
  t.equal(blob.headers.get('content-type'), 'image/png', 'with their stored media type');
  checked.add('GET /v1/agents/blob/:sha256');

  const score = await expect('POST /v1/scores', '/v1/scores', {
    body: { name: 'helpfulness', resource_id: traceId, score: 0.9 },
  });
  await expect('POST /v1/scores/batch', '/v1/scores/batch', {
    body: {
      scores: [
        { name: 'helpfulness', resource_id: traceId, score: 1, client_id: 'a' },
        { name: 'helpfulness', score: 1, client_id: 'b' },
      ],
    },
  });
  await expect('POST /v1/scores/batch', '/v1/scores/batch', { body: { scores: [{ name: 'helpfulness', score: 1 }] } });
  await expect('GET /v1/scores', '/v1/scores');
  await expect('GET /v1/scores/names', '/v1/scores/names');
  await expect('GET /v1/scores/aggregations', '/v1/scores/aggregations');
  await expect('POST /v1/scores/search', '/v1/scores/search', {
    body: { filters: [{ field: 'score', operator: 'gt', value: 0 }] },
  });
  await expect('GET /v1/scores/:scoreId', `/v1/scores/${score.body.data.id}`);
  await expect('DELETE /v1/scores/:scoreId', `/v1/scores/${score.body.data.id}`);

  await expect('POST /v1/score-configs', '/v1/score-configs', {
    body: { name: 'tone', data_type: 'CATEGORICAL', categories: [{ label: 'kind', value: 1 }] },
  });
  await expect('GET /v1/score-configs', '/v1/score-configs');
  await expect('GET /v1/score-configs/:name', '/v1/score-configs/tone');
  await expect('PATCH /v1/score-configs/:name', '/v1/score-configs/tone', { body: { description: 'How kind' } });

  const comment = await expect('POST /v1/comments', '/v1/comments', {
    body: { resource_type: 'trace', resource_id: traceId, content: 'Escalated.' },
  });
  await expect('GET /v1/comments', `/v1/comments?resource_type=trace&resource_id=${traceId}`);
  await expect('GET /v1/comments/:commentId', `/v1/comments/${comment.body.data.id}`);
  await expect('DELETE /v1/comments/:commentId', `/v1/comments/${comment.body.data.id}`);

  const key = await expect('POST /v1/api-keys', '/v1/api-keys', { body: { name: 'ci', role: 'SDK' } });
  await expect('GET /v1/api-keys', '/v1/api-keys');
  await expect('DELETE /v1/api-keys/:id', `/v1/api-keys/${key.body.data.id}`);

  const app = await expect('POST /v1/apps', '/v1/apps', { body: { name: 'checkout', display_name: 'Checkout' } });
  await expect('GET /v1/apps', '/v1/apps');
  await expect('GET /v1/apps/:appId', `/v1/apps/${app.body.data.id}`);
  await expect('PATCH /v1/apps/:appId', `/v1/apps/${app.body.data.id}`, { body: { retention_days: 30 } });
  const env = await expect('POST /v1/environments', '/v1/environments', { body: { name: 'staging', kind: 'preview' } });
  await expect('GET /v1/environments', '/v1/environments');
  await expect('PATCH /v1/environments/:id', `/v1/environments/${env.body.data.id}`, { body: { name: 'qa' } });
  await expect('DELETE /v1/environments/:id', `/v1/environments/${env.body.data.id}`, {
    body: { confirmation_name: 'qa' },
  });
  await expect('DELETE /v1/apps/:appId', `/v1/apps/${app.body.data.id}`, { body: { confirmation_name: 'checkout' } });

  // Coding-agent sessions, with the reference's own example.
  const sync = await expect('POST /v1/agents/sync', '/v1/agents/sync', {
    body: OPERATIONS['POST /v1/agents/sync']!.body!.examples!['session'],
  });
  t.equal(sync.status, 200, sync.text);
  t.same(sync.body.data.rejected, [], 'the documented example is accepted whole');

  // Metrics: the API's and Prometheus's.
  await expect('GET /v1/metrics', '/v1/metrics?view=spans&measures=count,cost&group_by=model');
  t.equal((await expectMedia('GET /metrics', '/metrics')).status, 200, 'the exposition on the API port');

  // The web UI, and the app of a key sent alone (its sign-in).
  t.equal(
    (await expect('GET /v1/auth/app', '/v1/auth/app', { auth: null, headers: { authorization: `Bearer ${root.key}` } }))
      .body.data.app_id,
    root.appId,
  );
  t.equal((await expect('GET /v1/auth/app', '/v1/auth/app', { auth: null })).status, 401);
  t.equal((await expectMedia('GET /', '/')).status, 200);
  t.equal((await expectMedia('GET /ui/:file', '/ui/app.js')).status, 200);

  // Eval runs and experiments: two runs of one experiment, each claimed, reported and completed.
  const runs: { id: string; experiment_id: string }[] = [];
  for (const resolved of [false, true]) {
    const created = await expect('POST /v1/evals/runs', '/v1/evals/runs', {
      body: OPERATIONS['POST /v1/evals/runs']!.body!.examples!['run'],
    });
    t.equal(created.status, 201, created.text);
    const run = created.body.data;
    const worker: Credentials = { key: run.api_key.plaintext_key, appId: root.appId };
    t.equal(
      (await expect('POST /v1/evals/runs/:runId/status', `/v1/evals/runs/${run.id}/status`, { auth: worker, body: {} }))
        .status,
      200,
      'claimed',
    );
    const trials = await expect('POST /v1/evals/trials', '/v1/evals/trials', {
      auth: worker,
      body: {
        evalRunId: run.id,
        schemaVersion: 1,
        trials: [
          { taskId: 'ticket-1', resolved, costUsd: 0.04, durationMs: 48210, artifact: { patch: 'diff' } },
          { taskId: 'ticket-2', resolved: true, costUsd: -1, durationMs: 1, artifact: {} },
        ],
      },
    });
    t.match(trials.body.data, { accepted: [String], rejected: [{ index: 1 }] }, 'one stored, one rejected');
    t.equal(
      (
        await expect('POST /v1/evals/runs/:runId/status', `/v1/evals/runs/${run.id}/status`, {
          auth: worker,
          body: { card: { resolved: resolved ? 1 : 0 }, costUsd: 0.04 },
        })
      ).status,
      200,
      'completed',
    );
    runs.push(run);
  }
  const [baseline, candidate] = runs as [{ id: string; experiment_id: string }, { id: string; experiment_id: string }];
  await expect('GET /v1/evals/runs', '/v1/evals/runs');
  await expect('GET /v1/evals/runs/:runId', `/v1/evals/runs/${candidate.id}`);
  await expect('GET /v1/evals/runs/:runId/trials', `/v1/evals/runs/${candidate.id}/trials`);
  await expect('GET /v1/experiments', '/v1/experiments');
  await expect('GET /v1/experiments/:experimentId', `/v1/experiments/${candidate.experiment_id}`);
  t.equal(
    (
      await expect('PUT /v1/experiments/:experimentId/baseline', `/v1/experiments/${baseline.experiment_id}/baseline`, {
        body: { run_id: baseline.id },
      })
    ).status,
    200,
  );
  const compared = await expect('GET /v1/experiments/baseline', `/v1/experiments/baseline?run_id=${candidate.id}`);
  t.match(compared.body.data.comparison, { tasks: { fixed: 1 } }, "the candidate fixed the baseline's failure");
  t.equal(
    (
      await expect('PUT /v1/experiments/:experimentId/baseline', `/v1/experiments/${baseline.experiment_id}/baseline`, {
        body: { run_id: null },
      })
    ).status,
    200,
    'unpinned',
  );

  // Git: the handshake a human finishes on the pages, then a connection named at once.
  const gitPath = `/v1/apps/${root.appId}/git`;
  const handshake = await expect('POST /v1/apps/:appId/git/connect', `${gitPath}/connect`, {
    body: { provider: 'local' },
  });
  const state: string = handshake.body.data.state;
  t.equal(
    (await expectMedia('GET /v1/git/setup', `/v1/git/setup?state=${encodeURIComponent(state)}`)).status,
    200,
    'the page',
  );
  const form = await expectMedia('POST /v1/git/setup', '/v1/git/setup', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ state, repository: 'acme/prompts', branch: 'main' }).toString(),
  });
  t.equal(form.status, 200, 'the form connected the app');
  t.equal(
    (
      await expect('GET /v1/git/github/callback', '/v1/git/github/callback?state=unknown&installation_id=1', {
        auth: null,
      })
    ).status,
    404,
    'no such handshake',
  );
  t.match((await expect('GET /v1/apps/:appId/git', gitPath)).body.data, {
    connected: true,
    repository: 'acme/prompts',
  });
  await expect('GET /v1/apps/:appId/git/repositories', `${gitPath}/repositories`);
  await expect('GET /v1/apps/:appId/git/branches', `${gitPath}/branches?repository=acme/prompts`);
  await expect('GET /v1/templates', '/v1/templates?path=prompts/greeting.md');

  // Prompts: discovered in the repository and created over the API.
  await expect('POST /v1/prompts/sync', '/v1/prompts/sync');
  for (const example of Object.values(OPERATIONS['POST /v1/prompts']!.body!.examples!)) {
    t.equal((await expect('POST /v1/prompts', '/v1/prompts', { body: example })).status, 201);
  }
  await expect('GET /v1/prompts', '/v1/prompts');
  await expect('GET /v1/prompts/:name', `/v1/prompts/greeting`);
  await expectMedia('GET /api/public/v2/prompts/:name', '/api/public/v2/prompts/greeting', { headers: langfuseJson });
  await expect('GET /v1/prompts/:name', `/v1/prompts/${encodeURIComponent('support/agent')}?label=latest`);
  await expect(
    'PATCH /v1/prompts/:name/versions/:version',
    `/v1/prompts/${encodeURIComponent('support/greeting')}/versions/1`,
    { body: { labels: ['production'] } },
  );
  await expect(
    'DELETE /v1/prompts/:name/labels/:label',
    `/v1/prompts/${encodeURIComponent('support/greeting')}/labels/staging`,
  );
  await expect('POST /v1/prompts/:name/render', '/v1/prompts/greeting/render', {
    body: OPERATIONS['POST /v1/prompts/:name/render']!.body!.examples!['greeting'],
  });
  await expect('GET /v1/prompts/:name/metrics', '/v1/prompts/greeting/metrics');

  // Workers: a session driven through the worker's endpoints with admin credentials (no worker process here).
  const session = (
    await expect('POST /v1/workers/sessions', '/v1/workers/sessions', {
      body: OPERATIONS['POST /v1/workers/sessions']!.body!.examples!['session'],
    })
  ).body.data;
  const claimOf = async () =>
    (
      await expect('POST /v1/workers/claim', '/v1/workers/claim', {
        body: { worker: 'reference', profiles: [session.profile] },
      })
    ).body.data.lease_id as string;
  const lease = await claimOf();
  await expect('POST /v1/workers/leases/:leaseId/heartbeat', `/v1/workers/leases/${lease}/heartbeat`);
  await expect('POST /v1/workers/leases/:leaseId/events', `/v1/workers/leases/${lease}/events`, {
    body: OPERATIONS['POST /v1/workers/leases/:leaseId/events']!.body!.examples!['batch'],
  });
  const turns = `/v1/workers/environments/${session.environment_id}/turns`;
  t.equal(
    (await expect('POST /v1/workers/environments/:envId/turns', turns, { body: { task_prompt: 'too soon' } })).status,
    409,
    'busy while a turn runs',
  );
  const withCard = await expect('POST /v1/workers/leases/:leaseId/complete', `/v1/workers/leases/${lease}/complete`, {
    body: { status: 'succeeded', reason: 'exit', exit_code: 0, card: { resolved: 1 }, cost_usd: 0.1 },
  });
  t.equal(withCard.status, 400, "a card and a cost are an eval run's, not a turn's");
  t.match(withCard.body.error.details, { card: /eval run/, cost_usd: /eval run/ });
  await expect('POST /v1/workers/leases/:leaseId/complete', `/v1/workers/leases/${lease}/complete`, {
    body: { status: 'succeeded', reason: 'exit', exit_code: 0, commit_sha: null, head_commit: null },
  });
  t.equal(
    (await expect('POST /v1/workers/leases/:leaseId/heartbeat', `/v1/workers/leases/${lease}/heartbeat`)).status,
    404,
    'the lease ended with its turn',
  );
  t.equal(
    (
      await expect('POST /v1/workers/environments/:envId/turns', turns, {
        body: OPERATIONS['POST /v1/workers/environments/:envId/turns']!.body!.examples!['turn'],
      })
    ).status,
    202,
  );
  await expect('POST /v1/workers/leases/:leaseId/release', `/v1/workers/leases/${await claimOf()}/release`);
  await expect('GET /v1/workers/runs', '/v1/workers/runs');
  await expect('GET /v1/workers/runs/:runId', `/v1/workers/runs/${session.id}`);
  await expect('GET /v1/workers/runs/:runId/events', `/v1/workers/runs/${session.id}/events`);
  const live = new AbortController();
  const stream = await expectMedia('GET /v1/workers/runs/:runId/stream', `/v1/workers/runs/${session.id}/stream`, {
    headers: { authorization: `Bearer ${root.key}`, 'x-service-app-id': root.appId },
    signal: live.signal,
  });
  t.equal(stream.status, 200, 'the live stream');
  live.abort();
  await expect('POST /v1/workers/runs/:runId/cancel', `/v1/workers/runs/${session.id}/cancel`);
  await expect('POST /v1/workers/runs/:runId/close', `/v1/workers/runs/${session.id}/close`);
  await expect('POST /v1/workers/runs', '/v1/workers/runs', {
    body: OPERATIONS['POST /v1/workers/runs']!.body!.examples!['run'],
  });

  await expect('DELETE /v1/apps/:appId/git', gitPath);

  // Errors have the documented shape too.
  t.equal((await expect('GET /v1/traces', '/v1/traces?limit=0')).status, 400);
  t.equal((await expect('GET /v1/traces/:traceId', `/v1/traces/${hex(16)}`)).status, 404);
  t.equal((await expect('GET /v1/api-keys', '/v1/api-keys', { auth: null })).status, 401);

  // The operator API, with its token alone.
  const operator = (route: string, path: string, body?: unknown) =>
    expect(route, path, {
      auth: null,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      ...(body === undefined ? {} : { body }),
    });
  await operator('GET /v1/operator/server', '/v1/operator/server');
  const tenant = (await operator('POST /v1/operator/tenants', '/v1/operator/tenants', { name: 'acme' })).body.data;
  await operator('GET /v1/operator/tenants', '/v1/operator/tenants');
  await operator('PATCH /v1/operator/tenants/:tenant', `/v1/operator/tenants/${tenant.tenant_id}`, { plan: 'team' });
  const web = (
    await operator('POST /v1/operator/tenants/:tenant/apps', `/v1/operator/tenants/${tenant.tenant_id}/apps`, {
      name: 'web',
      display_name: 'Web shop',
    })
  ).body.data;
  await operator('GET /v1/operator/tenants/:tenant/apps', `/v1/operator/tenants/${tenant.tenant_id}/apps`);
  await operator('POST /v1/operator/apps/:app/environments', `/v1/operator/apps/${web.id}/environments`, {
    name: 'staging',
    kind: 'preview',
  });
  await operator('GET /v1/operator/apps/:app/environments', `/v1/operator/apps/${web.id}/environments`);
  const pinned = (
    await operator('POST /v1/operator/apps/:app/keys', `/v1/operator/apps/${web.id}/keys`, {
      name: 'ci',
      role: 'sdk',
      environment: 'staging',
      expires_at: '2099-01-01T00:00:00Z',
    })
  ).body.data;
  await operator('POST /v1/operator/apps/:app/keys', `/v1/operator/apps/${web.id}/keys`, {
    name: 'previews',
    permissions: ['trace.read'],
    kinds: ['preview', 'development'],
  });
  await operator('GET /v1/operator/apps/:app/keys', `/v1/operator/apps/${web.id}/keys`);
  await operator('DELETE /v1/operator/apps/:app/keys/:id', `/v1/operator/apps/${web.id}/keys/${pinned.id}`);
  await operator('POST /v1/operator/tokens', '/v1/operator/tokens', {
    tenant_id: tenant.tenant_id,
    app_id: web.id,
    subject: 'ops@example.com',
  });
  // Its errors, each a status the document names for the route.
  t.equal((await operator('POST /v1/operator/tenants', '/v1/operator/tenants', { name: 'acme' })).status, 409);
  t.equal(
    (await operator('POST /v1/operator/apps/:app/keys', `/v1/operator/apps/${web.id}/keys`, { name: 'k', role: 'sdk' }))
      .status,
    400,
  );
  t.equal(
    (await operator('GET /v1/operator/tenants/:tenant/apps', `/v1/operator/tenants/${randomUUID()}/apps`)).status,
    404,
  );
  t.equal(
    (await expect('GET /v1/operator/tenants', '/v1/operator/tenants', { auth: root })).status,
    401,
    'an API key is no operator token',
  );

  const unchecked = documentedRoutes()
    .map((r) => noteKey(r.method, r.path))
    .filter((k) => !checked.has(k) && !NOT_CHECKED[k]);
  t.same(unchecked, [], 'every route of the table has its answer checked here');
});
