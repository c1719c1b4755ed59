/**
 * native-bench/traceColumns: where a trace's spans read spends its time in DuckDB's Parquet reader,
 * by columns read and by row group size. One synthetic day (172,800 spans, traces of 8) is written
 * again with row groups of 2,048 to 16,384 rows (the shipped size, `ROW_GROUP_ROWS`, is the
 * reference; the shipped COPY options otherwise), with and without dictionaries; then `--reads`
 * traces are read from each, by the trace's id and range as `spansStartingIn`
 * (src/store/spans/reads.ts) reads them: nothing but a count, one column, and the 30 columns the
 * trace view reads. Medians; the files take turns.
 *
 *   npm run build && node dist/native-bench/traceColumns.js [--reads 300]
 */
import { statSync } from 'node:fs';
import { Database } from '../src/store/db.js';
import { storeDirs } from '../src/store/layout.js';
import { migrate } from '../src/store/migrate.js';
import { ROW_GROUP_ROWS, SEGMENT_COPY_OPTIONS } from '../src/store/spans/segmentFormat.js';
import { tempDir } from '../test/helpers/server.js';
import { arg } from './args.js';
import { loadSynthetic, spreadTrace, syntheticTraceId } from './synthetic.js';

const READS = arg('reads', 300);
const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const DAY = 172_800;
/** The columns `spansStartingIn` reads (its view's fields, the graph, the scope and placement columns). */
const VIEW =
  'span_id, trace_id, parent_id, name, type, span_kind, status, status_message, start_ns, end_ns, model, prompt_name, service_name, input_tokens, output_tokens, cached_input_tokens, tokens, cost, session_id, user_id, tags, input_preview, output_preview, input, output, metadata, graph, environment_id, tenant_id, app_id';
const READ_KINDS = { count: 'count(*)', 'one column': 'span_id', 'the view (30 columns)': VIEW };

const dataDir = tempDir('tracelake-trace-columns-');
const db = await Database.open({ dataDir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
await migrate(db);
await loadSynthetic(db, dataDir, SCOPE, DAY, Date.now());
const [day] = await db.query<{ path: string }>('SELECT path FROM segments');
const dir = storeDirs(dataDir).segments;
const files: Record<string, string> = {};
for (const rows of [2_048, 4_096, 8_192, 16_384]) {
  for (const dictionaries of [true, false]) {
    const name = `${rows.toLocaleString('en-US')} rows${dictionaries ? '' : ', no dictionaries'}`;
    const path = `${dir}/rows-${rows}-${dictionaries}.parquet`;
    await db.exec(
      `COPY (SELECT * FROM read_parquet('${dir}/${day!.path}') ORDER BY start_ns, trace_id, span_id)
         TO '${path}' (${SEGMENT_COPY_OPTIONS.replace(`ROW_GROUP_SIZE ${ROW_GROUP_ROWS}`, `ROW_GROUP_SIZE ${rows}`)}${dictionaries ? '' : ', DICTIONARY_SIZE_LIMIT 1'})`,
    );
    files[name] = path;
  }
}

const times = new Map<string, number[]>();
const names = Object.keys(files);
for (let pass = 0; pass < 2; pass++) {
  for (let i = 0; i < READS; i++) {
    const id = syntheticTraceId(spreadTrace(i, DAY / 8));
    const [range] = await db.query<{ from: string; to: string }>(
      `SELECT min(start_ns)::VARCHAR AS "from", max(start_ns)::VARCHAR AS "to" FROM read_parquet('${files[names[0]!]}') WHERE trace_id = $1`,
      [id],
    );
    for (const name of i % 2 ? [...names].reverse() : names) {
      for (const [kind, select] of Object.entries(READ_KINDS)) {
        const started = performance.now();
        const rows = await db.query(
          `SELECT ${select} FROM read_parquet('${files[name]}') WHERE tenant_id = $1 AND app_id = $2 AND trace_id = $3 AND start_ns BETWEEN $4 AND $5`,
          [SCOPE.tenantId, SCOPE.appId, id, BigInt(range!.from), BigInt(range!.to)],
        );
        if (kind !== 'count' && rows.length !== 8) throw new Error(`${name}: ${rows.length} spans for trace ${id}`);
        if (pass === 1)
          times.set(`${name}|${kind}`, [...(times.get(`${name}|${kind}`) ?? []), performance.now() - started]);
      }
    }
  }
}
db.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const reference = `${ROW_GROUP_ROWS.toLocaleString('en-US')} rows`;
console.log(
  `a trace's spans from one file of ${DAY.toLocaleString('en-US')} synthetic spans, ${READS} traces (median ms; ratio to ${reference}, as shipped)`,
);
console.log(
  `  ${'file'.padEnd(30)} ${Object.keys(READ_KINDS)
    .map((k) => k.padStart(24))
    .join('')}  bytes`,
);
for (const name of names) {
  const cells = Object.keys(READ_KINDS).map((kind) => {
    const ms = median(times.get(`${name}|${kind}`)!);
    return `${ms.toFixed(2)} (${(ms / median(times.get(`${reference}|${kind}`)!)).toFixed(2)}×)`.padStart(24);
  });
  console.log(`  ${name.padEnd(30)} ${cells.join('')}  ${statSync(files[name]!).size.toLocaleString('en-US')}`);
}
