/**
 * native-bench/peers: Tracelake against the storage its peers run on, loaded with the same dataset
 * and asked the same questions — Tracelake over HTTP, raw DuckDB on Tracelake's own files (the same
 * SQL without the API), PostgreSQL (Arize Phoenix in production, Langfuse v2) and SQLite (Phoenix's
 * default). Prints one table — durable ingest rate, bytes per span, each query's median and p99,
 * and ratios to Tracelake, the day's export in spans/s — and writes it into native-bench/RESULTS.md
 * with the date, machine and commit.
 *
 *   npm run bench:peers -- [--spans 1000000] [--days 6] [--traces-per-session N] [--runs 20]
 *        [--warmup 3] [--seed 1] [--stores tracelake,postgres,sqlite] [--scores-per-trace 8]
 *        [--sqlite-synchronous FULL|NORMAL] [--pg-prepared] [--explain] [--no-results]
 *
 * `--days` spreads the dataset over that many days before the run's minute; `--traces-per-session`
 * makes sessions of that many consecutive traces (unset: the workload's 5,000 sessions drawn at
 * random). The session opened is the sample trace's.
 *
 * Before a store is timed, its answer to every query is compared with the first store's
 * (normalised, see common.ts; with Tracelake in the run, times to milliseconds and a trace by id on
 * the span summary fields, see tracelake.ts); any difference is printed and the run stops with
 * exit code 1.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import {
  diffAnswers,
  exportWindow,
  QUERY_LABELS,
  QUERY_NAMES,
  sampleSessionId,
  timeQuery,
  windows,
  type Answers,
  type LoadResult,
  type PeerStore,
  type QueryName,
  type QueryParams,
  type Timing,
} from './common.js';
import { defaultEndMs, generateDataset, sampleTraceId, type DatasetOptions } from './dataset.js';
import { PostgresPeer, startPostgres, usToIso } from './postgres.js';
import { openSqlite, SqlitePeer } from './sqlite.js';
import { comparable, openRawDuckDb, TracelakePeer } from './tracelake.js';

const { values } = parseArgs({
  options: {
    spans: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '6' },
    'traces-per-session': { type: 'string' },
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    stores: { type: 'string', default: 'tracelake,postgres,sqlite' },
    'scores-per-trace': { type: 'string', default: '8' },
    'sqlite-synchronous': { type: 'string', default: 'FULL' },
    explain: { type: 'boolean', default: false },
    'pg-prepared': { type: 'boolean', default: false },
    'no-results': { type: 'boolean', default: false },
  },
});
const dataset: DatasetOptions = {
  spans: Number(values.spans),
  seed: Number(values.seed),
  endMs: defaultEndMs(),
  scoresPerTrace: Number(values['scores-per-trace']),
  days: Number(values.days),
  ...(values['traces-per-session'] === undefined ? {} : { tracesPerSession: Number(values['traces-per-session']) }),
};
const days = dataset.days!;
if (!Number.isInteger(days) || days < 1) throw new Error('--days is a whole number of days, at least 1');
if (
  dataset.tracesPerSession !== undefined &&
  !(Number.isInteger(dataset.tracesPerSession) && dataset.tracesPerSession > 0)
)
  throw new Error('--traces-per-session is a positive integer');
const sessions =
  dataset.tracesPerSession === undefined
    ? "the workload's sessions"
    : `sessions of ${dataset.tracesPerSession} consecutive traces`;
const runs = Number(values.runs);
const warmup = Number(values.warmup);
const storeNames = values.stores.split(',').map((s) => s.trim());
for (const s of storeNames)
  if (s !== 'postgres' && s !== 'sqlite' && s !== 'tracelake') throw new Error(`--stores: unknown store ${s}`);
const synchronous = values['sqlite-synchronous'].toUpperCase();
if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new Error('--sqlite-synchronous is FULL or NORMAL');
const withTracelake = storeNames.includes('tracelake');

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const params: QueryParams = {
  nowMs: dataset.endMs,
  traceId: sampleTraceId(dataset),
  sessionId: sampleSessionId(dataset),
};
log(
  `dataset: ${dataset.spans.toLocaleString('en-US')} spans over ${days} days ending ${new Date(dataset.endMs).toISOString()}, seed ${dataset.seed}, ${dataset.scoresPerTrace} scores per trace, ${sessions}; trace by id: ${params.traceId}, session: ${params.sessionId}`,
);

interface Result {
  name: string;
  load: LoadResult | null;
  timings: Record<QueryName, Timing>;
}
const results: Result[] = [];
let reference: { name: string; answers: Partial<Answers> } | null = null;
let exitCode = 0;
/** Spans in the day's export (every store's answer agrees, or nothing is timed). */
let exported = 0;

