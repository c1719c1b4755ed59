/**
 * Integration: GET /v1/scores/aggregations and POST /v1/scores/search (cloud only) against values
 * computed in this test from the scores it sent; and the local server: 501 for both, full CRUD.
 */
import t from 'tap';
import { hex, exportRequest } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';
import { ingest, world } from './setup.js';
import { seededRandom } from '../helpers/random.js';

interface Sent {
  id: string;
  name: string;
  score: number;
  source: string;
  label: string | null;
  data_type: string;
}

/** The aggregation computed here, independently of the server: per name, sorted by name. */
function expected(scores: readonly Sent[]) {
  const groups = new Map<string, number[]>();
  for (const s of scores) groups.set(s.name, [...(groups.get(s.name) ?? []), s.score]);
  return [...groups.keys()].sort().map((name) => {
    const values = groups.get(name)!;
    return {
      name,
      count: values.length,
      avg_score: values.reduce((a, b) => a + b, 0) / values.length,
      min_score: Math.min(...values),
      max_score: Math.max(...values),
    };
  });
}

t.test('aggregations and search (cloud)', async (t) => {
  const w = await world(t);
  const next = seededRandom(20261121);
  const NAMES = ['relevance', 'fluency', 'toxicity'];
  const SOURCES = ['api', 'eval', 'annotation', 'sdk'];
  const items = Array.from({ length: 400 }, (_, i) => {
    const kind = i % 10;
    if (kind === 0)
      return {
        name: 'helpful',
        score: next() < 0.5 ? 0 : 1,
        data_type: 'BOOLEAN',
        source: SOURCES[i % 4]!,
        resource_id: w.traceId,
      };
    if (kind === 1)
      return {
        name: 'verdict',
        score: Math.floor(next() * 3),
        label: ['fail', 'meh', 'pass'][i % 3]!,
        data_type: 'CATEGORICAL',
        source: 'annotation',
        resource_id: w.rootSpanId,
      };
    return {
      name: NAMES[i % 3]!,
      score: Math.round((next() * 2 - 0.5) * 1e6) / 1e6,
      source: SOURCES[Math.floor(next() * 4)]!,
      resource_id: i % 2 ? w.childSpanId : w.loneTraceId,
    };
  });
  const sent: Sent[] = [];
  for (let i = 0; i < items.length; i += 150) {
    const chunk = items.slice(i, i + 150);
    const r = await call(w.server, 'POST', '/v1/scores/batch', { auth: w.root, body: { scores: chunk } });
    t.equal(r.status, 201);
    r.body.data.results.forEach((res: { id: string }, j: number) => {
      const item = chunk[j]!;
      sent.push({
        id: res.id,
        name: item.name,
        score: item.score,
        source: item.source,
        label: ('label' in item ? item.label : undefined) ?? null,
        data_type: item.data_type ?? 'NUMERIC',
      });
    });
  }
  // Another app's scores of the same names must not count.
  const noise = await call(w.server, 'POST', '/v1/scores/batch', {
    auth: w.other.auth,
    body: { scores: NAMES.map((name) => ({ name, score: 1000, resource_id: w.other.traceId })) },
  });
  t.equal(noise.status, 201);

  const aggregate = async (query = '') => {
    const r = await call(w.server, 'GET', `/v1/scores/aggregations${query}`, { auth: w.root });
    t.equal(r.status, 200, query);
    return r.body.data;
  };
  const close = (actual: { name: string; avg_score: number }[], wanted: ReturnType<typeof expected>, what: string) => {
    t.same(
      actual.map(({ avg_score: _a, ...rest }) => rest),
      wanted.map(({ avg_score: _a, ...rest }) => rest),
      `${what}: names, counts, min and max`,
    );
    for (const [i, e] of wanted.entries())
      t.ok(Math.abs(actual[i]!.avg_score - e.avg_score) < 1e-9, `${what}: avg of ${e.name}`);
  };

  t.test('per name, over the default window', async (t) => {
    const all = await aggregate();
    t.equal(all.length, 5);
    close(all, expected(sent), 'all');
    t.same(Object.keys(all[0]).sort(), ['avg_score', 'count', 'max_score', 'min_score', 'name'], "the spec's fields");
  });

  t.test('name, source and data_type narrow it', async (t) => {
    close(await aggregate('?name=relevance'), expected(sent.filter((s) => s.name === 'relevance')), 'name');
    close(await aggregate('?source=EVAL'), expected(sent.filter((s) => s.source === 'eval')), 'source');
    close(await aggregate('?data_type=boolean'), expected(sent.filter((s) => s.data_type === 'BOOLEAN')), 'data_type');
    close(
      await aggregate('?name=fluency&source=sdk'),
      expected(sent.filter((s) => s.name === 'fluency' && s.source === 'sdk')),
      'both',
    );
    t.same(await aggregate('?name=nothing'), []);
  });

  t.test('the string filter', async (t) => {
    const q = (f: string) => `?filter=${encodeURIComponent(f)}`;
    close(
      await aggregate(q('score >= 0.5 and source = eval')),
      expected(sent.filter((s) => s.score >= 0.5 && s.source === 'eval')),
      'and',
    );
    close(
      await aggregate(q('(name = relevance or name = fluency) and score < 0.25')),
      expected(sent.filter((s) => (s.name === 'relevance' || s.name === 'fluency') && s.score < 0.25)),
      'or-group',
    );
    close(await aggregate(q('label exists')), expected(sent.filter((s) => s.label !== null)), 'exists');
    close(
      await aggregate(`${q('source in (api, sdk)')}&name=toxicity`),
      expected(sent.filter((s) => ['api', 'sdk'].includes(s.source) && s.name === 'toxicity')),
      'with name',
    );
    const bad = await call(w.server, 'GET', `/v1/scores/aggregations${q('latency_ms > 3')}`, { auth: w.root });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'invalid_filter');
  });

  t.test('the window', async (t) => {
    const hour = 3_600_000;
    t.same(await aggregate(`?end_date=${new Date(Date.now() - hour).toISOString()}`), [], 'before the scores');
    close(
      await aggregate(
        `?start_date=${new Date(Date.now() - hour).toISOString()}&end_date=${new Date(Date.now() + hour).toISOString()}`,
      ),
      expected(sent),
      'around them',
    );
    const long = await call(
      w.server,
      'GET',
      '/v1/scores/aggregations?start_date=2026-01-01T00:00:00Z&end_date=2026-06-01T00:00:00Z',
      { auth: w.root },
    );
    t.equal(long.status, 400);
    t.equal(long.body.error.code, 'invalid_time_window');
    t.equal(
      (await call(w.server, 'GET', '/v1/scores/aggregations?source=human', { auth: w.root })).body.error.code,
      'invalid_query_parameters',
    );
  });

  t.test('a deleted score stops counting', async (t) => {
    const victim = sent.find((s) => s.name === 'toxicity')!;
    t.equal((await call(w.server, 'DELETE', `/v1/scores/${victim.id}`, { auth: w.root })).status, 200);
    sent.splice(sent.indexOf(victim), 1);
    close(await aggregate('?name=toxicity'), expected(sent.filter((s) => s.name === 'toxicity')), 'after delete');
  });

  t.test('POST /v1/scores/search', async (t) => {
    const search = (body: unknown) => call(w.server, 'POST', '/v1/scores/search', { auth: w.root, body });
    const wanted = sent.filter((s) => s.name === 'relevance' && s.score >= 0.2 && s.score <= 0.6);
    const r = await search({
      filters: [
        { field: 'name', operator: 'equals', value: 'relevance' },
        { field: 'score', operator: 'between', value: [0.2, 0.6] },
      ],
      limit: 1000,
      sort_by: 'score',
      sort_order: 'asc',
    });
    t.equal(r.status, 200);
    t.same(r.body.pagination, { total: wanted.length, limit: 1000, offset: 0 });
    t.same(r.body.data.map((s: { id: string }) => s.id).sort(), wanted.map((s) => s.id).sort());
    const scores = r.body.data.map((s: { score: number }) => s.score);
    t.same(
      scores,
      [...scores].sort((a: number, b: number) => a - b),
      'sorted by score',
    );
    t.match(r.body.data[0], {
      id: String,
      name: 'relevance',
      score: Number,
      resource_id: String,
      source: String,
      created_at: String,
    });

    const or = await search({
      filters: [
        {
          or: [
            { field: 'source', operator: 'in', value: ['eval', 'sdk'] },
            { field: 'label', operator: 'equals', value: 'pass' },
          ],
        },
      ],
      limit: 1,
    });
    t.equal(
      or.body.pagination.total,
      sent.filter((s) => ['eval', 'sdk'].includes(s.source) || s.label === 'pass').length,
    );
    t.equal(or.body.data.length, 1);

    const since = await search({
      filters: [
        { field: 'created_at', operator: 'gt', value: new Date(Date.now() - 3_600_000).toISOString() },
        { field: 'resource_id', operator: 'equals', value: w.rootSpanId },
      ],
    });
    t.equal(since.body.pagination.total, sent.filter((_, i) => items[i]?.resource_id === w.rootSpanId).length);
    t.equal(since.body.pagination.limit, 50, 'default limit');

    const page = await search({ limit: 7, offset: 7 });
    t.same(page.body.pagination, { total: sent.length, limit: 7, offset: 7 }, 'no filters: every score of the window');
    t.equal(page.body.data.length, 7);
    t.same((await search({ end_date: new Date(Date.now() - 3_600_000).toISOString() })).body.pagination.total, 0);

    t.equal(
      (await search({ filters: [{ field: 'latency_ms', operator: 'gt', value: 1 }] })).body.error.code,
      'invalid_filter',
    );
    t.equal(
      (await search({ filters: [{ field: 'score', operator: 'contains', value: 'x' }] })).body.error.code,
      'invalid_filter',
    );
    t.equal(
      (await search({ start_date: '2026-01-01T00:00:00Z', end_date: '2026-12-01T00:00:00Z' })).body.error.code,
      'invalid_time_window',
    );
    t.equal((await search({ limit: 1001 })).body.error.code, 'invalid_request_body');
    t.equal((await search({ query: 'x' })).body.error.code, 'invalid_request_body');
    t.equal(
      (await call(w.server, 'POST', '/v1/scores/search', { auth: w.other.auth, body: {} })).body.pagination.total,
      3,
      'another app finds only its own',
    );
  });
});

