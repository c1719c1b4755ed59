import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import { checkContent, commentTarget, MAX_COMMENT } from '../../../src/core/scores/comment.js';

function refusal(fn: () => unknown): { code: string; details: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, details: e.fields.details };
    throw e;
  }
  throw new Error('expected a refusal');
}

t.test('what a comment names', async (t) => {
  t.same(commentTarget('trace', 'AB'.repeat(16), 'body'), {
    resourceId: 'ab'.repeat(16),
    resourceKind: 'trace',
    sessionId: null,
  });
  t.same(commentTarget('span', 'Ab'.repeat(8), 'query'), {
    resourceId: 'ab'.repeat(8),
    resourceKind: 'span',
    sessionId: null,
  });
  t.same(commentTarget('session', 'My Session', 'body'), {
    resourceId: null,
    resourceKind: null,
    sessionId: 'My Session',
  });
  t.same(
    refusal(() => commentTarget('trace', 'ab'.repeat(8), 'body')),
    { code: 'invalid_request_body', details: { resource_id: 'a trace id is 32 hex characters' } },
  );
  t.same(
    refusal(() => commentTarget('span', 'zz', 'query')),
    { code: 'invalid_query_parameters', details: { resource_id: 'a span id is 16 hex characters' } },
  );
});

t.test('content must say something', async (t) => {
  t.equal(checkContent('  looks wrong  '), '  looks wrong  ', 'kept as written');
  t.same(
    refusal(() => checkContent(' \n\t')),
    { code: 'invalid_request_body', details: { content: 'must not be blank' } },
  );
  t.equal(MAX_COMMENT, 5000);
});
