/**
 * native-bench/commit: the store's commit of flushed generations (`commitGenerations`) in process,
 * on a fresh store: reports like a compute worker's (4 batches of 512 realistic spans each, one
 * segment, one resource), committed one at a time and in groups of four; medians. With
 * `--baseline <checkout>` the same runs go through that build's store too, alternating, and the
 * ratios are printed (the reference is the baseline).
 *
 *   npm run build && node dist/native-bench/commit.js [--reports 240] [--baseline /path/to/built/checkout]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, buildModule, textArg } from './args.js';

const REPORTS = arg('reports', 240);
/** Commits left out of each median: the first ones warm DuckDB up. */
const WARM_UP = 5;
const GROUPS = [1, 4];
// Each group size needs a commit of its own after the warm-up ones.
const fewest = Math.max(...GROUPS) * (WARM_UP + 1);
if (REPORTS < fewest)
  throw new Error(
    `--reports ${REPORTS}: at least ${fewest} are needed (${WARM_UP} warm-up commits and one timed, in groups of up to ${Math.max(...GROUPS)})`,
  );
const BASELINE = textArg('baseline', '');
const SCOPE = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};

/** One build's store functions, loaded from its `dist` (this one's when `root` is empty). */
async function load(root: string) {
  const at = (path: string) => buildModule(root, path);
  return {
    db: (await import(at('src/store/db.js'))) as typeof import('../src/store/db.js'),
    migrate: ((await import(at('src/store/migrate.js'))) as typeof import('../src/store/migrate.js')).migrate,
    commit: ((await import(at('src/store/spans/manifest.js'))) as typeof import('../src/store/spans/manifest.js'))
      .commitGenerations,
  };
}

/** Reports of generations, made once with this build's mapping and used for every build. */
async function reports(count: number) {
  const { decodeExportRequest } = await import('../test/helpers/otlpProto.js');
  const { mapExportRequest } = await import('../src/core/otlp/map.js');
  const { toRows } = await import('../src/ingest/rows.js');
  const { SummaryParts } = await import('../src/ingest/summaryParts.js');
  const { encodedBatch } = await import('./workload.js');
  const out = [];
  let seed = 1;
  for (let seq = 1; seq <= count; seq++) {
    const parts = new SummaryParts();
    const resources = new Map<
      string,
      ReturnType<typeof toRows>['resources'][number] & { tenantId: string; appId: string }
    >();
    let spans = 0;
    for (let b = 0; b < 4; b++) {
      const { rows, resources: named } = toRows(
        SCOPE,
        mapExportRequest(decodeExportRequest(encodedBatch(512, 7919 * seed++)) as never).spans,
      );
      parts.add(rows);
      spans += rows.length;
      for (const r of named) resources.set(String(r.id), { ...r, tenantId: SCOPE.tenantId, appId: SCOPE.appId });
    }
    out.push({
      workerId: 'bench',
      seq,
      log: `bench-${seq}.log`,
      segments: [
        {
          key: `bench/${seq}.parquet`,
          ...SCOPE,
          date: '2026-11-27',
          rows: spans,
          bytes: 1,
          minStartNs: 1n,
          maxStartNs: 2n,
        },
      ],
      parts: parts.rows(),
      resources: [...resources.values()],
      blobs: [],
      usage: [{ tenantId: SCOPE.tenantId, spans, bytes: spans * 100 }],
      bodyBytes: 1,
      skippedRecords: 0,
    });
  }
  return out;
}

/** Median milliseconds of a commit of `group` reports, on a fresh store of `build`. */
async function run(
  build: Awaited<ReturnType<typeof load>>,
  all: Awaited<ReturnType<typeof reports>>,
  group: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tracelake-commit-'));
  const db = await build.db.Database.open({ dataDir: dir, threads: 2, memoryLimit: '2GiB', queryTimeoutMs: 60_000 });
  try {
    await build.migrate(db);
    const times: number[] = [];
    const segments = { readPath: (p: string) => p } as never;
    for (let i = 0; i + group <= all.length; i += group) {
      const started = performance.now();
      await build.commit(db, segments, all.slice(i, i + group) as never);
      times.push(performance.now() - started);
    }
    const kept = times.slice(WARM_UP).sort((a, b) => a - b);
    return kept[kept.length >> 1]!;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const all = await reports(REPORTS);
const builds: [string, Awaited<ReturnType<typeof load>>][] = [['this build', await load('')]];
if (BASELINE) builds.unshift(['baseline', await load(BASELINE)]);
console.log(`${REPORTS} reports of ${all[0]!.parts.length} trace parts, ${all[0]!.resources.length} resource`);
for (const group of GROUPS) {
  const medians = new Map<string, number[]>();
  for (let round = 0; round < 2; round++)
    for (const [name, build] of builds) medians.set(name, [...(medians.get(name) ?? []), await run(build, all, group)]);
  const line = [...medians].map(([name, ms]) => `${name} ${ms.map((m) => m.toFixed(1)).join(', ')} ms`).join('; ');
  const ratio = BASELINE
    ? `; ratio ${(Math.min(...medians.get('this build')!) / Math.min(...medians.get('baseline')!)).toFixed(2)}×`
    : '';
  console.log(`a group of ${group}: ${line}${ratio}`);
}
