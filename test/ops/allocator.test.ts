/**
 * The server tells DuckDB's allocator (the jemalloc inside DuckDB's library, configured by
 * `DUCKDB_JE_MALLOC_CONF`) to keep unused pages 10 s rather than its own 1 s
 * (src/store/duckdbAllocator.ts, called by src/serve.ts), and what the operator puts in that
 * variable still wins. jemalloc's `stats_print` option, given through the same variable, prints at
 * the process's exit the options it ran with: that is what the test reads, from the real server's
 * stderr.
 */
import t from 'tap';
import { runToExit, tempDir } from '../helpers/server.js';

/** The `opt.<name>` values a jemalloc stats report printed. */
function allocatorOptions(stderr: string): Record<string, string> {
  return Object.fromEntries([...stderr.matchAll(/^\s*opt\.(\w+): (\S+)/gm)].map((m) => [m[1]!, m[2]!]));
}

async function optionsWith(conf: string): Promise<Record<string, string>> {
  const run = await runToExit({
    dataDir: tempDir(),
    env: { DUCKDB_JE_MALLOC_CONF: conf },
    signalAt: { msg: 'listening', signal: 'SIGTERM' },
  });
  if (run.code !== 0) throw new Error(`the server exited ${run.code}: ${run.stderr.slice(-500)}`);
  return allocatorOptions(run.stderr);
}

t.test("DuckDB keeps unused pages 10 s, and the operator's settings come after the server's", async (t) => {
  const [ours, theirs] = await Promise.all([
    optionsWith('stats_print:true'),
    optionsWith('dirty_decay_ms:2500,stats_print:true'),
  ]);
  t.same(
    {
      ours: [ours['dirty_decay_ms'], ours['muzzy_decay_ms']],
      theirs: [theirs['dirty_decay_ms'], theirs['muzzy_decay_ms']],
    },
    { ours: ['10000', '10000'], theirs: ['2500', '10000'] },
    "decays in ms (dirty, muzzy): the server's defaults, then the operator's dirty decay over them",
  );
});
