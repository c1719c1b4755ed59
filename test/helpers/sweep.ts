/**
 * The API sweeps' common parts (test/http/validBodies.alone.test.ts, validQueries.test.ts): the API
 * reference; a server with a populated app — a trace in a session, a score config, prompts from a
 * git repository, an environment, an eval run and its experiment, a worker session with a lease,
 * an operator tenant with an app — and the real values a sweep mixes into what it sends, so that it
 * reaches past "not found"; and the judgement of an answer against the reference.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../src/contract/catalog.js';
import { noteKey, openApiPath } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import type { Schema } from './schemaSample.js';
import { git, workingRepo } from './git.js';
import { exportRequest, hex } from './otlp.js';
import { call, rootCredentials, serverFor, tempDir, type Answer, type Credentials, type TestServer } from './server.js';

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  responses: Record<string, unknown>;
}

/** docs/openapi.json, as the build wrote it. */
export const DOC = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

export { SWEEP_SEEDS, sweepCount } from './sweepSize.js';

/** The reference's operation of a route of the table (`/v1/traces/:traceId`). */
export function documented(method: string, template: string): Operation {
  return DOC.paths[openApiPath(template)]![method.toLowerCase()]!;
}

/**
 * What is wrong with an answer, by the reference: a 5xx other than 501 and 503, a status the
 * reference does not list for the route, or a body that is not a valid value of the type the
 * reference names for that status (in JSON; a success in another format, when `asked` one, is not
 * judged here). Empty when nothing is.
 */
export function answerProblems(
  method: string,
  template: string,
  a: Answer,
  where: string,
  asked: 'json' | 'other' = 'json',
): string[] {
  const found: string[] = [];
  const key = noteKey(method, template);
  if (a.status >= 500 && a.status !== 501 && a.status !== 503) found.push(`a server error: ${where}`);
  if (!documented(method, template).responses[String(a.status)])
    found.push(`a status the reference does not list: ${where}`);
  const answerType =
    OPERATIONS[key]?.answers.find((x) => x.status === a.status)?.type ?? (a.status >= 400 ? 'ErrorBody' : undefined);
  if (answerType && (asked === 'json' || a.status >= 400)) {
    if (!(a.headers.get('content-type') ?? '').startsWith('application/json'))
      found.push(`not JSON (${a.headers.get('content-type')}): ${where}`);
    const shaped = validateCatalogValues({ [answerType]: [a.body] } as CatalogValues);
    if (!shaped.success) found.push(`not a valid ${answerType}: ${JSON.stringify(shaped.errors.slice(0, 2))} ${where}`);
  }
  return found;
}

/**
 * A refusal (`code`) of a request the schema calls valid names only fields whose rule a documented
 * 400 of the route states in words, each in backticks (`resource_id`, or `details.body` for a
 * conflict between fields): the reference says what its schema cannot (a name that must exist, one
 * of two fields, a window). The items of a batch are keyed by index, each reason naming its field
 * first (`0: "source: must be …"`). A problem otherwise.
 */
