/** src/http/surface.ts: which server (cloud, local) offers which path. */
import t from 'tap';
import { refusalFor } from '../../../src/http/surface.js';

t.test('surface rules', async (t) => {
  t.equal(refusalFor('cloud', '/v1/traces/search'), null);
  t.equal(refusalFor('cloud', '/v1/dev/whoami'), 'not_available_on_cloud');
  t.equal(refusalFor('local', '/v1/dev/whoami'), null);
  for (const p of [
    '/v1/traces/search',
    '/v1/spans/search',
    '/v1/scores/search',
    '/v1/scores/aggregations',
    '/v1/metrics',
    '/v1/health/files',
    '/v1/api-keys',
    '/v1/apps/x',
    '/v1/environments',
  ]) {
    t.equal(refusalFor('local', p), 'not_available_locally', p);
  }
  for (const p of [
    '/health',
    '/v1/traces',
    '/v1/traces/abc/spans',
    '/v1/spans',
    '/v1/sessions',
    '/v1/scores',
    '/v1/scores/batch',
    '/v1/scores/names',
    '/v1/capabilities',
    '/v1/pricing',
    '/v1/filter-schema',
    '/v1/runs/r1/traces',
    '/v1/openapi.json',
    '/v1/reference',
    '/v1/auth/app',
  ]) {
    t.equal(refusalFor('local', p), null, p);
  }
  t.equal(refusalFor('local', '/favicon.ico'), null, 'non-API paths fall through to 404');
});

t.test('prefixes match whole segments', async (t) => {
  t.equal(refusalFor('cloud', '/v1/dev'), 'not_available_on_cloud');
  t.equal(refusalFor('cloud', '/v1/devices'), null, '/v1/devices is not /v1/dev');
  t.equal(refusalFor('local', '/v1/devices'), 'not_available_locally');
  t.equal(refusalFor('local', '/v1/tracesx'), 'not_available_locally');
  t.equal(refusalFor('local', '/v1/runs/r1/spans'), 'not_available_locally');
  t.equal(refusalFor('cloud', '/v1/api-keys'), null, 'the cloud serves every non-dev path');
});

t.test('the operator API is on both servers', async (t) => {
  for (const mode of ['cloud', 'local'] as const) {
    for (const p of ['/v1/operator/tenants', '/v1/operator/apps/a/keys', '/v1/operator'])
      t.equal(refusalFor(mode, p), null, `${mode} ${p}`);
  }
  t.equal(refusalFor('local', '/v1/operators'), 'not_available_locally', 'a whole segment');
});
