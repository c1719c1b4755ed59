/** Integration: session tokens made by the CLI authenticate tenant admins over HTTP. */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, startServer, tempDir } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';
import { exportSpans } from '../helpers/exportSpans.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const run = promisify(execFile);

t.test('a CLI session token acts as a tenant admin on its app', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer({ dataDir });
  const root = rootCredentials(first);
  const tenant = first.bootstrap!.tenant_id as string;
  await first.stop('SIGTERM');
  const { stdout } = await run(
    ...unhooked(process.execPath, [
      CLI,
      'token',
      'create',
      '--data-dir',
      dataDir,
      '--tenant',
      tenant,
      '--app',
      root.appId,
      '--subject',
      'ada@example.com',
    ]),
  );
  const token = (JSON.parse(stdout) as { token: string }).token;
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);

  const server = await startServer({ dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const auth = { key: token, appId: root.appId };
  const keys = await call(server, 'GET', '/v1/api-keys', { auth });
  t.equal(keys.status, 200, 'Bearer <token> is accepted on the REST API');
  const app = await call(server, 'POST', '/v1/apps', { auth, body: { name: 'made-in-a-session' } });
  t.equal(app.status, 201);
  t.equal(app.body.data.created_by, 'session:ada@example.com', 'the admin is named in created_by');

  // A tenant admin reads every environment of the app; a header chooses where writes land.
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth, body: { name: 'staging', kind: 'preview' } })).status,
    201,
  );
  const traceId = hex(16);
  const sent = await exportSpans(server, { key: token, appId: root.appId }, [{ traceId }], {
    'x-service-environment': 'staging',
  });
  t.equal(sent.status, 200, sent.text);
  const listed = await call(server, 'GET', '/v1/traces', { auth });
  t.same(
    listed.body.data.map((x: { id: string; environment: string }) => [x.id, x.environment]),
    [[traceId, 'staging']],
    'the token reads the staging trace without naming it',
  );
  t.equal(
    (await call(server, 'GET', '/v1/traces', { auth, headers: { 'x-service-environment': 'production' } })).body.data
      .length,
    0,
    'a header narrows its reads',
  );

  const [head, payload, signature] = token.split('.') as [string, string, string];
  const forged = `${head}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
  const bad = await call(server, 'GET', '/v1/api-keys', { auth: { key: forged, appId: root.appId } });
  t.equal(bad.status, 401);
  t.match(bad.body.error.message, /Invalid session token/);
  const otherApp = await call(server, 'GET', '/v1/api-keys', { auth: { key: token, appId: app.body.data.id } });
  t.equal(otherApp.status, 401, 'a token is for its own app only');
  t.match(otherApp.body.error.message, /another app/);
});
