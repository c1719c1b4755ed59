import t from 'tap';
import { validateScoreBody } from '../../../src/contract/scores.js';
import { clientIdOf, firstIssue, prepareChecked, prepareItem, type Prepared } from '../../../src/core/scores/item.js';

const TRACE = 'ABCDEF0123456789abcdef0123456789';
const SPAN = '0123456789abcdef';

function error(p: Prepared) {
  if (p.ok) throw new Error('expected a failure');
  return p.error;
}

t.test('a full item is prepared with its spellings canonicalised', async (t) => {
  const p = prepareItem(
    {
      name: 'q',
      resource_id: TRACE,
      session_id: 's1',
      score: 0.5,
      data_type: 'numeric',
      label: 'ok',
      reason: 'why',
      source: 'EVAL',
      user_id: 'u1',
      client_id: 'c1',
    },
    7,
    validateScoreBody,
  );
  t.same(p, {
    ok: true,
    item: {
      index: 7,
      name: 'q',
      score: 0.5,
      dataType: 'NUMERIC',
      label: 'ok',
      reason: 'why',
      source: 'eval',
      userId: 'u1',
      resourceId: TRACE.toLowerCase(),
      resourceKind: 'trace',
      sessionId: 's1',
    },
  });
});

t.test('defaults: source api, no data type, nulls', async (t) => {
  t.same(prepareItem({ name: 'q', resource_id: SPAN, score: 1 }, 0, validateScoreBody), {
    ok: true,
    item: {
      index: 0,
      name: 'q',
      score: 1,
      dataType: null,
      label: null,
      reason: null,
      source: 'api',
      userId: null,
      resourceId: SPAN,
      resourceKind: 'span',
      sessionId: null,
    },
  });
  const noScore = prepareItem(
    { name: 'q', resource_id: SPAN, data_type: 'CATEGORICAL', label: 'good' },
    0,
    validateScoreBody,
  );
  t.ok(noScore.ok && noScore.item.score === null, 'a score may be left to the config');
  const session = prepareItem({ name: 'q', resource_id: 's', session_id: 's', score: 1 }, 0, validateScoreBody);
  t.ok(session.ok, 'a session score names the session as its resource');
  if (session.ok)
    t.same([session.item.resourceId, session.item.resourceKind, session.item.sessionId], [null, null, 's']);
  const hexSession = prepareItem(
    { name: 'q', resource_id: 'A'.repeat(32), session_id: 'A'.repeat(32), score: 1 },
    0,
    validateScoreBody,
  );
  t.ok(
    hexSession.ok && hexSession.item.resourceKind === null && hexSession.item.sessionId === 'A'.repeat(32),
    'even one shaped like a trace id: the pair says which',
  );
  t.match(
    error(prepareItem({ name: 'q', session_id: 's', score: 1 }, 0, validateScoreBody)),
    { field: 'resource_id', message: /is required/ },
    'a session alone is not enough',
  );
  t.match(error(prepareItem({ name: 'q', resource_id: 's', session_id: 't', score: 1 }, 0, validateScoreBody)), {
    field: 'resource_id',
    message: /or the session id given in session_id/,
  });
});

t.test('dataType is an alias of data_type', async (t) => {
  const alias = prepareItem({ name: 'q', resource_id: SPAN, score: 1, dataType: 'boolean' }, 0, validateScoreBody);
  t.ok(alias.ok && alias.item.dataType === 'BOOLEAN');
  const both = prepareItem(
    { name: 'q', resource_id: SPAN, score: 1, dataType: 'BOOLEAN', data_type: 'Boolean' },
    0,
    validateScoreBody,
  );
  t.ok(both.ok && both.item.dataType === 'BOOLEAN', 'both, agreeing');
  t.same(
    error(
      prepareItem({ name: 'q', resource_id: SPAN, data_type: 'NUMERIC', dataType: 'BOOLEAN' }, 0, validateScoreBody),
    ),
    {
      code: 'invalid_request_body',
      message: 'dataType: disagrees with data_type (NUMERIC)',
      field: 'dataType',
    },
  );
  t.same(error(prepareItem({ name: 'q', resource_id: SPAN, dataType: 'TEXT' }, 0, validateScoreBody)), {
    code: 'invalid_request_body',
    message: 'dataType: must be one of NUMERIC, BOOLEAN, CATEGORICAL, got "TEXT"',
    field: 'dataType',
  });
  t.equal(
    error(prepareItem({ name: 'q', resource_id: SPAN, data_type: 'x' }, 0, validateScoreBody)).field,
    'data_type',
  );
});

t.test('source, resource and session rules', async (t) => {
  t.same(error(prepareItem({ name: 'q', resource_id: SPAN, source: 'human' }, 0, validateScoreBody)), {
    code: 'invalid_request_body',
    message: 'source: must be one of api, annotation, eval, sdk, got "human"',
    field: 'source',
  });
  t.match(error(prepareItem({ name: 'q', resource_id: 'xyz', score: 1 }, 0, validateScoreBody)), {
    field: 'resource_id',
    message: /trace id \(32 hex/,
  });
  t.match(error(prepareItem({ name: 'q', score: 1 }, 0, validateScoreBody)), {
    code: 'invalid_request_body',
    field: 'resource_id',
    message: /resource_id: is required/,
  });
});

t.test('shape errors come from the contract validator', async (t) => {
  t.same(error(prepareItem('nope', 0, validateScoreBody)), {
    code: 'invalid_request_body',
    message: 'a score is a JSON object',
  });
  t.same(error(prepareItem(null, 0, validateScoreBody)), {
    code: 'invalid_request_body',
    message: 'a score is a JSON object',
  });
  t.same(error(prepareItem({ name: 'q', resource_id: SPAN, score: 1, colour: 'red' }, 0, validateScoreBody)), {
    code: 'invalid_request_body',
    message: 'colour: unknown property',
    field: 'colour',
  });
  t.match(error(prepareItem({ resource_id: SPAN, score: 1 }, 0, validateScoreBody)), {
    field: 'name',
    message: /^name: expected \(string & MinLength<1>/,
  });
  t.match(error(prepareItem({ name: 'q', resource_id: SPAN, score: '1' }, 0, validateScoreBody)), {
    field: 'score',
    message: /^score: expected \(+number/,
  });
  t.match(error(prepareItem({ name: 'q', resource_id: SPAN, client_id: 'x'.repeat(129) }, 0, validateScoreBody)), {
    field: 'client_id',
  });
});

t.test('an item the contract has checked already skips the shape check', async (t) => {
  t.same(
    prepareChecked({ name: 'q', resource_id: SPAN, score: 2 }, 3),
    prepareItem({ name: 'q', resource_id: SPAN, score: 2 }, 3, validateScoreBody),
  );
  t.equal(error(prepareChecked({ name: 'q', score: 2 }, 0)).field, 'resource_id');
});

t.test('firstIssue without issues names the whole item', async (t) => {
  t.same(firstIssue([]), { code: 'invalid_request_body', message: 'a score is a JSON object' });
});

t.test('client_id is echoed from any object item, when it is a short string', async (t) => {
  t.equal(clientIdOf({ client_id: 'abc', name: 42 }), 'abc', 'even from an item that fails its checks');
  t.equal(clientIdOf({ client_id: 'x'.repeat(128) }), 'x'.repeat(128));
  t.equal(clientIdOf({ client_id: 'x'.repeat(129) }), undefined);
  t.equal(clientIdOf({ client_id: 5 }), undefined);
  t.equal(clientIdOf({}), undefined);
  t.equal(clientIdOf(null), undefined);
  t.equal(clientIdOf('abc'), undefined);
});
