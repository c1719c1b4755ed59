/** The DuckDB of compaction and of the compute workers' segment writes (spans/fileEngine.ts). */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { FileEngine } from '../../../src/store/spans/fileEngine.js';
import { tempDir } from '../../helpers/server.js';

t.test('an engine says what it holds in memory, by tag, and keeps no copy of the files it read', async (t) => {
  const dir = tempDir();
  const engine = await FileEngine.open(dir, '256MiB');
  t.teardown(() => {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'rows.parquet');
  await engine.run(
    `COPY (SELECT range AS id, md5(range::VARCHAR) AS text FROM range(500000)) TO '${file}' (FORMAT parquet)`,
  );
  // Read twice: a cache would keep the file's bytes after the first read for the second.
  for (let i = 0; i < 2; i++)
    t.equal(Number(await engine.value(`SELECT count(DISTINCT text) FROM '${file}'`)), 500_000);
  await engine.run('CREATE TABLE held AS SELECT range AS id FROM range(1000000)');
  const memory = await engine.memory();
  t.ok(
    (memory.in_memory_table ?? 0) + (memory.base_table ?? 0) >= 1_000_000 * 8,
    `a table of a million BIGINT held: ${JSON.stringify(memory)}`,
  );
  t.equal(memory.external_file_cache, undefined, 'no copy of the file read');
  t.ok(
    Object.keys(memory).every((tag) => /^[a-z_]+$/.test(tag)),
    'tags in lowercase',
  );
});
