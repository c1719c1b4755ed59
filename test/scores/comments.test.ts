/**
 * Integration: comments on traces, spans and sessions — create (score.write), list by resource and
 * read (score.read), delete (score.write); the commented resource must exist in the caller's app.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { call } from '../helpers/server.js';
import { keyWith, world } from './setup.js';

t.test('comments', async (t) => {
  const w = await world(t);
  const comment = (body: unknown, auth = w.root) => call(w.server, 'POST', '/v1/comments', { auth, body });
  const listed = (type: string, id: string, auth = w.root, extra = '') =>
    call(w.server, 'GET', `/v1/comments?resource_type=${type}&resource_id=${encodeURIComponent(id)}${extra}`, { auth });
  const ids: string[] = [];

  t.test('create on a trace, a span and a session', async (t) => {
    const onTrace = await comment({
      resource_type: 'trace',
      resource_id: w.traceId.toUpperCase(),
      content: 'The answer cites the wrong year.',
      author_user_id: 'ana',
    });
    t.equal(onTrace.status, 201);
    t.match(onTrace.body.data, {
      id: /^[0-9a-f-]{36}$/,
      resource_type: 'trace',
      resource_id: w.traceId,
      content: 'The answer cites the wrong year.',
      author_user_id: 'ana',
      environment_id: w.server.bootstrap!.environment_id,
    });
    ids.push(onTrace.body.data.id);
    const second = await comment({
      resource_type: 'trace',
      resource_id: w.traceId,
      content: 'Fixed in the next prompt version.',
    });
    t.equal(second.status, 201);
    t.equal(second.body.data.author_user_id, null);
    ids.push(second.body.data.id);
    const onSpan = await comment({ resource_type: 'span', resource_id: w.childSpanId, content: 'tool call timed out' });
    t.equal(onSpan.status, 201);
    t.equal(onSpan.body.data.resource_id, w.childSpanId);
    const onSession = await comment({
      resource_type: 'session',
      resource_id: w.sessionId,
      content: 'user gave up here',
    });
    t.equal(onSession.status, 201);
    t.equal(onSession.body.data.resource_id, w.sessionId);
  });

  t.test('refusals', async (t) => {
    const unknown = await comment({ resource_type: 'trace', resource_id: 'a'.repeat(32), content: 'x' });
    const theirs = await comment({ resource_type: 'trace', resource_id: w.other.traceId, content: 'x' });
    t.equal(unknown.status, 404);
    t.equal(theirs.status, 404, "another app's trace");
    t.equal(theirs.body.error.code, unknown.body.error.code);
    t.equal((await comment({ resource_type: 'span', resource_id: w.other.spanId, content: 'x' })).status, 404);
    t.equal((await comment({ resource_type: 'session', resource_id: w.other.sessionId, content: 'x' })).status, 404);
    t.equal(
      (await comment({ resource_type: 'span', resource_id: w.traceId, content: 'x' })).body.error.details.resource_id,
      'a span id is 16 hex characters',
    );
    t.equal(
      (await comment({ resource_type: 'trace', resource_id: w.traceId, content: '   ' })).body.error.details.content,
      'must not be blank',
    );
    t.equal((await comment({ resource_type: 'trace', resource_id: w.traceId, content: '' })).status, 400);
    t.equal((await comment({ resource_type: 'trace', resource_id: w.traceId, content: 'x'.repeat(5001) })).status, 400);
    t.equal((await comment({ resource_type: 'score', resource_id: w.traceId, content: 'x' })).status, 400);
  });

  t.test('list by resource, oldest first, paged', async (t) => {
    const onTrace = await listed('trace', w.traceId);
    t.equal(onTrace.status, 200);
    t.same(
      onTrace.body.data.map((c: { id: string }) => c.id),
      ids,
    );
    t.same(onTrace.body.pagination, { total: 2, limit: 50, offset: 0 });
    t.same(
      (await listed('trace', w.traceId, w.root, '&limit=1&offset=1')).body.data.map((c: { id: string }) => c.id),
      [ids[1]],
    );
    t.equal((await listed('span', w.childSpanId)).body.pagination.total, 1);
    t.equal((await listed('session', w.sessionId)).body.pagination.total, 1);
    t.equal((await listed('span', w.rootSpanId)).body.pagination.total, 0);
    t.same((await listed('trace', w.traceId, w.other.auth)).body.data, [], 'another app sees none');
    t.equal((await call(w.server, 'GET', '/v1/comments', { auth: w.root })).status, 400, 'a resource is required');
    t.equal((await listed('span', 'xyz')).body.error.code, 'invalid_query_parameters');
  });

  t.test('read and delete one', async (t) => {
    const [first] = ids as [string];
    t.equal(
      (await call(w.server, 'GET', `/v1/comments/${first}`, { auth: w.root })).body.data.content,
      'The answer cites the wrong year.',
    );
    t.equal((await call(w.server, 'GET', `/v1/comments/${first}`, { auth: w.other.auth })).status, 404);
    t.equal(
      (await call(w.server, 'DELETE', `/v1/comments/${first}`, { auth: w.other.auth })).status,
      404,
      'another app cannot delete it',
    );
    const deleted = await call(w.server, 'DELETE', `/v1/comments/${first}`, { auth: w.root });
    t.equal(deleted.status, 200);
    t.equal(deleted.body.data.id, first);
    t.equal((await call(w.server, 'GET', `/v1/comments/${first}`, { auth: w.root })).status, 404);
    t.equal((await call(w.server, 'DELETE', `/v1/comments/${first}`, { auth: w.root })).status, 404);
    t.equal((await call(w.server, 'DELETE', `/v1/comments/${randomUUID()}`, { auth: w.root })).status, 404);
    t.equal((await listed('trace', w.traceId)).body.pagination.total, 1);
  });

  t.test('permissions: score.write writes, score.read reads', async (t) => {
    const writer = await keyWith(w, 'score.write');
    const reader = await keyWith(w, 'score.read');
    const made = await comment({ resource_type: 'trace', resource_id: w.traceId, content: 'by a writer' }, writer);
    t.equal(made.status, 201);
    const denied = await comment({ resource_type: 'trace', resource_id: w.traceId, content: 'by a reader' }, reader);
    t.equal(denied.status, 403);
    t.equal(denied.body.error.required_permission, 'score.write');
    t.equal((await listed('trace', w.traceId, reader)).status, 200);
    t.equal((await listed('trace', w.traceId, writer)).body.error.required_permission, 'score.read');
    t.equal((await call(w.server, 'GET', `/v1/comments/${made.body.data.id}`, { auth: writer })).status, 403);
    t.equal((await call(w.server, 'DELETE', `/v1/comments/${made.body.data.id}`, { auth: reader })).status, 403);
    t.equal((await call(w.server, 'DELETE', `/v1/comments/${made.body.data.id}`, { auth: writer })).status, 200);
  });
});