/** Answers every query, checks them against the reference (the first store), then times them. */
async function measure(store: PeerStore, load: LoadResult | null): Promise<void> {
  const raw: Partial<Answers> = {};
  for (const q of QUERY_NAMES) (raw as Record<QueryName, unknown>)[q] = await store.queries[q](params);
  const answers = withTracelake ? comparable(raw) : raw;
  if (!reference) {
    reference = { name: store.name, answers };
    exported = answers.exportDay!.rows;
    log(
      `answers of ${store.name}: latest traces total ${answers.latestTraces!.total} (page ${answers.latestTraces!.traces.length}), span search total ${answers.spanSearch!.total}, ` +
        `trace by id ${answers.traceById!.spans.length} spans, metadata filter total ${answers.metadataFilter!.total}, score names ${answers.scoreAggregation!.length} (${answers.scoreAggregation!.reduce((n, s) => n + s.count, 0)} scores), ` +
        `session ${answers.sessionById!.total} traces (page ${answers.sessionById!.traces.length}), metrics ${answers.metricsByDay!.usage.length} day × model rows and ${answers.metricsByDay!.latency.length} days of latency, export ${answers.exportDay!.rows} spans`,
    );
  } else {
    for (const q of QUERY_NAMES) {
      const diff = diffAnswers(reference.answers[q], answers[q]);
      if (diff.length > 0) {
        exitCode = 1;
        console.log(`DIFFERENT: ${q}, ${reference.name} vs ${store.name}:\n  ${diff.join('\n  ')}`);
      }
    }
    if (exitCode !== 0) throw new Error('the stores answer differently; not timed');
    log(`${store.name}: all ${QUERY_NAMES.length} answers agree with ${reference.name}`);
  }
  if (values.explain) await explain(store);
  const timings = {} as Record<QueryName, Timing>;
  for (const q of QUERY_NAMES) {
    timings[q] = await timeQuery(() => store.queries[q](params), runs, warmup);
    log(`${store.name}: ${QUERY_LABELS[q]}: median ${fmt(timings[q].median, 2)} ms, p99 ${fmt(timings[q].p99, 2)} ms`);
  }
  results.push({ name: store.name, load, timings });
}

async function explain(s: PeerStore): Promise<void> {
  const w = windows(params);
  if (s instanceof PostgresPeer) {
    console.log(await s.explain('latestTraces', [usToIso(w.day.fromUs), usToIso(w.day.toUs)]));
    console.log(
      await s.explain('spanSearchTotal', [usToIso(w.week.fromUs), usToIso(w.week.toUs), 'gpt-4o', 1500, 'OK']),
    );
    console.log(
      await s.explain('metadataFilter', [usToIso(w.week.fromUs), usToIso(w.week.toUs), '{"customer":"customer-3"}']),
    );
    console.log(
      await s.explain('metadataFilterTotal', [
        usToIso(w.week.fromUs),
        usToIso(w.week.toUs),
        '{"customer":"customer-3"}',
      ]),
    );
    console.log(await s.explain('scoreAggregation', [usToIso(w.month.fromUs), usToIso(w.month.toUs)]));
    console.log(await s.explain('sessionById', [params.sessionId]));
    console.log(await s.explain('metricsUsage', [usToIso(w.month.fromUs), usToIso(w.month.toUs)]));
    console.log(await s.explain('metricsLatency', [usToIso(w.month.fromUs), usToIso(w.month.toUs)]));
  } else if (s instanceof SqlitePeer) {
    console.log(s.explain('latestTraces', [w.day.fromUs, w.day.toUs]));
    console.log(s.explain('spanSearchTotal', [w.week.fromUs, w.week.toUs, 'gpt-4o', 1500, 'OK']));
    console.log(s.explain('metadataFilter', [w.week.fromUs, w.week.toUs, '$.customer', 'customer-3']));
    console.log(s.explain('scoreAggregation', [w.month.fromUs, w.month.toUs]));
    console.log(s.explain('sessionById', [params.sessionId]));
    console.log(s.explain('metricsUsage', [w.month.fromUs, w.month.toUs]));
    console.log(s.explain('metricsLatency', [w.month.fromUs, w.month.toUs]));
  }
}

function describeLoad(name: string, load: LoadResult, seconds: number): void {
  log(
    `${name}: ${load.spans.toLocaleString('en-US')} spans in ${fmt(load.ingestSeconds)} s timed (${fmt(seconds)} s with generation, scores and settling): ` +
      `${fmt(load.spansPerSecond, 0)} spans/s, ${fmt(load.bytesPerSpan, 0)} bytes/span, settle ${fmt(load.settleSeconds)} s`,
  );
}