export function unstatedRefusal(key: string, a: Answer, code: string, where: string): string[] {
  if (a.body?.error?.code !== code) return [];
  const stated = (OPERATIONS[key]?.errors ?? [])
    .filter((e) => e.status === 400)
    .map((e) => e.when)
    .join(' ');
  const fields = Object.entries((a.body.error.details ?? {}) as Record<string, unknown>).map(([field, why]) =>
    /^\d+$/.test(field) && typeof why === 'string' ? (/^(\w+):/.exec(why)?.[1] ?? field) : field.replace(/[[.].*$/, ''),
  );
  // `variables.<name>` states the rule of every `variables.x`; `details.body` a conflict between fields.
  const named = (field: string) =>
    [`\`${field}\``, `\`${field}.`, `\`${field}[`, `\`details.${field}\``].some((form) => stated.includes(form));
  const unstated = fields.filter((field) => !named(field));
  return unstated.length > 0
    ? [`refused by a rule the reference does not state (${unstated.join(', ')}): ${where}`]
    : [];
}

/**
 * A listing's answer as stored data, to compare before and after a request: its JSON, with when each
 * key was last used blanked (a hint the store writes at most once a minute, not data); the status
 * when it is not 200.
 */
export function storedListing(a: Answer): unknown {
  return a.status === 200
    ? JSON.parse(a.text.replace(/"last_used_at":("[^"]*"|null)/g, '"last_used_at":null'))
    : a.status;
}

export interface Populated {
  server: TestServer;
  root: Credentials;
  /** Headers of the operator's credential. */
  operator: Record<string, string>;
  /** A real value for each path parameter, by name (`name` aside: see `nameOf`). */
  pathValues: Record<string, string>;
  /** The `name` path parameter of a route. */
  nameOf: (template: string) => string;
  /** Real values worth trying for a property or parameter of this name. */
  real: Record<string, unknown[]>;
}

export async function populatedServer(t: Test): Promise<Populated> {
  const operatorToken = `op-${hex(24)}`;
  const gitRoot = tempDir('tracelake-git-root-');
  t.teardown(() => rmSync(gitRoot, { recursive: true, force: true }));
  const repo = join(gitRoot, 'acme', 'prompts');
  workingRepo(repo, {
    'prompts/greeting.md': '---\nlabels: [production]\nmodel: gpt-4o\n---\nHello {{name}}, welcome to {{product}}!\n',
  });
  git(repo, 'branch', 'staging');
  // The set-up's lease is what the lease routes are sent to: it outlives a sweep (30 s by default did not).
  const server = await serverFor(t, {
    args: ['--git-root', gitRoot, '--worker-lease-seconds', '3600'],
    env: { TRACELAKE_OPERATOR_TOKEN: operatorToken },
  });
  const root = rootCredentials(server);
  const operator = { authorization: `Bearer ${operatorToken}` };
  const ok = async (a: Promise<Answer>, what: string) => {
    const answer = await a;
    t.ok(answer.status < 300, `set-up: ${what}`, { status: answer.status, body: answer.text.slice(0, 300) });
    return answer.body?.data;
  };
  // A populated app: a trace in a session, a score config, prompts, an environment, an eval run
  // and its experiment, a worker session with a lease, an operator tenant with an app.
  const traceId = hex(16);
  const spanId = hex(8);
  await ok(
    call(server, 'POST', '/v1/traces', {
      headers: { authorization: root.key, 'x-service-app-id': root.appId },
      body: exportRequest([
        { traceId, spanId, name: 'root', attributes: { 'session.id': 'session-1', 'gen_ai.request.model': 'gpt-4o' } },
      ]),
    }),
    'a trace',
  );
  await ok(
    call(server, 'POST', '/v1/score-configs', {
      auth: root,
      body: { name: 'tone', data_type: 'NUMERIC', min_value: 0, max_value: 1 },
    }),
    'a score config',
  );
  for (const example of Object.values(OPERATIONS['POST /v1/prompts']!.body!.examples!))
    await ok(call(server, 'POST', '/v1/prompts', { auth: root, body: example }), 'a prompt');
  await ok(
    call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, {
      auth: root,
      body: { provider: 'local', repository: 'acme/prompts', branch: 'main' },
    }),
    'a git connection',
  );
  const environment = await ok(
    call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } }),
    'an environment',
  );
  const run = await ok(
    call(server, 'POST', '/v1/evals/runs', {
      auth: root,
      body: OPERATIONS['POST /v1/evals/runs']!.body!.examples!['run'],
    }),
    'an eval run',
  );
  const session = await ok(
    call(server, 'POST', '/v1/workers/sessions', {
      auth: root,
      body: OPERATIONS['POST /v1/workers/sessions']!.body!.examples!['session'],
    }),
    'a worker session',
  );
  const claim = await ok(
    call(server, 'POST', '/v1/workers/claim', { auth: root, body: { worker: 'sweep', profiles: [session.profile] } }),
    'a lease',
  );
  const tenant = await ok(
    call(server, 'POST', '/v1/operator/tenants', { headers: operator, body: { name: 'acme' } }),
    'a tenant',
  );
  const app = await ok(
    call(server, 'POST', `/v1/operator/tenants/${tenant.tenant_id}/apps`, { headers: operator, body: { name: 'web' } }),
    'an operator app',
  );

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
    plan: ['free', 'team'],
    subject: ['ops@example.com'],
  };
  const nameOf = (template: string) => (template.startsWith('/v1/score-configs') ? 'tone' : 'greeting');
  return { server, root, operator, pathValues, nameOf, real };
}
