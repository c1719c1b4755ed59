/** src/store/walGuard.ts against the file system: the WAL watermark, written when the WAL changed and not again when it did not. */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { checkWal, recordWatermark } from '../../src/store/walGuard.js';

t.test('an unchanged WAL is not recorded again; a changed one is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tracelake-wal-guard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'tracelake.duckdb');
  const mark = `${db}.wal-watermark`;
  writeFileSync(`${db}.wal`, Buffer.alloc(100, 1));

  const first = recordWatermark(db);
  t.equal(readFileSync(mark, 'utf8'), first, 'the record is what was written');
  t.match(JSON.parse(first), { size: 100, headBytes: 100 });

  // Removed behind its back: the record is not written again while the WAL stays as it was.
  rmSync(mark);
  t.equal(recordWatermark(db, first), first);
  t.notOk(existsSync(mark), 'the same state is not written twice');
  t.equal(recordWatermark(db), first, 'without a previous record it is written');
  t.ok(existsSync(mark));

  appendFileSync(`${db}.wal`, Buffer.alloc(50, 2));
  const grown = recordWatermark(db, first);
  t.not(grown, first);
  t.match(JSON.parse(readFileSync(mark, 'utf8')), { size: 150 }, 'a grown WAL is recorded');

  // And the guard still reads what was recorded: the WAL cut below it is damage.
  writeFileSync(`${db}.wal`, Buffer.alloc(120, 1));
  t.match(checkWal(dir, db), { foundBytes: 120, expectedBytes: 150 });
});
