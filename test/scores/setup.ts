/**
 * Shared setup of the score integration tests: a real server, a few ingested spans to score (a
 * trace with two spans in a session, a trace without a session), and a second app with its own key
 * and trace, to prove that ids of another app answer exactly like unknown ones.
 */
import { exportRequest, hex } from '../helpers/otlp.js';
import {
  call,
  createKey,
  rootCredentials,
  serverFor,
  type Credentials,
  type ServerOptions,
  type TestServer,
} from '../helpers/server.js';

export interface World {
  server: TestServer;
  root: Credentials;
  /** A trace with a root span and a child, both naming `sessionId`. */
  traceId: string;
  rootSpanId: string;
  childSpanId: string;
  sessionId: string;
  /** A trace outside any session. */
  loneTraceId: string;
  /** Another app of the same tenant, with a Full Access key and a trace of its own. */
  other: { auth: Credentials; traceId: string; spanId: string; sessionId: string };
}

export async function ingest(
  server: TestServer,
  auth: Credentials,
  request: ReturnType<typeof exportRequest>,
): Promise<void> {
  const r = await call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(request),
    headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
  });
  if (r.status !== 200) throw new Error(`ingest answered ${r.status}: ${r.text}`);
}

export async function world(t: { teardown(fn: () => unknown): void }, options: ServerOptions = {}): Promise<World> {
  const server = await serverFor(t, options);
  const root = rootCredentials(server);
  const traceId = hex(16);
  const rootSpanId = hex(8);
  const childSpanId = hex(8);
  const sessionId = `session-${hex(4)}`;
  const loneTraceId = hex(16);
  await ingest(
    server,
    root,
    exportRequest([
      { traceId, spanId: rootSpanId, name: 'root', attributes: { 'session.id': sessionId } },
      {
        traceId,
        spanId: childSpanId,
        parentSpanId: rootSpanId,
        name: 'child',
        attributes: { 'session.id': sessionId },
      },
      { traceId: loneTraceId, name: 'lone' },
    ]),
  );
  const app = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: `other-${hex(3)}` } });
  if (app.status !== 201) throw new Error(`app creation answered ${app.status}: ${app.text}`);
  const key = await createKey(server, root, { name: 'other', role: 'Full Access', app_id: app.body.data.id });
  const otherAuth = { key: key.key, appId: app.body.data.id as string };
  const other = { auth: otherAuth, traceId: hex(16), spanId: hex(8), sessionId: `session-${hex(4)}` };
  await ingest(
    server,
    otherAuth,
    exportRequest([{ traceId: other.traceId, spanId: other.spanId, attributes: { 'session.id': other.sessionId } }]),
  );
  return { server, root, traceId, rootSpanId, childSpanId, sessionId, loneTraceId, other };
}

/** A key of the root app with exactly `permissions`. */
export function keyWith(w: World, ...permissions: string[]): Promise<Credentials> {
  return createKey(w.server, w.root, {
    name: `custom-${permissions.join('+') || 'none'}`.slice(0, 128),
    role: 'Custom',
    permissions,
  });
}
