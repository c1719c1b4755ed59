/**
 * Strict parsing (issue 10, defect 11; issue 11, item 9): numbers in query strings are decimal
 * digits, a parameter is given once, unknown parameters are refused by name, failures are said in
 * words; JSON bodies are UTF-8 and well-formed Unicode; a bad percent-encoding in a path is a 400.
 * Nothing refused is stored.
 */
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('query strings', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  for (const [query, field, words] of [
    ['limit=0x10', 'limit', /must be an integer from 1 to 1000/],
    ['limit=1e3', 'limit', /must be an integer from 1 to 1000/],
    ['limit=', 'limit', /is empty/],
    ['limit=5&limit=6', 'limit', /given more than once/],
    ['limit=%2010', 'limit', /must be an integer/],
    ['limit=0', 'limit', /must be an integer from 1 to 1000/],
    ['limt=5', 'limt', /unknown parameter.*limit/],
    ['offset=-1', 'offset', /must be an integer from 0 to 4294967295/],
  ] as const) {
    const r = await call(server, 'GET', `/v1/traces?${query}`, { auth: root });
    t.equal(r.status, 400, query);
    t.equal(r.body.error.code, 'invalid_query_parameters', query);
    t.match(r.body.error.details[field], words, `${query}: ${r.body.error.details[field]}`);
    t.notMatch(JSON.stringify(r.body), /Type<|uint32|&/, 'no type expressions leak');
  }
  t.equal(
    (await call(server, 'GET', '/v1/traces?limit=10&offset=0', { auth: root })).status,
    200,
    'plain numbers pass',
  );

  const none = await call(server, 'GET', '/v1/api-keys?verbose=1', { auth: root });
  t.equal(none.status, 400, 'an endpoint without parameters refuses any');
  t.match(none.body.error.details.verbose, /unknown parameter/);
});

t.test('JSON bodies must be UTF-8 text; refused ones store nothing', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const traceId = hex(16);
  const sent = await exportSpans(server, root, [{ traceId }]);
  t.equal(sent.status, 200);
  const score = (name: string) => `{"name":"${name}","score":1,"resource_id":"${traceId}"}`;

  const invalid = Buffer.concat([
    Buffer.from(score('q').slice(0, 9)),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(score('q').slice(10)),
  ]);
  const bad = await call(server, 'POST', '/v1/scores', {
    auth: root,
    rawBody: invalid,
    headers: { 'content-type': 'application/json' },
  });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'invalid_request_body');
  t.match(bad.body.error.details.body, /not valid UTF-8/);

  const surrogate = await call(server, 'POST', '/v1/scores', {
    auth: root,
    rawBody: score('lone \\ud800 half'),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(surrogate.status, 400);
  t.match(surrogate.body.error.details.name, /lone surrogate/, 'the field is named');

  const pair = await call(server, 'POST', '/v1/scores', {
    auth: root,
    rawBody: score('emoji \\ud83d\\ude00'),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(pair.status, 201, `a whole surrogate pair is text: ${pair.text}`);
  const listed = await call(server, 'GET', '/v1/scores', { auth: root });
  t.same(
    listed.body.data.map((s: { name: string }) => s.name),
    ['emoji 😀'],
    'only the accepted score is stored',
  );
});

t.test('a bad percent-encoding in a path parameter is a 400 naming it', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const r = await call(server, 'GET', '/v1/traces/%E0%A4%A', { auth: root });
  t.equal(r.status, 400);
  t.equal(r.body.error.code, 'invalid_path_parameters');
  t.match(r.body.error.details.traceId, /percent-encoding/);
  t.equal(
    (await call(server, 'GET', '/v1/nothing/%E0%A4%A', { auth: root })).status,
    404,
    'no route of that shape: still a 404',
  );
});
