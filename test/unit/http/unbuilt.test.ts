/** src/http/unbuilt.ts: the spec's endpoints that answer 501 until they are built. */
import t from 'tap';
import { allRoutes } from '../../../src/http/routeTable.js';
import { UNBUILT, unbuiltEndpoint } from '../../../src/http/unbuilt.js';

t.test('an unbuilt endpoint is found by method and path, parameters included', async (t) => {
  t.equal(unbuiltEndpoint('POST', '/v1/workers/environments/3f2a/turns'), 'POST /v1/workers/environments/:envId/turns');
  t.equal(unbuiltEndpoint('GET', '/v1/workers/environments/3f2a/turns'), null, 'another method is not the endpoint');
  t.equal(unbuiltEndpoint('POST', '/v1/workers/environments/x/turns/more'), null, 'nor a longer path');
  t.equal(unbuiltEndpoint('POST', '/v1/workers/environments//turns'), null, 'nor an empty parameter');
});

t.test('no served route is listed as unbuilt', async (t) => {
  const served = allRoutes(Buffer.alloc(32), { faultInjection: true }).map((r) => `${r.method} ${r.path}`);
  const listed = UNBUILT.map(([method, path]) => `${method} ${path}`);
  t.same(listed.filter((e) => served.includes(e)), [], 'remove an entry from UNBUILT when its route lands');
  t.ok(listed.length > 0);
});