try {
  for (const name of storeNames) {
    const started = performance.now();
    if (name === 'tracelake') {
      const store = new TracelakePeer(log);
      try {
        const load = await store.load(generateDataset(dataset), log);
        describeLoad(store.name, load, (performance.now() - started) / 1000);
        await measure(store, load);
        // The same files, the same SQL, without the API: stop the server, open its DuckDB here.
        await store.stop();
        const raw = await openRawDuckDb(store.dataDir, store.readScope);
        try {
          await measure(raw, null);
        } finally {
          await raw.close();
        }
      } finally {
        await store.close();
      }
      continue;
    }
    const store =
      name === 'postgres'
        ? await startPostgres({ log, preparedStatements: values['pg-prepared'] })
        : await openSqlite({ log, synchronous });
    try {
      const load = await store.load(generateDataset(dataset), log);
      describeLoad(store.name, load, (performance.now() - started) / 1000);
      await measure(store, load);
    } finally {
      await store.close();
    }
  }

  const ref = results.find((r) => r.name.startsWith('Tracelake')) ?? results[0]!;
  const ratio = (x: number, y: number) => (y > 0 ? `${(x / y).toFixed(x / y >= 10 ? 0 : 1)}×` : '—');
  const lines = [
    `${dataset.spans.toLocaleString('en-US')} spans (${(dataset.spans / 8).toLocaleString('en-US')} traces over ${days} days, ${sessions}, ${((dataset.spans * (dataset.scoresPerTrace ?? 8)) / 8).toLocaleString('en-US')} scores); ` +
      `${new Date().toISOString().slice(0, 10)}, commit ${commit()}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. ` +
      `Queries: median / p99 of ${runs} runs after ${warmup} warm-up, ms; in brackets, the store's median over ${ref.name}'s. ` +
      `The export streams the ${exported.toLocaleString('en-US')} spans of the last 24 h (${usToIso(exportWindow(params).fromUs).slice(0, 16)} to ${usToIso(exportWindow(params).toUs).slice(0, 16)}): spans/s at the median.`,
    '',
    `| store | spans/s ingested (durable) | bytes/span | ${QUERY_NAMES.map((q) => QUERY_LABELS[q]).join(' | ')} | export, spans/s |`,
    `|---|---|---|${QUERY_NAMES.map(() => '---').join('|')}|---|`,
    ...results.map((r) => {
      const ingest = r.load
        ? `${fmt(r.load.spansPerSecond, 0)}${r === ref ? '' : ` (${ratio(r.load.spansPerSecond, ref.load?.spansPerSecond ?? 0)})`}`
        : '— (same files)';
      const bytes = r.load ? fmt(r.load.bytesPerSpan, 0) : '—';
      const queries = QUERY_NAMES.map(
        (q) =>
          `${fmt(r.timings[q].median, 1)} / ${fmt(r.timings[q].p99, 1)}${r === ref ? '' : ` (${ratio(r.timings[q].median, ref.timings[q].median)})`}`,
      );
      return `| ${r.name} | ${ingest} | ${bytes} | ${queries.join(' | ')} | ${fmt(exported / (r.timings.exportDay.median / 1000), 0)} |`;
    }),
  ];
  console.log(`\n${lines.join('\n')}`);
  if (!values['no-results']) writeResults(lines);
} catch (err) {
  exitCode = 1;
  console.error(err);
}
process.exitCode = exitCode;

/** Replaces RESULTS.md's section for this dataset size with the table of this run. */
function writeResults(lines: string[]): void {
  const path = new URL('../../../native-bench/RESULTS.md', import.meta.url);
  const text = readFileSync(path, 'utf8');
  // A dataset spread over other than the default 6 days keeps a table of its own.
  const tag = `peers-${dataset.spans}${days === 6 ? '' : `-${days}d`}`;
  const section = `<!-- ${tag}:begin -->\n${lines.join('\n')}\n<!-- ${tag}:end -->`;
  const re = new RegExp(`<!-- ${tag}:begin -->[\\s\\S]*?<!-- ${tag}:end -->`);
  const marker = '<!-- peers:tables -->';
  const updated = re.test(text)
    ? text.replace(re, section)
    : text.includes(marker)
      ? text.replace(marker, `${marker}\n\n${section}`)
      : `${text}\n${marker}\n\n${section}\n`;
  writeFileSync(path, updated);
  log(`wrote the table into native-bench/RESULTS.md (${tag})`);
}

/** The commit this build was made from, as the results name it. */
function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}
