/** Integration: health, capabilities and pricing (unauthenticated), with real dependency checks. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { call, serverFor } from '../helpers/server.js';

t.test('health endpoints', async (t) => {
  const server = await serverFor(t);

  const live = await call(server, 'GET', '/health');
  t.equal(live.status, 200);
  t.equal(live.body.status, 'healthy');
  t.equal(live.body.mode, 'cloud');

  // Probes that send HEAD (curl -I, some load balancers) get the GET answer's status and headers, no body.
  const head = await fetch(`${server.url}/health`, { method: 'HEAD' });
  t.equal(head.status, 200, 'HEAD /health answers');
  t.equal(head.headers.get('content-type'), 'application/json');
  // uptime_s may have gained a digit since the GET: the length is the body's, give or take that.
  t.ok(
    Math.abs(Number(head.headers.get('content-length')) - Buffer.byteLength(JSON.stringify(live.body))) <= 2,
    'with the length of the GET body',
  );
  t.equal((await head.arrayBuffer()).byteLength, 0, 'and no body');
  t.equal((await fetch(`${server.url}/v1/traces`, { method: 'HEAD' })).status, 401, 'HEAD goes through auth like GET');

  for (const [path, component, names] of [
    ['/v1/health/ingestion', 'ingestion', ['duckdb', 'data_dir', 'disk', 'worker_pool']],
    ['/v1/health/files', 'files', ['data_dir', 'disk', 'segments', 'quarantine', 'worker_pool']],
  ] as const) {
    const r = await call(server, 'GET', path);
    t.equal(r.status, 200, path);
    t.equal(r.body.component, component);
    t.equal(r.body.status, 'healthy');
    t.ok(Math.abs(Date.parse(r.body.timestamp) - Date.now()) < 60_000, 'timestamp is now');
    t.same(r.body.dependencies.map((d: { name: string }) => d.name).sort(), [...names].sort());
    for (const d of r.body.dependencies) {
      t.equal(d.status, 'healthy', d.name);
      t.type(d.latencyMs, 'number');
    }
  }
  const ingestion = await call(server, 'GET', '/v1/health/ingestion');
  const duckdb = ingestion.body.dependencies.find((d: { name: string }) => d.name === 'duckdb');
  t.equal(
    duckdb.detail.schema_version,
    Math.max(...MIGRATIONS.map((m) => m.version)),
    'the check really queried the store',
  );

  t.test('a broken dependency makes the report unhealthy with the same shape', async (t) => {
    // Replace the segments directory with a file: the files check can no longer list it.
    const segments = join(server.dataDir, 'segments');
    rmSync(segments, { recursive: true, force: true });
    writeFileSync(segments, 'not a directory');
    t.teardown(() => {
      rmSync(segments, { force: true });
      mkdirSync(segments);
    });
    const r = await call(server, 'GET', '/v1/health/files');
    t.equal(r.status, 503);
    t.equal(r.body.component, 'files');
    t.equal(r.body.status, 'unhealthy');
    const bad = r.body.dependencies.find((d: { name: string }) => d.name === 'segments');
    t.equal(bad.status, 'unhealthy');
    t.match(bad.error, /ENOTDIR/);
    t.equal((await call(server, 'GET', '/v1/health/ingestion')).status, 200, 'ingestion does not depend on it');
  });
});

t.test('capabilities and pricing', async (t) => {
  const server = await serverFor(t);
  const caps = await call(server, 'GET', '/v1/capabilities');
  t.equal(caps.status, 200);
  t.equal(caps.body.data.api_version, '1.0');
  t.match(caps.body.data.version, /^\d+\.\d+\.\d+/);
  t.equal(caps.body.data.limits.filters.max_predicates, 20);
  t.equal(caps.body.data.limits.max_otlp_body_bytes, 16 * 1024 * 1024);
  t.equal(caps.body.data.features.api_keys, true);

  const pricing = await call(server, 'GET', '/v1/pricing');
  t.equal(pricing.status, 200);
  const table = pricing.body.data;
  t.match(table.as_of, /^\d{4}-\d\d-\d\d$/);
  t.equal(table.currency, 'USD');
  const providers = new Set(table.models.map((m: { provider: string }) => m.provider));
  for (const p of ['openai', 'anthropic', 'google', 'mistral', 'meta', 'deepseek'])
    t.ok(providers.has(p), `has ${p} models`);
  for (const m of table.models) {
    t.ok(m.input >= 0 && m.output >= 0, `${m.id} has prices`);
    t.doesNotThrow(() => new RegExp(m.match, 'i'), `${m.id} has a valid pattern`);
  }
});
