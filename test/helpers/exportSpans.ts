import { type SpanSpec, exportRequest } from './otlp.js';
import { type Answer, type Credentials, call, type TestServer } from './server.js';

/**
 * Posts hand-built spans as one OTLP/JSON export under `auth`'s key (raw, as exporters send it)
 * and app, answered once they are readable unless `headers` says otherwise.
 */
export function exportSpans(
  server: TestServer,
  auth: Credentials,
  spans: SpanSpec[],
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(exportRequest(spans)),
    headers: {
      authorization: auth.key,
      'x-service-app-id': auth.appId,
      'content-type': 'application/json',
      ...headers,
    },
  });
}
