/** src/openapi/note.ts: the typed helpers of the operation notes. */
import t from 'tap';
import { answer, payload } from '../../../src/openapi/note.js';

t.test('a JSON body names its catalog type, with examples only when given', async (t) => {
  t.same(payload('PageQuery'), { type: 'PageQuery' });
  t.same(payload('OperatorSetPlanBody', { team: { plan: 'team' } }), {
    type: 'OperatorSetPlanBody',
    examples: { team: { plan: 'team' } },
  });
});

t.test('an answer is a status, a description and a JSON body', async (t) => {
  t.same(answer(200, 'ScoreNamesAnswer', 'The names.'), {
    status: 200,
    description: 'The names.',
    type: 'ScoreNamesAnswer',
  });
  t.same(answer(201, 'ScoreNamesAnswer', 'Made.', { two: { data: ['a', 'b'] } }), {
    status: 201,
    description: 'Made.',
    type: 'ScoreNamesAnswer',
    examples: { two: { data: ['a', 'b'] } },
  });
});