t.test('local mode: aggregations and search are cloud-only; scores work without a key', async (t) => {
  const server = await serverFor(t, { args: ['--mode', 'local'] });
  const root = rootCredentials(server);
  for (const [method, path] of [
    ['GET', '/v1/scores/aggregations'],
    ['POST', '/v1/scores/search'],
  ] as const) {
    const r = await call(server, method, path, { auth: root, body: method === 'POST' ? {} : undefined });
    t.equal(r.status, 501, path);
    t.equal(r.body.error.code, 'not_available_locally');
  }
  const traceId = hex(16);
  await ingest(server, root, exportRequest([{ traceId }]));
  const made = await call(server, 'POST', '/v1/scores', { body: { name: 'local', score: 1, resource_id: traceId } });
  t.equal(made.status, 201);
  const batch = await call(server, 'POST', '/v1/scores/batch', {
    body: { scores: [{ name: 'local', score: 2, resource_id: traceId, client_id: 'l' }] },
  });
  t.equal(batch.status, 201);
  t.equal(batch.body.data.results[0].client_id, 'l');
  t.equal((await call(server, 'GET', '/v1/scores?name=local')).body.pagination.total, 2);
  t.same((await call(server, 'GET', '/v1/scores/names')).body.data, ['local']);
  t.equal((await call(server, 'GET', `/v1/scores/${made.body.data.id}`)).status, 200);
  t.equal((await call(server, 'DELETE', `/v1/scores/${made.body.data.id}`)).status, 200);
  t.equal((await call(server, 'GET', '/v1/score-configs')).status, 200);
  t.equal(
    (
      await call(server, 'POST', '/v1/comments', {
        body: { resource_type: 'trace', resource_id: traceId, content: 'local note' },
      })
    ).status,
    201,
  );
});
