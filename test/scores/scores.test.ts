/**
 * Integration: one score at a time — create (trace, span, session), read, list with every filter and
 * as CSV, names, delete — and isolation: another app's ids answer exactly like unknown ones.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { call } from '../helpers/server.js';
import { world } from './setup.js';

t.test('scores', async (t) => {
  const w = await world(t);
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    call(w.server, 'POST', '/v1/scores', { auth: w.root, body, headers });
  const list = (query: string, auth = w.root) => call(w.server, 'GET', `/v1/scores?${query}`, { auth });
  const ids: Record<string, string> = {};

  t.test('POST /v1/scores: a trace, a span, a session', async (t) => {
    const trace = await post({
      name: 'quality',
      score: 0.9,
      resource_id: w.traceId.toUpperCase(),
      label: 'good',
      reason: 'clear answer',
      source: 'SDK',
      user_id: 'reviewer-1',
      client_id: 'c-1',
    });
    t.equal(trace.status, 201);
    t.match(trace.body.data, {
      id: /^[0-9a-f-]{36}$/,
      name: 'quality',
      score: 0.9,
      data_type: 'NUMERIC',
      label: 'good',
      reason: 'clear answer',
      source: 'sdk',
      user_id: 'reviewer-1',
      resource_id: w.traceId,
      resource_type: 'trace',
      trace_id: w.traceId,
      session_id: null,
      config_id: null,
      environment_id: w.server.bootstrap!.environment_id,
    });
    t.ok(Math.abs(Date.parse(trace.body.data.created_at) - Date.now()) < 60_000, 'created_at is now');
    t.notOk('client_id' in trace.body.data, 'client_id is not stored');
    ids.trace = trace.body.data.id;

    const span = await post({
      name: 'helpful',
      score: 1,
      dataType: 'BOOLEAN',
      resource_id: w.childSpanId,
      source: 'annotation',
    });
    t.equal(span.status, 201);
    t.match(span.body.data, {
      resource_type: 'span',
      resource_id: w.childSpanId,
      trace_id: w.traceId,
      data_type: 'BOOLEAN',
      source: 'annotation',
      user_id: null,
    });
    ids.span = span.body.data.id;

    const session = await post({
      name: 'satisfaction',
      score: 4,
      resource_id: w.sessionId,
      session_id: w.sessionId,
      source: 'eval',
    });
    t.equal(session.status, 201);
    t.match(
      session.body.data,
      { resource_type: 'session', resource_id: w.sessionId, trace_id: null, session_id: w.sessionId },
      'a session score names the session as its resource',
    );
    const bare = await post({ name: 'satisfaction', score: 4, session_id: w.sessionId });
    t.equal(bare.status, 400, 'resource_id is required, for a session score too');
    t.match(bare.body.error.details, {
      resource_id: /is required.*to score a session its id, with session_id the same/,
    });
    ids.session = session.body.data.id;

    const inSession = await post({ name: 'quality', score: 0.4, resource_id: w.rootSpanId, session_id: w.sessionId });
    t.equal(inSession.status, 201, 'a span scored within its session');
    t.match(inSession.body.data, { resource_type: 'span', session_id: w.sessionId, trace_id: w.traceId });
    ids.inSession = inSession.body.data.id;

    const lone = await post({ name: 'quality', score: 0.1, resource_id: w.loneTraceId, source: 'eval' });
    t.equal(lone.status, 201);
    ids.lone = lone.body.data.id;
  });

  t.test('POST /v1/scores: refusals', async (t) => {
    const notInSession = await post({ name: 'q', score: 1, resource_id: w.loneTraceId, session_id: w.sessionId });
    t.equal(notInSession.status, 400);
    t.same(notInSession.body.error, {
      code: 'invalid_request_body',
      message: 'Invalid request body',
      details: { session_id: `the trace ${w.loneTraceId} is not part of session "${w.sessionId}"` },
    });

    const unknown = await post({ name: 'q', score: 1, resource_id: '1'.repeat(32) });
    const theirs = await post({ name: 'q', score: 1, resource_id: w.other.traceId });
    t.equal(unknown.status, 404);
    t.equal(theirs.status, 404, "another app's trace");
    t.equal(theirs.body.error.code, unknown.body.error.code);
    t.equal(theirs.body.error.code, 'not_found');
    t.equal((await post({ name: 'q', score: 1, resource_id: w.other.spanId })).status, 404, "another app's span");
    t.equal(
      (await post({ name: 'q', score: 1, resource_id: w.other.sessionId, session_id: w.other.sessionId })).status,
      404,
      "another app's session",
    );
    t.equal(
      (await post({ name: 'q', score: 1, resource_id: 'no-such-session', session_id: 'no-such-session' })).status,
      404,
    );

    const cases: [unknown, Record<string, string | RegExp>][] = [
      [{ name: 'q', resource_id: w.traceId }, { score: 'is required' }],
      [{ name: 'q', score: 1 }, { resource_id: /is required/ }],
      [{ name: 'q', score: 1, resource_id: 'trace-1' }, { resource_id: /32 hex/ }],
      [
        { name: 'q', score: 0.5, dataType: 'BOOLEAN', resource_id: w.traceId },
        { score: 'a BOOLEAN score is 0 or 1, got 0.5' },
      ],
      [
        { name: 'q', score: 1, dataType: 'CATEGORICAL', resource_id: w.traceId },
        { label: 'is required for a CATEGORICAL score' },
      ],
      [{ name: 'q', score: 1, data_type: 'PERCENT', resource_id: w.traceId }, { data_type: /must be one of NUMERIC/ }],
      [{ name: 'q', score: 1, source: 'human', resource_id: w.traceId }, { source: /must be one of api/ }],
      [{ name: 'q', score: 1, resource_id: w.traceId, colour: 'red' }, { colour: 'unknown property' }],
      [{ name: '', score: 1, resource_id: w.traceId }, { name: /expected/ }],
      [{ name: 'q', score: 'high', resource_id: w.traceId }, { score: /expected/ }],
      // Past ±1e15 the averages the API answers could overflow to Infinity.
      [{ name: 'q', score: 1e300, resource_id: w.traceId }, { score: /expected/ }],
      [{ name: 'q', score: -2e15, resource_id: w.traceId }, { score: /expected/ }],
    ];
    for (const [body, details] of cases) {
      const r = await post(body);
      t.equal(r.status, 400, JSON.stringify(body));
      t.equal(r.body.error.code, 'invalid_request_body');
      t.match(r.body.error.details, details, JSON.stringify(body));
    }
  });

  t.test('the fault header does nothing unless fault injection is on', async (t) => {
    const r = await post(
      { name: 'unfaulted', score: 1, resource_id: w.traceId },
      { 'x-tracelake-fault': 'score-insert' },
    );
    t.equal(r.status, 201);
    ids.unfaulted = r.body.data.id;
  });

  t.test('GET /v1/scores/{id}', async (t) => {
    const one = await call(w.server, 'GET', `/v1/scores/${ids.trace}`, { auth: w.root });
    t.equal(one.status, 200);
    t.match(one.body.data, { id: ids.trace, name: 'quality', score: 0.9, resource_id: w.traceId });
    t.equal(
      (await call(w.server, 'GET', `/v1/scores/${ids.trace!.toUpperCase()}`, { auth: w.root })).status,
      200,
      'any case',
    );
    const theirs = await call(w.server, 'GET', `/v1/scores/${ids.trace}`, { auth: w.other.auth });
    const unknown = await call(w.server, 'GET', `/v1/scores/${randomUUID()}`, { auth: w.root });
    t.equal(theirs.status, 404, 'not visible to another app');
    t.equal(unknown.status, 404);
    t.equal(theirs.body.error.code, unknown.body.error.code);
    const bad = await call(w.server, 'GET', '/v1/scores/not-a-uuid', { auth: w.root });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'invalid_path_parameters');
  });

  t.test('GET /v1/scores: filters, pages, CSV', async (t) => {
    const all = await list('');
    t.equal(all.status, 200);
    t.equal(all.body.pagination.total, 6);
    t.same(all.body.pagination, { total: 6, limit: 50, offset: 0 });
    const times = all.body.data.map((s: { created_at: string }) => s.created_at);
    t.same(times, [...times].sort().reverse(), 'newest first');

    const idsOf = (r: { body: { data: { id: string }[] } }) => r.body.data.map((s) => s.id).sort();
    t.same(idsOf(await list(`session_id=${w.sessionId}`)), [ids.session, ids.inSession].sort());
    t.same(
      idsOf(await list(`trace_id=${w.traceId}`)),
      [ids.trace, ids.span, ids.inSession, ids.unfaulted].sort(),
      'the trace and its spans',
    );
    t.same(idsOf(await list(`resource_id=${w.childSpanId.toUpperCase()}`)), [ids.span]);
    t.same(
      idsOf(await list(`resource_id=${w.traceId}`)),
      [ids.trace, ids.unfaulted].sort(),
      'the scores of the trace itself, not of its spans',
    );
    t.same(
      idsOf(await list(`resource_id=${w.sessionId}`)),
      [ids.session],
      'the score of the session, not of a span in it',
    );
    t.same(idsOf(await list('name=quality')), [ids.trace, ids.inSession, ids.lone].sort());
    t.same(idsOf(await list('source=EVAL')), [ids.session, ids.lone].sort());
    t.same(idsOf(await list('name=quality&source=eval')), [ids.lone]);
    t.same(idsOf(await list('user_id=reviewer-1')), [ids.trace]);
    t.same(idsOf(await list('data_type=boolean')), [ids.span]);
    const hour = 3_600_000;
    t.equal((await list(`start_date=${new Date(Date.now() + hour).toISOString()}`)).body.pagination.total, 0);
    t.equal((await list(`end_date=${new Date(Date.now() - hour).toISOString()}`)).body.pagination.total, 0);
    t.equal(
      (
        await list(
          `start_date=${new Date(Date.now() - hour).toISOString()}&end_date=${new Date(Date.now() + hour).toISOString()}`,
        )
      ).body.pagination.total,
      6,
    );
    t.equal((await list('start_date=2020-01-01T00:00:00Z')).body.pagination.total, 6, 'no 90-day cap on a list');
    const window = await list('start_date=2026-01-02T00:00:00Z&end_date=2026-01-01T00:00:00Z');
    t.equal(window.status, 400);
    t.equal(window.body.error.code, 'invalid_time_window');
    t.equal((await list('source=human')).body.error.code, 'invalid_query_parameters');
    t.equal((await list('limit=0')).status, 400);
    t.equal((await list('limit=1001')).status, 400);

    const pages = [];
    for (let offset = 0; offset < 6; offset += 4) {
      const page = await list(`limit=4&offset=${offset}`);
      t.same(page.body.pagination, { total: 6, limit: 4, offset });
      pages.push(...page.body.data.map((s: { id: string }) => s.id));
    }
    t.same(
      pages,
      all.body.data.map((s: { id: string }) => s.id),
      'pages partition the list in order',
    );

    const csv = await list('format=csv&name=quality');
    t.equal(csv.status, 200);
    t.match(csv.headers.get('content-type'), /^text\/csv/);
    t.equal(csv.headers.get('x-total-count'), '3');
    const lines = csv.text.trimEnd().split('\r\n');
    t.equal(
      lines[0],
      'id,name,score,data_type,label,reason,source,user_id,resource_id,resource_type,trace_id,session_id,config_id,environment_id,created_at',
    );
    t.equal(lines.length, 4);
    t.ok(
      lines.some((l) =>
        l.startsWith(`${ids.trace},quality,0.9,NUMERIC,good,clear answer,sdk,reviewer-1,${w.traceId},trace,`),
      ),
    );

    const theirs = await list('', w.other.auth);
    t.same(theirs.body, { data: [], pagination: { total: 0, limit: 50, offset: 0 } }, 'another app sees none of them');
  });

  t.test('GET /v1/scores/names', async (t) => {
    const names = await call(w.server, 'GET', '/v1/scores/names', { auth: w.root });
    t.equal(names.status, 200);
    t.same(names.body.data, ['helpful', 'quality', 'satisfaction', 'unfaulted']);
    t.same((await call(w.server, 'GET', '/v1/scores/names', { auth: w.other.auth })).body.data, []);
  });

  t.test('DELETE /v1/scores/{id}', async (t) => {
    const theirs = await call(w.server, 'DELETE', `/v1/scores/${ids.lone}`, { auth: w.other.auth });
    t.equal(theirs.status, 404, 'another app cannot delete it');
    t.equal((await call(w.server, 'GET', `/v1/scores/${ids.lone}`, { auth: w.root })).status, 200, 'still there');
    const deleted = await call(w.server, 'DELETE', `/v1/scores/${ids.lone}`, { auth: w.root });
    t.equal(deleted.status, 200);
    t.match(deleted.body.data, { id: ids.lone, name: 'quality', score: 0.1 });
    t.equal((await call(w.server, 'GET', `/v1/scores/${ids.lone}`, { auth: w.root })).status, 404);
    t.equal((await call(w.server, 'DELETE', `/v1/scores/${ids.lone}`, { auth: w.root })).status, 404, 'twice');
    t.equal((await call(w.server, 'DELETE', `/v1/scores/${randomUUID()}`, { auth: w.root })).status, 404);
    t.equal((await call(w.server, 'DELETE', '/v1/scores/nope', { auth: w.root })).status, 400);
    t.equal((await list('')).body.pagination.total, 5);
  });
});
