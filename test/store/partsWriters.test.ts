/**
 * The store thread runs its summary merge only after parts were committed (store/storeThread.ts,
 * `partsWaiting`): at the start, then after each `commitGenerations` task, which it takes for the
 * one writer of `trace_parts` after the start. This holds that: the modules whose SQL writes the
 * table are the ones known, and `commitGenerations` is called from the store thread's handler
 * alone. A new writer must set `partsWaiting` too, or its parts wait for the next commit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// The compiled test runs from dist/test/store: the repository is three levels up.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({
    path: relative(ROOT, join(ROOT, 'src', f)).replace(/\\/g, '/'),
    text: readFileSync(join(ROOT, 'src', f), 'utf8'),
  }));

/** SQL that adds rows to `trace_parts`, or an appender to it. */
const WRITES_PARTS = /INSERT\s+INTO\s+trace_parts\b|COPY\s+trace_parts\b|append\(\s*'trace_parts'/i;

const KNOWN: Record<string, string> = {
  'src/store/spans/manifest.ts': 'commitGenerations, run by the store thread, which then sets partsWaiting',
  'src/store/spans/migrations.ts': 'at the start, before the first merge (partsWaiting starts set)',
  'src/store/spans/traceParts.ts':
    "insertPartsSql, the SQL of the benchmarks' synthetic stores (native-bench), not called in src",
};

t.test('the writers of trace_parts are the ones the merge knows', async (t) => {
  t.ok(SOURCES.length > 100, `${SOURCES.length} modules read`);
  const writers = SOURCES.filter((s) => WRITES_PARTS.test(s.text))
    .map((s) => s.path)
    .sort();
  t.same(
    writers,
    Object.keys(KNOWN).sort(),
    'a new writer of trace_parts must set partsWaiting in store/storeThread.ts (see this file)',
  );
  t.same(
    SOURCES.filter((s) => /\binsertPartsSql\(/.test(s.text) && s.path !== 'src/store/spans/traceParts.ts').map(
      (s) => s.path,
    ),
    [],
    "insertPartsSql is the benchmarks' alone",
  );
  const callers = SOURCES.filter((s) => /\bcommitGenerations\(/.test(s.text))
    .map((s) => s.path)
    .sort();
  t.same(
    callers,
    ['src/store/spans/manifest.ts', 'src/store/storeThread.ts'],
    "commitGenerations is run by the store thread's handler alone",
  );
  t.match(
    SOURCES.find((s) => s.path === 'src/store/storeThread.ts')?.text,
    /commitGenerations\(.*\);\s*background\.partsWaiting = true;/,
    'which sets partsWaiting after it',
  );
});
