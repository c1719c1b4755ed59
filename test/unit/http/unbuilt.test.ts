/** src/http/unbuilt.ts: the spec's endpoints that answer 501 until they are built. */
import t from 'tap';
import { allRoutes } from '../../../src/http/routeTable.js';
import { UNBUILT, unbuiltEndpoint, unbuiltMatcher } from '../../../src/http/unbuilt.js';

t.test('an unbuilt endpoint is found by method and path, parameters included', async (t) => {
  const match = unbuiltMatcher([['POST', '/v1/later/:laterId/turns']]);
  t.equal(match('POST', '/v1/later/3f2a/turns'), 'POST /v1/later/:laterId/turns');
  t.equal(match('GET', '/v1/later/3f2a/turns'), null, 'another method is not the endpoint');
  t.equal(match('POST', '/v1/later/x/turns/more'), null, 'nor a longer path');
  t.equal(match('POST', '/v1/later//turns'), null, 'nor an empty parameter');
});

t.test('no served route is listed as unbuilt', async (t) => {
  const served = allRoutes(Buffer.alloc(32), { faultInjection: true }).map((r) => `${r.method} ${r.path}`);
  const listed = UNBUILT.map(([method, path]) => `${method} ${path}`);
  t.same(
    listed.filter((e) => served.includes(e)),
    [],
    'remove an entry from UNBUILT when its route lands',
  );
  t.ok(
    served.includes('POST /v1/workers/environments/:envId/turns'),
    "the workers' turn endpoint, the last of the spec, is served",
  );
  t.equal(unbuiltEndpoint('POST', '/v1/workers/environments/3f2a/turns'), null, 'and no longer listed');
});
