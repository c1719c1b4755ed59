/**
 * native-bench/ids: trace and span ids stored as lowercase hex text (segment formats 1 and 2) against
 * a fixed-width form, in the same run over the same spans.
 *
 *   npm run build && node dist/native-bench/ids.js [--spans 1000000] [--runs 21]
 *
 * The fixed-width form: the trace id as `UUID` (16 bytes; Parquet FIXED_LEN_BYTE_ARRAY(16) with the
 * UUID logical type), span and parent ids as `UBIGINT` (Parquet UINT_64). Not `UHUGEINT`: DuckDB
 * 1.5 writes 128-bit integers to Parquet as DOUBLE, which loses the id (checked below).
 *
 * Two files of the same synthetic spans (native-bench/synthetic.ts), written with the segments'
 * own COPY options and sort, read by the store's `Database` (prepared statements, Parquet metadata
 * cache), alternating text and fixed-width in one loop so the machine's swings weigh on both:
 * - bytes of the id columns and of the whole file;
 * - the spans of one trace as a trace read selects them (id + its start range, ordered), the
 *   fixed-width read turning ids back into hex for the answer;
 * - the same by id alone (every row group probed), and one span by id alone (`GET /v1/spans/{id}`
 *   without a trace);
 * - a distinct count of trace ids over the file (the hash work of sessions and trace lists).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../src/store/db.js';
import { storeDirs } from '../src/store/layout.js';
import { SEGMENT_COPY_OPTIONS } from '../src/store/spans/segmentFormat.js';
import { tempDir } from '../test/helpers/server.js';
import { arg } from './args.js';
import { spanSelect, spreadTrace, syntheticSpanId, syntheticTraceId, TRACE_GAP_NS } from './synthetic.js';

const SPANS = arg('spans', 1_000_000);
const RUNS = arg('runs', 21);
const TRACES = Math.floor(SPANS / 8);

const dataDir = tempDir('tracelake-ids-bench-');
const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 });
const dir = storeDirs(dataDir).segments;
const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const newestNs = BigInt(Date.now() - 60_000) * 1_000_000n;
const spans = spanSelect(scope, newestNs).replace('$FROM', '0').replace('$TO', String(SPANS));

/** Hex text → fixed width, in SQL: what ingestion would store. */
const toFixed = `SELECT * REPLACE (trace_id::UUID AS trace_id, ('0x' || span_id)::UBIGINT AS span_id, ('0x' || parent_id)::UBIGINT AS parent_id) FROM (${spans})`;
/** Fixed width → the API's hex, in SQL: what every answer would pay. */
const HEX_IDS = `replace(trace_id::VARCHAR, '-', '') AS trace_id, lpad(lower(hex(span_id)), 16, '0') AS span_id, lpad(lower(hex(parent_id)), 16, '0') AS parent_id`;

interface Form {
  name: string;
  file: string;
  /** The select list of a trace read: every column, ids as hex. */
  columns: string;
  /** A trace id parameter as this form compares it. */
  traceParam: string;
  spanParam: string;
}

const text: Form = {
  name: 'hex text',
  file: join(dir, 'text.parquet'),
  columns: '*',
  traceParam: '$1',
  spanParam: '$1',
};
const fixed: Form = {
  name: 'fixed width',
  file: join(dir, 'fixed.parquet'),
  columns: `* REPLACE (${HEX_IDS})`,
  traceParam: '$1::UUID',
  spanParam: "('0x' || $1)::UBIGINT",
};

// 128-bit integers do not survive Parquet in DuckDB 1.5 (written as DOUBLE): why UUID.
{
  const probe = join(dir, 'probe.parquet');
  await db.exec(`COPY (SELECT (1::UHUGEINT << 100) + 1 AS h) TO '${probe}' (FORMAT parquet)`);
  const [row] = await db.query<{ kind: string }>(
    `SELECT type AS kind FROM parquet_schema('${probe}') WHERE name = 'h'`,
  );
  console.log(`UHUGEINT in Parquet is stored as ${row?.kind}`);
}

const copySeconds = new Map<Form, number>();
for (const [form, select] of [
  [text, spans],
  [fixed, toFixed],
] as const) {
  const t0 = performance.now();
  await db.exec(`COPY (${select} ORDER BY start_ns, trace_id, span_id) TO '${form.file}' (${SEGMENT_COPY_OPTIONS})`);
  copySeconds.set(form, (performance.now() - t0) / 1000);
}

// The two files hold the same spans: every id turned back into hex matches.
{
  const [row] = await db.query<{ differ: number }>(
    `SELECT count(*)::INTEGER AS differ FROM (
       SELECT trace_id, span_id, coalesce(parent_id, '') FROM read_parquet('${text.file}')
       EXCEPT ALL
       SELECT trace_id, span_id, coalesce(parent_id, '') FROM (SELECT ${HEX_IDS} FROM read_parquet('${fixed.file}')))`,
  );
  if (row?.differ !== 0) throw new Error(`the fixed-width file differs from the text one in ${row?.differ} rows`);
}

