/**
 * native-bench/peers: the storage that Tracelake's peers run on, loaded with the same dataset and
 * asked the same questions — PostgreSQL (Arize Phoenix in production, Langfuse v2) and SQLite
 * (Phoenix's default). Prints one table: durable ingest rate, bytes per span, and each query's
 * median and p99.
 *
 *   npm run build && node dist/native-bench/peers/run-peers.js [--spans 1000000] [--runs 20]
 *        [--warmup 3] [--seed 1] [--stores postgres,sqlite] [--scores-per-trace 8]
 *        [--sqlite-synchronous FULL|NORMAL] [--pg-prepared] [--explain]
 *
 * Before anything is timed, every store's answer to every query is compared with the first store's
 * (normalised, see common.ts); any difference is printed and the run stops with exit code 1.
 */
import { parseArgs } from 'node:util';
import { diffAnswers, QUERY_LABELS, QUERY_NAMES, timeQuery, windows, type Answers, type LoadResult, type PeerStore, type QueryName, type QueryParams, type Timing } from './common.js';
import { defaultEndMs, generateDataset, sampleTraceId, type DatasetOptions } from './dataset.js';
import { PostgresPeer, startPostgres, usToIso } from './postgres.js';
import { openSqlite, SqlitePeer } from './sqlite.js';

const { values } = parseArgs({
  options: {
    spans: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    stores: { type: 'string', default: 'postgres,sqlite' },
    'scores-per-trace': { type: 'string', default: '8' },
    'sqlite-synchronous': { type: 'string', default: 'FULL' },
    explain: { type: 'boolean', default: false },
    'pg-prepared': { type: 'boolean', default: false },
  },
});
const dataset: DatasetOptions = {
  spans: Number(values.spans),
  seed: Number(values.seed),
  endMs: defaultEndMs(),
  scoresPerTrace: Number(values['scores-per-trace']),
};
const runs = Number(values.runs);
const warmup = Number(values.warmup);
const storeNames = values.stores.split(',').map((s) => s.trim());
for (const s of storeNames) if (s !== 'postgres' && s !== 'sqlite') throw new Error(`--stores: unknown store ${s}`);
const synchronous = values['sqlite-synchronous'].toUpperCase();
if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new Error('--sqlite-synchronous is FULL or NORMAL');

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const params: QueryParams = { nowMs: dataset.endMs, traceId: sampleTraceId(dataset) };
log(`dataset: ${dataset.spans.toLocaleString('en-US')} spans over 6 days ending ${new Date(dataset.endMs).toISOString()}, seed ${dataset.seed}, ${dataset.scoresPerTrace} scores per trace; trace by id: ${params.traceId}`);

