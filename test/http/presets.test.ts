/** Integration: what each role preset may and may not do, through real endpoints. */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('role presets end to end', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  const ro = await createKey(server, root, { name: 'ro', role: 'Read-Only' });
  const traceId = hex(16);
  const ingest = (key: { key: string; appId: string }) => exportSpans(server, key, [{ traceId }]);

  t.equal((await ingest(sdk)).status, 200, 'SDK ingests');
  t.equal(
    (await call(server, 'POST', '/v1/scores', { auth: sdk, body: { name: 'ok', score: 1, resource_id: traceId } }))
      .status,
    201,
    'SDK writes scores',
  );
  const sdkRead = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: sdk });
  t.equal(sdkRead.status, 403, 'SDK cannot read traces back');
  t.equal(sdkRead.body.error.required_permission, 'trace.read');
  const sdkDelete = await call(server, 'DELETE', `/v1/scores/${randomUUID()}`, { auth: sdk });
  t.equal(sdkDelete.status, 403, 'SDK cannot delete');
  t.equal(sdkDelete.body.error.required_permission, 'score.delete');

  t.equal((await call(server, 'GET', `/v1/traces/${traceId}`, { auth: ro })).status, 200, 'Read-Only reads');
  t.equal((await call(server, 'GET', '/v1/scores', { auth: ro })).status, 200);
  const roWrite = await ingest(ro);
  t.equal(roWrite.status, 403, 'Read-Only cannot ingest');
  const roScore = await call(server, 'POST', '/v1/scores', {
    auth: ro,
    body: { name: 'x', score: 1, resource_id: traceId },
  });
  t.equal(roScore.status, 403, 'Read-Only cannot write scores');
  t.equal(roScore.body.error.required_permission, 'score.write');
  t.equal((await call(server, 'GET', '/v1/api-keys', { auth: ro })).status, 403, 'Read-Only is not an admin');

  // Use is recorded (at most once a minute per key, asynchronously).
  const listedSdk = async () =>
    (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data.find((k: { id: string }) => k.id === sdk.id);
  await until(async () => (await listedSdk()).last_used_at !== null);
  const listed = await listedSdk();
  t.match(listed.last_used_at, /^\d{4}-\d\d-\d\dT/, 'last_used_at is set after use');
});
