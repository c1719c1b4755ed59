/** src/ingest/platformThreads.ts: which of the process's first threads are Node's platform's. */
import t from 'tap';
import { platformThreads } from '../../../src/ingest/platformThreads.js';

t.test("the platform's threads are the first created after the main thread", async (t) => {
  // Main thread 100; the platform's six (101–106); libuv's pool, started as modules load (107–110).
  const tids = [110, 100, 103, 101, 107, 102, 104, 105, 106, 108, 109];
  t.same(platformThreads(tids, 100, [], '', 2), [101, 102, 103, 104, 105, 106], 'V8 pool of 4 + 2 by default');
  t.same(platformThreads(tids, 100, ['--v8-pool-size=2'], '', 2), [101, 102, 103, 104], 'the pool as node was told');
  t.same(
    platformThreads(tids, 100, [], '--max-old-space-size=512 --v8-pool-size=1', 2),
    [101, 102, 103],
    'also through NODE_OPTIONS',
  );
  t.same(
    platformThreads(tids, 100, ['--v8-pool-size=3'], '--v8-pool-size=1', 2),
    [101, 102, 103, 104, 105],
    'the command line overrides NODE_OPTIONS, as in node',
  );
  t.same(platformThreads(tids, 100, ['--v8-pool-size=0'], '', 1), [101, 102, 103], 'with 0, one a core');
  t.same(platformThreads([], 100, [], '', 2), [], 'not Linux: none');
});