const stores: PeerStore[] = [];
const loads: LoadResult[] = [];
const answers: Partial<Answers>[] = [];
let exitCode = 0;
try {
  for (const name of storeNames) {
    const store = name === 'postgres' ? await startPostgres({ log, preparedStatements: values['pg-prepared'] }) : await openSqlite({ log, synchronous });
    stores.push(store);
    const started = performance.now();
    const load = await store.load(generateDataset(dataset), log);
    loads.push(load);
    log(
      `${store.name}: ${load.spans.toLocaleString('en-US')} spans in ${fmt(load.ingestSeconds)} s timed (${fmt((performance.now() - started) / 1000)} s with generation, scores and settling): ` +
        `${fmt(load.spansPerSecond, 0)} spans/s, ${fmt(load.bytesPerSpan, 0)} bytes/span (${fmt(load.spanBytes / 2 ** 20)} MiB spans+traces, ${fmt(load.scoreBytes / 2 ** 20)} MiB for ${load.scores.toLocaleString('en-US')} scores), settle ${fmt(load.settleSeconds)} s`,
    );
    const a: Partial<Answers> = {};
    for (const q of QUERY_NAMES) (a as Record<QueryName, unknown>)[q] = await store.queries[q](params);
    answers.push(a);
  }

  // The answers must agree before anything is timed.
  const ref = answers[0]!;
  log(
    `answers of ${stores[0]!.name}: latest traces total ${ref.latestTraces!.total} (page ${ref.latestTraces!.traces.length}), span search total ${ref.spanSearch!.total}, ` +
      `trace by id ${ref.traceById!.spans.length} spans, metadata filter total ${ref.metadataFilter!.total}, score names ${ref.scoreAggregation!.length} (${ref.scoreAggregation!.reduce((n, s) => n + s.count, 0)} scores)`,
  );
  for (let i = 1; i < stores.length; i++) {
    for (const q of QUERY_NAMES) {
      const diff = diffAnswers(ref[q], answers[i]![q]);
      if (diff.length > 0) {
        exitCode = 1;
        console.log(`DIFFERENT: ${q}, ${stores[0]!.name} vs ${stores[i]!.name}:\n  ${diff.join('\n  ')}`);
      }
    }
  }
  if (exitCode !== 0) throw new Error('the stores answer differently; nothing timed');
  if (stores.length > 1) log(`all ${QUERY_NAMES.length} answers agree across ${stores.map((s) => s.name).join(', ')}`);

  if (values.explain) {
    const w = windows(params);
    for (const s of stores) {
      if (s instanceof PostgresPeer) {
        console.log(await s.explain('latestTraces', [usToIso(w.day.fromUs), usToIso(w.day.toUs)]));
        console.log(await s.explain('spanSearchTotal', [usToIso(w.week.fromUs), usToIso(w.week.toUs), 'gpt-4o', 1500, 'OK']));
        console.log(await s.explain('metadataFilter', [usToIso(w.week.fromUs), usToIso(w.week.toUs), '{"customer":"customer-3"}']));
        console.log(await s.explain('metadataFilterTotal', [usToIso(w.week.fromUs), usToIso(w.week.toUs), '{"customer":"customer-3"}']));
        console.log(await s.explain('scoreAggregation', [usToIso(w.month.fromUs), usToIso(w.month.toUs)]));
      } else if (s instanceof SqlitePeer) {
        console.log(s.explain('latestTraces', [w.day.fromUs, w.day.toUs]));
        console.log(s.explain('spanSearchTotal', [w.week.fromUs, w.week.toUs, 'gpt-4o', 1500, 'OK']));
        console.log(s.explain('metadataFilter', [w.week.fromUs, w.week.toUs, '$.customer', 'customer-3']));
        console.log(s.explain('scoreAggregation', [w.month.fromUs, w.month.toUs]));
      }
    }
  }

  const timings: Record<QueryName, Timing>[] = [];
  for (const s of stores) {
    const t = {} as Record<QueryName, Timing>;
    for (const q of QUERY_NAMES) {
      t[q] = await timeQuery(() => s.queries[q](params), runs, warmup);
      log(`${s.name}: ${QUERY_LABELS[q]}: median ${fmt(t[q].median, 2)} ms, p99 ${fmt(t[q].p99, 2)} ms`);
    }
    timings.push(t);
  }

  console.log(`\npeers over ${dataset.spans.toLocaleString('en-US')} spans (${(dataset.spans / 8).toLocaleString('en-US')} traces, 6 days), queries: median / p99 of ${runs} runs after ${warmup} warm-up, ms\n`);
  console.log(`| store | spans/s ingested (durable) | bytes/span | ${QUERY_NAMES.map((q) => QUERY_LABELS[q]).join(' | ')} |`);
  console.log(`|---|---|---|${QUERY_NAMES.map(() => '---').join('|')}|`);
  stores.forEach((s, i) => {
    const l = loads[i]!;
    console.log(`| ${s.name} | ${fmt(l.spansPerSecond, 0)} | ${fmt(l.bytesPerSpan, 0)} | ${QUERY_NAMES.map((q) => `${fmt(timings[i]![q].median, 1)} / ${fmt(timings[i]![q].p99, 1)}`).join(' | ')} |`);
  });
} catch (err) {
  exitCode = 1;
  console.error(err);
} finally {
  for (const s of stores) await s.close();
}
process.exitCode = exitCode;
