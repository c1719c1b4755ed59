/** Integration: CORS for browser clients — preflights, allowed origins on answers, and off by default. */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { rootCredentials, serverFor } from '../helpers/server.js';

const APP = 'https://app.example.com';

t.test('with allowed origins: preflights and answers say so for them only', async (t) => {
  const server = await serverFor(t, { args: ['--cors-origins', `${APP}, http://localhost:3000`] });
  const root = rootCredentials(server);
  const preflight = (origin: string) =>
    fetch(`${server.url}/v1/traces`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-service-app-id, content-type',
      },
    });

  const ok = await preflight(APP);
  t.equal(ok.status, 204);
  t.equal(ok.headers.get('access-control-allow-origin'), APP);
  t.match(ok.headers.get('access-control-allow-methods'), /POST/);
  t.equal(ok.headers.get('access-control-allow-headers'), 'authorization, x-service-app-id, content-type');
  t.equal((await ok.arrayBuffer()).byteLength, 0, 'no body');
  const other = await preflight('https://evil.example.com');
  t.equal(other.status, 204);
  t.equal(
    other.headers.get('access-control-allow-origin'),
    null,
    'another origin is not allowed: the browser stops there',
  );

  // An OTLP export from a browser (the JSON exporter), and an error answer: both readable by the page.
  const exported = await fetch(`${server.url}/v1/traces`, {
    method: 'POST',
    headers: {
      origin: APP,
      authorization: root.key,
      'x-service-app-id': root.appId,
      'content-type': 'application/json',
    },
    body: JSON.stringify(exportRequest([{ traceId: hex(16) }])),
  });
  t.equal(exported.status, 200);
  t.equal(exported.headers.get('access-control-allow-origin'), APP);
  t.equal(exported.headers.get('vary'), 'Origin');
  const refused = await fetch(`${server.url}/v1/traces?limit=0`, {
    headers: { origin: APP, authorization: root.key, 'x-service-app-id': root.appId },
  });
  t.equal(refused.status, 400);
  t.equal(refused.headers.get('access-control-allow-origin'), APP, 'errors carry it too');
  t.match(refused.headers.get('access-control-expose-headers'), /X-Request-Id/);
  const noOrigin = await fetch(`${server.url}/health`);
  t.equal(noOrigin.headers.get('access-control-allow-origin'), null, 'no Origin, no CORS headers');
});

t.test('off by default: a preflight gets no allowing headers', async (t) => {
  const server = await serverFor(t);
  const r = await fetch(`${server.url}/v1/traces`, {
    method: 'OPTIONS',
    headers: { origin: APP, 'access-control-request-method': 'POST' },
  });
  t.equal(r.status, 204);
  t.equal(r.headers.get('access-control-allow-origin'), null);
  const plain = await fetch(`${server.url}/health`, { headers: { origin: APP } });
  t.equal(plain.headers.get('access-control-allow-origin'), null);
});
