/** Integration: a key pinned to one environment writes there and sees only that environment's data. */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, type Credentials } from '../helpers/server.js';

t.test('pinning isolates environments both ways', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  t.equal((await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } })).status, 201);
  const permissions = ['trace.write', 'trace.read', 'span.read', 'session.read'];
  const prod = await createKey(server, root, { name: 'prod', permissions, environment_name: 'production' });
  const staging = await createKey(server, root, { name: 'staging', permissions, environment_name: 'staging' });

  const ingest = async (auth: Credentials) => {
    const traceId = hex(16);
    const r = await call(server, 'POST', '/v1/traces', {
      rawBody: JSON.stringify(exportRequest([{ traceId, attributes: { 'session.id': `s-${traceId.slice(0, 6)}` } }])),
      headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
    });
    t.equal(r.status, 200);
    return traceId;
  };
  const p = await ingest(prod);
  const s = await ingest(staging);

  for (const [key, own, other, env] of [[prod, p, s, 'production'], [staging, s, p, 'staging']] as const) {
    t.equal((await call(server, 'GET', `/v1/traces/${own}`, { auth: key })).status, 200, `${env} sees its trace`);
    t.equal((await call(server, 'GET', `/v1/traces/${other}`, { auth: key })).status, 404, `${env} does not see the other's`);
    const list = await call(server, 'GET', '/v1/traces', { auth: key });
    t.same(list.body.data.map((x: { id: string }) => x.id), [own]);
    t.equal(list.body.data[0].environment, env, 'the trace landed in the key’s environment');
    const sessions = await call(server, 'GET', '/v1/sessions', { auth: key });
    t.equal(sessions.body.data.length, 1);
  }
  // The bootstrap key is pinned to production too: it sees production only.
  const rootList = await call(server, 'GET', '/v1/traces', { auth: root });
  t.same(rootList.body.data.map((x: { id: string }) => x.id), [p]);
});
