import t from 'tap';
import { chooseRuns, type RunRef } from '../../../src/core/evals/baseline.js';

const run = (id: string, createdMs: number, status: RunRef['status'] = 'succeeded'): RunRef => ({
  id,
  createdMs,
  status,
});
const ids = (c: ReturnType<typeof chooseRuns>) => [c.baseline?.id ?? null, c.candidate?.id ?? null, c.pinned];

// r1 < r2 < r3 (failed) < r4 < r5 (running); r4b ties r4 in time (the id breaks it).
const RUNS = [
  run('r4', 400),
  run('r1', 100),
  run('r5', 500, 'running'),
  run('r2', 200),
  run('r3', 300, 'failed'),
  run('r4b', 400),
];

t.test('unpinned: the latest succeeded run against the one before it', async (t) => {
  t.same(ids(chooseRuns(RUNS, null, null)), ['r4', 'r4b', false], 'a tie in time is broken by id');
  t.same(ids(chooseRuns([run('b', 1), run('a', 1)], null, null)), ['a', 'b', false]);
  t.same(
    ids(chooseRuns([run('only', 1), run('x', 2, 'failed')], null, null)),
    ['only', null, false],
    'a lone succeeded run is the baseline',
  );
  t.same(ids(chooseRuns([run('x', 2, 'queued')], null, null)), [null, null, false], 'nothing succeeded yet');
  t.same(ids(chooseRuns([], null, null)), [null, null, false]);
});

t.test('a run asked for is compared with the latest succeeded run before it, whatever its own status', async (t) => {
  t.same(ids(chooseRuns(RUNS, null, 'r5')), ['r4b', 'r5', false]);
  t.same(ids(chooseRuns(RUNS, null, 'r3')), ['r2', 'r3', false], 'a failed run can be looked at');
  t.same(ids(chooseRuns(RUNS, null, 'r1')), [null, 'r1', false], 'the first run has no baseline');
  t.throws(() => chooseRuns(RUNS, null, 'nope'), {
    code: 'not_found',
    message: /nope is not a run of this experiment/,
  });
});

t.test('a pin is the baseline', async (t) => {
  t.same(ids(chooseRuns(RUNS, 'r1', null)), ['r1', 'r4b', true], 'against the latest succeeded run');
  t.same(ids(chooseRuns(RUNS, 'r4b', null)), ['r4b', 'r4', true], 'the latest one that is not the pin');
  t.same(ids(chooseRuns(RUNS, 'r2', 'r1')), ['r2', 'r1', true], 'even when newer than the run asked for');
  t.same(ids(chooseRuns(RUNS, 'r2', 'r2')), ['r2', null, true], 'the pin asked for: nothing to compare');
  t.same(ids(chooseRuns([run('p', 1)], 'p', null)), ['p', null, true]);
  t.same(ids(chooseRuns(RUNS, 'elsewhere', null)), ['r4', 'r4b', false], 'a pin the reader cannot see is no pin');
});