async function columnBytes(form: Form): Promise<{ ids: number; file: number }> {
  const [row] = await db.query<{ ids: string; file: string }>(
    `SELECT sum(total_compressed_size) FILTER (WHERE path_in_schema IN ('trace_id', 'span_id', 'parent_id'))::BIGINT::VARCHAR AS ids,
            sum(total_compressed_size)::BIGINT::VARCHAR AS file
       FROM parquet_metadata('${form.file}')`,
  );
  return { ids: Number(row!.ids), file: Number(row!.file) };
}

interface Read {
  name: string;
  run: (form: Form, i: number) => Promise<number>;
}

const traceOf = (i: number) => spreadTrace(i, TRACES);
const startOf = (trace: number) => newestNs - BigInt(trace) * TRACE_GAP_NS;
const spanIdOf = (trace: number) => syntheticSpanId(trace * 8 + 3);

const reads: Read[] = [
  {
    name: 'trace spans (id + start range)',
    run: async (form, i) => {
      const trace = traceOf(i);
      const rows = await db.query(
        `SELECT ${form.columns} FROM read_parquet('${form.file}') WHERE trace_id = ${form.traceParam} AND start_ns BETWEEN $2 AND $3 ORDER BY start_ns, span_id`,
        [syntheticTraceId(trace), startOf(trace), startOf(trace) + 3_100_000_000n],
      );
      return rows.length;
    },
  },
  {
    name: 'trace spans (id alone)',
    run: async (form, i) => {
      const rows = await db.query(
        `SELECT ${form.columns} FROM read_parquet('${form.file}') WHERE trace_id = ${form.traceParam} ORDER BY start_ns, span_id`,
        [syntheticTraceId(traceOf(i))],
      );
      return rows.length;
    },
  },
  {
    name: 'one span by id alone',
    run: async (form, i) =>
      (
        await db.query(`SELECT ${form.columns} FROM read_parquet('${form.file}') WHERE span_id = ${form.spanParam}`, [
          spanIdOf(traceOf(i)),
        ])
      ).length,
  },
  {
    name: 'distinct trace ids',
    run: async (form) =>
      Number(
        (
          await db.query<{ n: string }>(
            `SELECT count(DISTINCT trace_id)::VARCHAR AS n FROM read_parquet('${form.file}')`,
          )
        )[0]!.n,
      ),
  },
];

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;

const timings = reads.map(() => ({ text: [] as number[], fixed: [] as number[] }));
for (const [k, r] of reads.entries()) {
  // A warm-up pass, then the timed one; text and fixed width alternate run by run.
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < RUNS; i++) {
      const answers: number[] = [];
      for (const form of [text, fixed]) {
        const t0 = performance.now();
        answers.push(await r.run(form, i));
        if (pass === 1) timings[k]![form === text ? 'text' : 'fixed'].push(performance.now() - t0);
      }
      if (answers[0] !== answers[1] || answers[0] === 0)
        throw new Error(`${r.name}: the forms answered ${answers.join(' and ')} rows`);
    }
  }
}

const bytes = { text: await columnBytes(text), fixed: await columnBytes(fixed) };
db.close();
rmSync(dataDir, { recursive: true, force: true });

const perSpan = (n: number) => (n / SPANS).toFixed(2);
console.log(
  `ids over ${SPANS.toLocaleString('en-US')} spans (${TRACES.toLocaleString('en-US')} traces), ${RUNS} runs; fixed width against hex text`,
);
console.log(
  `  bytes a span, the three id columns   ${perSpan(bytes.text.ids).padStart(7)} → ${perSpan(bytes.fixed.ids).padStart(6)}   ${(bytes.fixed.ids / bytes.text.ids).toFixed(2)}×`,
);
console.log(
  `  bytes a span, the whole file         ${perSpan(bytes.text.file).padStart(7)} → ${perSpan(bytes.fixed.file).padStart(6)}   ${(bytes.fixed.file / bytes.text.file).toFixed(2)}×`,
);
console.log(
  `  COPY of the file (s)                 ${copySeconds.get(text)!.toFixed(2).padStart(7)} → ${copySeconds.get(fixed)!.toFixed(2).padStart(6)}   ${(copySeconds.get(fixed)! / copySeconds.get(text)!).toFixed(2)}× (fixed includes parsing the hex)`,
);
console.log('  read (median ms)                        text    fixed   ratio');
reads.forEach((r, k) => {
  const t = median(timings[k]!.text);
  const f = median(timings[k]!.fixed);
  console.log(
    `  ${r.name.padEnd(36)} ${t.toFixed(2).padStart(7)} ${f.toFixed(2).padStart(8)} ${(f / t).toFixed(2).padStart(6)}×`,
  );
});
