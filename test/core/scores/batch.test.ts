import t from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import { assertBatchSize, batchAnswer, INSERT_FAILED, type ItemOutcome } from '../../../src/core/scores/batch.js';

const bad = { code: 'invalid_request_body' as const, message: 'score: is required', field: 'score' };

t.test('413 over 1000 items, before anything else; none is a malformed envelope', async (t) => {
  t.doesNotThrow(() => assertBatchSize(1000));
  t.doesNotThrow(() => assertBatchSize(1));
  try {
    assertBatchSize(0);
    t.fail('expected a refusal');
  } catch (e) {
    t.match(e, {
      status: 400,
      code: 'invalid_request_body',
      fields: { details: { scores: 'a batch holds 1 to 1000 scores' } },
    });
  }
  try {
    assertBatchSize(1001);
    t.fail('expected a refusal');
  } catch (e) {
    t.ok(e instanceof ApiError);
    t.match(e, { status: 413, code: 'payload_too_large', fields: { limit: 1000, count: 1001 } });
  }
});

t.test('the status table', async (t) => {
  const ok: ItemOutcome[] = [
    { index: 1, id: 'b' },
    { index: 0, id: 'a' },
  ];
  const all = batchAnswer(ok, ['x', undefined], false);
  t.equal(all.status, 201, 'every item stored');
  t.same(
    all.results,
    [
      { index: 0, id: 'a', status: 'success', client_id: 'x' },
      { index: 1, id: 'b', status: 'success' },
    ],
    'in item order, client_id echoed when given',
  );
  t.same(all.summary, { total: 2, succeeded: 2, failed: 0 });

  const some = batchAnswer(
    [
      { index: 0, id: 'a' },
      { index: 1, error: bad },
    ],
    [undefined, 'y'],
    false,
  );
  t.equal(some.status, 207, 'some failed');
  t.same(some.results[1], { index: 1, id: null, status: 'error', client_id: 'y', error: bad });
  t.same(some.summary, { total: 2, succeeded: 1, failed: 1 });

  const none = batchAnswer([{ index: 0, error: bad }], [], false);
  t.equal(none.status, 400, 'every item failed');
  t.same(none.summary, { total: 1, succeeded: 0, failed: 1 });

  const failed = batchAnswer(
    [
      { index: 0, id: 'a' },
      { index: 1, error: bad },
    ],
    ['p', 'q'],
    true,
  );
  t.equal(failed.status, 500, 'the insert failed');
  t.same(
    failed.results,
    [
      { index: 0, id: null, status: 'error', client_id: 'p', error: INSERT_FAILED },
      { index: 1, id: null, status: 'error', client_id: 'q', error: bad },
    ],
    'nothing stored: every item is an error, with its own reason when it had one',
  );
  t.same(failed.summary, { total: 2, succeeded: 0, failed: 2 });
});
