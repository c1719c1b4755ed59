/**
 * Rounds of whole traces for the fault tests: a server started on a store (again after each kill),
 * a trace of n spans exported, and the spans of a trace read back.
 */
import type { Test } from 'tap';
import { hex } from './otlp.js';
import { call, startServer, type Credentials, type TestServer } from './server.js';
import { exportSpans } from './exportSpans.js';

/** Starts a server on `dataDir` (killed at the test's end); call it again to restart. */
export function starter(t: Test, dataDir: string, env: Record<string, string>): () => Promise<TestServer> {
  return async () => {
    const server = await startServer({ dataDir, env });
    t.teardown(() => server.stop('SIGKILL'));
    return server;
  };
}

/**
 * Exports one trace of `spans` spans and checks it is acknowledged; `visible` waits until it is
 * readable, else until it is logged. Resolves to its id.
 */
export async function exportTrace(
  t: Test,
  server: TestServer,
  auth: Credentials,
  spans: number,
  visible: boolean,
): Promise<string> {
  const traceId = hex(16);
  const sent = await exportSpans(
    server,
    auth,
    Array.from({ length: spans }, (_, i) => ({ traceId, name: `s${i}` })),
    { 'x-tracelake-wait': visible ? 'visible' : '' },
  );
  t.equal(sent.status, 200, visible ? 'acknowledged once readable' : 'acknowledged once logged');
  return traceId;
}

/** The spans of a trace that read (0 when none does). */
export async function spansOf(server: TestServer, auth: Credentials, traceId: string): Promise<number> {
  const answer = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth });
  return answer.status === 200 ? (answer.body.data as unknown[]).length : 0;
}
