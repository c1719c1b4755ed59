/** Shared steps of the eval tests: runs created through the API, their keys, trials and reports. */
import { call, type Answer, type Credentials, type TestServer } from '../helpers/server.js';

export interface Run {
  id: string;
  experimentId: string;
  /** The run-scoped key, as a worker holds it. */
  worker: Credentials;
  keyId: string;
}

export async function createRun(
  server: TestServer,
  admin: Credentials,
  body: Record<string, unknown> = {},
): Promise<Run> {
  const r = await call(server, 'POST', '/v1/evals/runs', {
    auth: admin,
    body: { experiment: 'exp', suite: 'suite-a', ...body },
  });
  if (r.status !== 201) throw new Error(`run creation answered ${r.status}: ${r.text}`);
  const d = r.body.data;
  return {
    id: d.id,
    experimentId: d.experiment_id,
    worker: { key: d.api_key.plaintext_key, appId: admin.appId },
    keyId: d.api_key.id,
  };
}

export function report(
  server: TestServer,
  auth: Credentials,
  runId: string,
  body: Record<string, unknown>,
): Promise<Answer> {
  return call(server, 'POST', `/v1/evals/runs/${runId}/status`, { auth, body });
}

export function sendTrials(server: TestServer, auth: Credentials, runId: string, trials: unknown[]): Promise<Answer> {
  return call(server, 'POST', '/v1/evals/trials', { auth, body: { evalRunId: runId, schemaVersion: 1, trials } });
}

/** A claimed run (status running). */
export async function claimedRun(
  server: TestServer,
  admin: Credentials,
  body: Record<string, unknown> = {},
): Promise<Run> {
  const run = await createRun(server, admin, body);
  const claim = await report(server, run.worker, run.id, {});
  if (claim.status !== 200) throw new Error(`claim answered ${claim.status}: ${claim.text}`);
  return run;
}

export const trial = (taskId: string, over: Record<string, unknown> = {}) => ({
  taskId,
  resolved: true,
  costUsd: 0.01,
  durationMs: 1000,
  artifact: { taskId, patch: `diff for ${taskId}` },
  ...over,
});
