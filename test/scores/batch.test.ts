/**
 * Integration: POST /v1/scores/batch — every row of the spec's status table (201, 207, 400 for all
 * items failing and for malformed envelopes, 413, and 500 from a real insert failure that stores
 * nothing), client_id echoed and never stored, per-item errors with their codes.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import t from 'tap';
import { call } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { keyWith, world } from './setup.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('POST /v1/scores/batch', async (t) => {
  const w = await world(t, { env: { TRACELAKE_FAULT_INJECTION: 'on' } });
  const batch = (scores: unknown, headers: Record<string, string> = {}) =>
    call(w.server, 'POST', '/v1/scores/batch', { auth: w.root, body: { scores }, headers });
  const named = async (name: string) =>
    (await call(w.server, 'GET', `/v1/scores?name=${encodeURIComponent(name)}&limit=1000`, { auth: w.root })).body;
  /** Scores that must be at rest when the test ends, by name. */
  const stored: Record<string, number> = {};

  t.test('201: every item stored; client_id echoed, never stored', async (t) => {
    const r = await batch([
      { name: 'b-ok', score: 0.25, resource_id: w.traceId, client_id: 'first' },
      { name: 'b-ok', score: 1, dataType: 'BOOLEAN', resource_id: w.childSpanId.toUpperCase(), client_id: 'second' },
      {
        name: 'b-ok',
        score: 3,
        label: 'x',
        data_type: 'categorical',
        resource_id: w.sessionId,
        session_id: w.sessionId,
      },
    ]);
    t.equal(r.status, 201);
    t.same(r.body.data.summary, { total: 3, succeeded: 3, failed: 0 });
    t.same(
      r.body.data.results.map((x: { status: string; client_id?: string; index: number }) => [
        x.index,
        x.status,
        x.client_id,
      ]),
      [
        [0, 'success', 'first'],
        [1, 'success', 'second'],
        [2, 'success', undefined],
      ],
    );
    for (const x of r.body.data.results) t.match(x.id, UUID);
    const listed = await named('b-ok');
    t.equal(listed.pagination.total, 3);
    const byId = Object.fromEntries(listed.data.map((s: { id: string }) => [s.id, s]));
    const [a, b, c] = r.body.data.results.map((x: { id: string }) => byId[x.id]);
    t.match(a, {
      resource_type: 'trace',
      resource_id: w.traceId,
      trace_id: w.traceId,
      data_type: 'NUMERIC',
      score: 0.25,
      source: 'api',
    });
    t.match(b, {
      resource_type: 'span',
      resource_id: w.childSpanId,
      trace_id: w.traceId,
      data_type: 'BOOLEAN',
      score: 1,
    });
    t.match(c, {
      resource_type: 'session',
      resource_id: w.sessionId,
      session_id: w.sessionId,
      data_type: 'CATEGORICAL',
      label: 'x',
    });
    for (const s of listed.data) t.notOk('client_id' in s, 'client_id is not part of a score');
    stored['b-ok'] = 3;
  });

  t.test('207: items fail one by one, with their reasons, and the rest is stored', async (t) => {
    const config = await call(w.server, 'POST', '/v1/score-configs', {
      auth: w.root,
      body: { name: 'b-ranged', data_type: 'NUMERIC', min_value: 0, max_value: 1 },
    });
    t.equal(config.status, 201);
    const r = await batch([
      { name: 'b-mixed', score: 1, resource_id: w.traceId, client_id: 'good-1' },
      { name: 'b-mixed', score: 1, client_id: 'no-resource' },
      { name: 'b-mixed', score: 1, resource_id: w.traceId, dataType: 'PERCENT', client_id: 'bad-type' },
      { name: 'b-mixed', score: 1, resource_id: '0'.repeat(32), client_id: 'unknown-trace' },
      { name: 'b-mixed', score: 1, resource_id: w.other.traceId, client_id: 'other-app' },
      { name: 'b-mixed', score: 1, resource_id: w.other.spanId, client_id: 'other-app-span' },
      { name: 'b-ranged', score: 2, resource_id: w.traceId, client_id: 'out-of-range' },
      { name: 'b-mixed', score: 1, resource_id: w.traceId, colour: 'red', client_id: 'unknown-field' },
      'not an object',
      { name: 'b-mixed', resource_id: w.traceId, client_id: 'no-score' },
      { name: 'b-mixed', score: 1, resource_id: w.loneTraceId, session_id: w.sessionId, client_id: 'not-in-session' },
      { name: 'b-mixed', score: 1, resource_id: w.traceId, client_id: 'x'.repeat(129) },
      { name: 'b-ranged', score: 0.5, resource_id: w.rootSpanId, client_id: 'good-2' },
    ]);
    t.equal(r.status, 207);
    t.same(r.body.data.summary, { total: 13, succeeded: 2, failed: 11 });
    const results = r.body.data.results as {
      index: number;
      id: string | null;
      status: string;
      client_id?: string;
      error?: { code: string; message: string; field?: string };
    }[];
    t.same(
      results.map((x) => x.index),
      [...Array(13).keys()],
      'one result per item, in order',
    );
    const byClient = Object.fromEntries(results.filter((x) => x.client_id).map((x) => [x.client_id, x]));
    t.match(byClient['good-1'], { status: 'success', id: UUID });
    t.match(byClient['good-2'], { status: 'success', id: UUID });
    t.match(byClient['no-resource'], {
      status: 'error',
      id: null,
      error: { code: 'invalid_request_body', field: 'resource_id', message: /resource_id: is required/ },
    });
    t.match(byClient['bad-type'], {
      status: 'error',
      error: { code: 'invalid_request_body', field: 'dataType', message: /NUMERIC, BOOLEAN, CATEGORICAL/ },
    });
    t.match(byClient['unknown-trace'], { status: 'error', error: { code: 'not_found', field: 'resource_id' } });
    t.same(
      byClient['other-app']!.error,
      { code: 'not_found', field: 'resource_id', message: `resource_id: no trace "${w.other.traceId}" in this app` },
      "another app's trace is not found, like an unknown one",
    );
    t.match(byClient['other-app-span'], { status: 'error', error: { code: 'not_found' } });
    t.match(byClient['out-of-range'], {
      status: 'error',
      error: { code: 'invalid_request_body', field: 'score', message: /at most 1 \(score config "b-ranged"\)/ },
    });
    t.match(byClient['unknown-field'], {
      status: 'error',
      error: { code: 'invalid_request_body', field: 'colour', message: 'colour: unknown property' },
    });
    t.same(
      results[8],
      {
        index: 8,
        id: null,
        status: 'error',
        error: { code: 'invalid_request_body', message: 'a score is a JSON object' },
      },
      'no client_id to echo',
    );
    t.match(byClient['no-score'], { status: 'error', error: { field: 'score' } });
    t.match(byClient['not-in-session'], {
      status: 'error',
      error: { code: 'invalid_request_body', field: 'session_id' },
    });
    t.match(results[11], { status: 'error', error: { field: 'client_id' } });
    t.notOk('client_id' in results[11]!, 'a client_id over 128 characters is not echoed');
    t.equal((await named('b-mixed')).pagination.total, 1);
    const ranged = await named('b-ranged');
    t.equal(ranged.pagination.total, 1);
    t.equal(ranged.data[0].config_id, config.body.data.id, 'the config that judged it');
    stored['b-mixed'] = 1;
    stored['b-ranged'] = 1;
  });

  t.test('400: every item failed; the results still say why', async (t) => {
    const r = await batch([
      { name: 'b-none', client_id: 'a' },
      { name: 'b-none', score: 1, resource_id: 'f'.repeat(16), client_id: 'b' },
    ]);
    t.equal(r.status, 400);
    t.equal(r.body.error.code, 'invalid_request_body');
    t.equal(r.body.error.message, 'Invalid request body', "the spec's generic message");
    t.same(Object.keys(r.body.error.details), ['0', '1'], 'details: why, by item index');
    t.match(r.body.error.details['0'], /resource_id/);
    t.same(Object.keys(r.body), ['error'], 'no top-level data beside the error');
    t.same(r.body.error.summary, { total: 2, succeeded: 0, failed: 2 });
    t.same(
      r.body.error.results.map((x: { client_id: string; error: { code: string } }) => [x.client_id, x.error.code]),
      [
        ['a', 'invalid_request_body'],
        ['b', 'not_found'],
      ],
    );
    t.equal((await named('b-none')).pagination.total, 0);
  });

  t.test('400: malformed envelopes', async (t) => {
    const cases: [string, { body?: unknown; rawBody?: string }][] = [
      ['no body', {}],
      ['not JSON', { rawBody: '{"scores": [' }],
      ['an array', { body: [{ name: 'q', score: 1, resource_id: w.traceId }] }],
      ['no scores', { body: {} }],
      ['scores not an array', { body: { scores: { name: 'q' } } }],
      ['no items', { body: { scores: [] } }],
      ['an unknown field', { body: { scores: [{ name: 'q', score: 1, resource_id: w.traceId }], dry_run: true } }],
    ];
    for (const [what, options] of cases) {
      const r = await call(w.server, 'POST', '/v1/scores/batch', {
        auth: w.root,
        ...options,
        headers: { 'content-type': 'application/json' },
      });
      t.equal(r.status, 400, what);
      t.equal(r.body.error.code, 'invalid_request_body', what);
      t.equal(r.body.error.message, 'Invalid request body', what);
      t.type(r.body.error.details, 'object', what);
      t.notOk(r.body.data, `${what}: no per-item results for a bad envelope`);
    }
  });

  t.test('413: more than 1000 items, answered before any item is looked at', async (t) => {
    const invalid = Array.from({ length: 1001 }, () => ({ nonsense: true }));
    const r = await batch(invalid);
    t.equal(r.status, 413);
    t.equal(r.body.error.code, 'payload_too_large');
    t.equal(r.body.error.limit, 1000);
    t.equal(r.body.error.count, 1001);
    t.notOk(r.body.data, 'no per-item results');
    const valid = Array.from({ length: 1001 }, (_, i) => ({ name: 'b-big', score: i, resource_id: w.traceId }));
    t.equal((await batch(valid)).status, 413);
    t.equal((await named('b-big')).pagination.total, 0, 'nothing of it stored');
    const max = await batch(valid.slice(0, 1000));
    t.equal(max.status, 201, 'exactly 1000 is allowed');
    t.same(max.body.data.summary, { total: 1000, succeeded: 1000, failed: 0 });
    t.equal(new Set(max.body.data.results.map((x: { id: string }) => x.id)).size, 1000, 'a distinct id each');
    stored['b-big'] = 1000;
  });

  t.test('500: the insert fails for real and no item is persisted', async (t) => {
    const items = [
      { name: 'b-fault', score: 1, resource_id: w.traceId, client_id: 'one' },
      { name: 'b-fault', score: 2, resource_id: w.rootSpanId, client_id: 'two' },
      { name: 'b-fault', client_id: 'invalid' },
    ];
    const r = await batch(items, { 'x-tracelake-fault': 'score-insert' });
    t.equal(r.status, 500);
    t.equal(r.body.error.code, 'internal_error');
    t.equal(r.body.error.message, 'Internal error');
    t.same(Object.keys(r.body.error.details), ['0', '1', '2']);
    t.same(Object.keys(r.body), ['error']);
    t.same(r.body.error.summary, { total: 3, succeeded: 0, failed: 3 });
    t.same(
      r.body.error.results.map((x: { id: null; status: string; client_id: string; error: { code: string } }) => [
        x.id,
        x.status,
        x.client_id,
        x.error.code,
      ]),
      [
        [null, 'error', 'one', 'internal_error'],
        [null, 'error', 'two', 'internal_error'],
        [null, 'error', 'invalid', 'invalid_request_body'],
      ],
    );
    const logged = () =>
      w.server.logs.some(
        (l) => l.msg === 'score insert failed' && /CHECK constraint failed on table scores/.test(String(l.err)),
      );
    // Logs arrive through a pipe.
    t.ok(await until(logged, 2_000), 'the store refused the rows (a real constraint failure), and it was logged');
    t.equal((await named('b-fault')).pagination.total, 0, 'nothing of the batch is readable');
    const single = await call(w.server, 'POST', '/v1/scores', {
      auth: w.root,
      body: items[0],
      headers: { 'x-tracelake-fault': 'score-insert' },
    });
    t.equal(single.status, 500, 'POST /v1/scores fails the same way');
    t.equal(single.body.error.code, 'internal_error');
    t.equal((await named('b-fault')).pagination.total, 0);
    const after = await batch(items.slice(0, 2));
    t.equal(after.status, 201, 'the same items store fine without the fault: the server serves on');
    stored['b-fault'] = 2;
  });

  t.test('who may send a batch', async (t) => {
    const item = [{ name: 'b-auth', score: 1, resource_id: w.traceId }];
    const reader = await keyWith(w, 'score.read', 'score.delete', 'trace.write');
    const denied = await call(w.server, 'POST', '/v1/scores/batch', { auth: reader, body: { scores: item } });
    t.equal(denied.status, 403);
    t.equal(denied.body.error.code, 'forbidden');
    t.equal(denied.body.error.required_permission, 'score.write');
    t.equal((await call(w.server, 'POST', '/v1/scores/batch', { body: { scores: item } })).status, 401);
    const writer = await keyWith(w, 'score.write');
    t.equal(
      (await call(w.server, 'POST', '/v1/scores/batch', { auth: writer, body: { scores: item } })).status,
      201,
      'score.write alone is enough',
    );
    const otherApp = await call(w.server, 'POST', '/v1/scores/batch', { auth: w.other.auth, body: { scores: item } });
    t.equal(otherApp.status, 400, "another app cannot score this app's trace");
    t.equal(otherApp.body.error.results[0].error.code, 'not_found');
    stored['b-auth'] = 1;
  });

  t.test('at rest: exactly the stored scores, nothing of the failed insert, no client_id', async (t) => {
    t.equal(await w.server.stop('SIGTERM'), 0);
    const db = await DuckDBInstance.create(join(w.server.dataDir, 'tracelake.duckdb'));
    const c = await db.connect();
    const rows = (
      await c.runAndReadAll('SELECT name, count(*)::INTEGER AS n FROM scores GROUP BY name ORDER BY name')
    ).getRowObjectsJson();
    t.same(Object.fromEntries(rows.map((r) => [r.name, r.n])), stored);
    const columns = (
      await c.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_name = 'scores'`)
    )
      .getRowObjectsJson()
      .map((r) => r.column_name);
    t.notOk(columns.includes('client_id'), 'no column holds client_id');
    const echoed = (
      await c.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM scores WHERE list_contains(['first', 'second', 'good-1', 'good-2', 'one', 'two'], label) OR list_contains(['first', 'second', 'good-1', 'good-2', 'one', 'two'], reason)`,
      )
    ).getRowObjectsJson();
    t.same(echoed, [{ n: 0 }], 'client ids are nowhere in the rows');
    c.closeSync();
    db.closeSync();
  });
});
