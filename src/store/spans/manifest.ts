/**
 * The segment manifest: which Parquet files hold the spans, and the one place that turns a scope and
 * a time window into the files a query reads (never a glob: a file is visible exactly when its
 * manifest row is committed, and a half-written or replaced file is never read).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { listValue } from '../duckdb.js';
import { monthOf } from '../../core/plans.js';
import type { GenerationReport } from './generation.js';
import type { Database, Reader, Transaction } from '../db.js';
import { storeBlobs } from './blobs.js';
import { SPAN_COLUMNS } from './columns.js';
import type { ReadScope } from '../scope.js';
import { READABLE_FORMAT_VERSIONS, SEGMENT_FORMAT_VERSION } from './segmentFormat.js';
import type { SegmentStore } from './segmentStore.js';
import { mayHoldSpan, spanIdProbe } from './spanIdFilter.js';
import { PART_KINDS } from './traceParts.js';
import { noteParts } from './traceHints.js';
import { ID_WORDS } from '../../core/ingest/admission.js';

/** Level of segments written by ingestion; compaction writes level 1. */
export const INGEST_LEVEL = 0;

/**
 * Commits flushed generations in one transaction (group commit: under load several wait, and a
 * transaction's fixed cost — its WAL sync above all — is paid once): the names of the log files
 * they came from (so a file is never replayed again, even if deleting it fails), their segments,
 * their trace summary parts, the resources their spans name, their blobs and the tenants' usage.
 * A statement per kind of row for the whole group, not per generation, and none that can be
 * spared: under load each costs the store thread milliseconds however few its rows
 * (native-bench/RESULTS.md, "commit"; docs/decisions.md, "Generations, group commit and readability").
 */
export async function commitGenerations(
  db: Database,
  /** Unused; kept so native-bench/commit can call this build and older ones alike. */
  _store: SegmentStore,
  reports: readonly GenerationReport[],
): Promise<void> {
  if (reports.length === 0) return;
  let fresh: GenerationReport[] = [];
  await db.transaction(async (tx) => {
    // Naming the logs finds the fresh generations (a name there already is a retry after an answer
    // that was lost) and numbers their parts (the merge folds by it), in one statement.
    const logs = rowsOf(reports.map((r) => [r.log]));
    const named = await tx.query<{ name: string; seq: string }>(
      `INSERT INTO committed_logs (name) VALUES ${logs.sql} ON CONFLICT DO NOTHING RETURNING name, nextval('trace_part_seq')::VARCHAR AS seq`,
      logs.params,
    );
    const names = new Set(named.map((r) => r.name));
    fresh = reports.filter((r) => names.delete(r.log));
    // Numbers rising in the order the generations were reported.
    const seqs = named.map((r) => BigInt(r.seq)).sort((a, b) => (a < b ? -1 : 1));
    if (fresh.length > 0) await commitFresh(tx, fresh, seqs, knownResources(db));
  });
  const known = knownResources(db);
  if (known.size > KNOWN_RESOURCES) known.clear();
  for (const r of fresh.flatMap((g) => g.resources)) known.add(resourceKey(r));
  forgetSegments(
    db,
    reports.flatMap((r) => r.segments),
  );
  // A retried generation's parts were noted when it was first committed (or, after a restart, by
  // the fill from the summaries).
  for (const report of fresh) noteParts(db, report.parts);
}

/**
 * Resources a commit of this store has stored, by key: most generations name only these, and need
 * no insert. Resources are never deleted, so a key here stays true; past the bound it starts again.
 */
const resourcesKnown = new WeakMap<Database, Set<string>>();
const KNOWN_RESOURCES = 100_000;

function knownResources(db: Database): Set<string> {
  let known = resourcesKnown.get(db);
  if (!known) resourcesKnown.set(db, (known = new Set()));
  return known;
}

function resourceKey(r: GenerationReport['resources'][number]): string {
  return `${r.tenantId}/${r.appId}/${r.id}`;
}

async function commitFresh(
  tx: Transaction,
  reports: readonly GenerationReport[],
  seqs: readonly bigint[],
  known: ReadonlySet<string>,
): Promise<void> {
  const segments = reports.flatMap((r) =>
    r.segments.map((s) => ({ ...s, level: INGEST_LEVEL, formatVersion: SEGMENT_FORMAT_VERSION })),
  );
  if (segments.length > 0) {
    const insert = segmentRows(segments);
    await tx.exec(insert.sql, insert.params);
  }
  await tx.append(
    'trace_parts',
    PART_KINDS,
    reports.flatMap((r, i) => r.parts.map((p) => [...p, seqs[i]!])),
  );
  const resources = reports.flatMap((r) => r.resources).filter((r) => !known.has(resourceKey(r)));
  if (resources.length > 0) {
    const v = rowsOf(resources.map((r) => [r.tenantId, r.appId, r.id, r.resource, r.scopeName, r.scopeVersion]));
    await tx.exec(
      `INSERT INTO resources (tenant_id, app_id, resource_id, resource, scope_name, scope_version) VALUES ${v.sql} ON CONFLICT DO NOTHING`,
      v.params,
    );
  }
  await storeBlobs(
    tx,
    reports.flatMap((r) => r.blobs),
  );
  const usage = new Map<string, { spans: number; bytes: number }>();
  for (const u of reports.flatMap((r) => r.usage)) {
    const sum = usage.get(u.tenantId) ?? { spans: 0, bytes: 0 };
    sum.spans += u.spans;
    sum.bytes += u.bytes;
    usage.set(u.tenantId, sum);
  }
  if (usage.size > 0) {
    // One row a tenant: with two rows of one key in a statement, DO UPDATE keeps the first alone.
    const month = monthOf(Date.now());
    const v = rowsOf([...usage].map(([tenantId, u]) => [tenantId, month, u.spans, u.bytes]));
    await tx.exec(
      `INSERT INTO tenant_usage (tenant_id, month, spans, bytes) VALUES ${v.sql}
       ON CONFLICT (tenant_id, month) DO UPDATE SET spans = spans + excluded.spans, bytes = bytes + excluded.bytes`,
      v.params,
    );
  }
}

export interface NewSegment {
  tenantId: string;
  appId: string;
  environmentId: string | null;
  date: string;
  rows: number;
  bytes: number;
  minStartNs: bigint;
  maxStartNs: bigint;
  level: number;
  formatVersion: number;
}

/** Manifest rows of new segments, as `rowsOf` takes them. */
function segmentRows(segments: readonly (NewSegment & { key: string })[]): { sql: string; params: DuckDBValue[] } {
  const v = rowsOf(
    segments.map((s) => [
      s.tenantId,
      s.appId,
      s.environmentId,
      s.date,
      s.key,
      s.level,
      s.formatVersion,
      s.rows,
      s.bytes,
      s.minStartNs,
      s.maxStartNs,
    ]),
    { 3: '::DATE' },
  );
  return {
    sql: `INSERT INTO segments (tenant_id, app_id, environment_id, date, path, level, format_version, rows, bytes, min_start_ns, max_start_ns) VALUES ${v.sql}`,
    params: v.params,
  };
}

export async function insertSegment(tx: Transaction, key: string, s: NewSegment): Promise<number> {
  const insert = segmentRows([{ ...s, key }]);
  const [row] = await tx.query<{ id: number }>(`${insert.sql} RETURNING id::DOUBLE AS id`, insert.params);
  return row!.id;
}

/**
 * The rows of a multi-row `VALUES`, as placeholders (with a cast after the columns `casts` names)
 * and their values. Faster than `unnest` over lists for the one or few rows of a commit.
 */
function rowsOf(
  rows: readonly (readonly DuckDBValue[])[],
  casts: Record<number, string> = {},
): { sql: string; params: DuckDBValue[] } {
  let n = 0;
  const sql = rows.map((row) => `(${row.map((_, c) => `$${++n}${casts[c] ?? ''}`).join(', ')})`).join(', ');
  return { sql, params: rows.flat() };
}

/**
 * Which of these log files a committed generation already covers. `IN (SELECT unnest(…))` finds
 * them through the key's index: `list_contains` scanned the table, a day of names
 * (native-bench/RESULTS.md, "Figures behind the code").
 */
export async function committedLogs(db: Reader, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db.query<{ name: string }>(
    'SELECT name FROM committed_logs WHERE name IN (SELECT unnest($1::VARCHAR[]))',
    [listValue([...names])],
  );
  return rows.map((r) => r.name);
}

/** Forgets committed log names older than a day: their files are long gone. */
export async function pruneCommittedLogs(db: Database): Promise<void> {
  await db.exec(`DELETE FROM committed_logs WHERE committed_at < now()::TIMESTAMP - INTERVAL 1 DAY`);
}

export interface SegmentFile {
  path: string;
  formatVersion: number;
}

/** A live segment as the manifest lists it for a read that needs more than its path. */
export interface ListedSegment extends SegmentFile {
  id: number;
  minStartNs: bigint;
  maxStartNs: bigint;
  /** Whether its rollup rows are written (rollups.ts). */
  rolledUp: boolean;
}

interface CachedSegment extends ListedSegment {
  environmentId: string | null;
}

/**
 * The live segments of each app, kept in memory by the thread that owns the database: every read
 * needs its file list, and the list only changes when this thread commits a generation, a
 * compaction or a retention — which drop the app's entry (`forgetSegments`).
 */
const cache = new WeakMap<Database, Map<string, Promise<CachedSegment[]>>>();

function appSegments(db: Database, tenantId: string, appId: string): Promise<CachedSegment[]> {
  let apps = cache.get(db);
  if (!apps) cache.set(db, (apps = new Map()));
  const key = `${tenantId}/${appId}`;
  let list = apps.get(key);
  if (!list) {
    list = db
      .query<{
        id: number;
        path: string;
        environment_id: string | null;
        min_start_ns: string;
        max_start_ns: string;
        format_version: number;
        rolled_up: boolean | null;
      }>(
        `SELECT id::DOUBLE AS id, path, environment_id::VARCHAR AS environment_id, min_start_ns::VARCHAR AS min_start_ns,
                max_start_ns::VARCHAR AS max_start_ns, format_version, rolled_up
           FROM segments WHERE tenant_id = $1 AND app_id = $2 AND replaced_at IS NULL
          -- The column, not the text alias: 18-digit times (before 2001-09-09) sort before 19-digit ones.
          ORDER BY segments.min_start_ns, id`,
        [tenantId, appId],
      )
      .then((rows) =>
        rows.map((r) => ({
          id: r.id,
          path: r.path,
          environmentId: r.environment_id,
          minStartNs: BigInt(r.min_start_ns),
          maxStartNs: BigInt(r.max_start_ns),
          formatVersion: r.format_version,
          rolledUp: r.rolled_up === true,
        })),
      );
    list.catch(() => apps!.delete(key));
    apps.set(key, list);
  }
  return list;
}

/** Drops the cached segment lists of these apps (after their manifest rows changed), or of all. */
export function forgetSegments(db: Database, apps?: Iterable<{ tenantId: string; appId: string }>): void {
  const cached = cache.get(db);
  if (!cached) return;
  if (!apps) {
    cached.clear();
    return;
  }
  for (const a of apps) cached.delete(`${a.tenantId}/${a.appId}`);
}

/**
 * The live segments of a scope whose spans may start in [fromNs, toNs): the files a span query over
 * that window reads. A pinned scope also reads files that mix environments (compacted ones); the
 * query's own environment condition then picks its rows.
 */
export async function segmentsFor(
  db: Database,
  store: SegmentStore,
  scope: ReadScope,
  fromNs: bigint | null,
  toNs: bigint | null,
): Promise<SegmentFile[]> {
  return (await listSegments(db, store, scope, fromNs, toNs)).map((s) => ({
    path: s.path,
    formatVersion: s.formatVersion,
  }));
}

/** `segmentsFor`'s files with their manifest ids, time ranges and whether they are rolled up. */
export async function listSegments(
  db: Database,
  store: SegmentStore,
  scope: ReadScope,
  fromNs: bigint | null,
  toNs: bigint | null,
): Promise<ListedSegment[]> {
  return inScope(await appSegments(db, scope.tenantId, scope.appId), scope, fromNs, toNs).map((s) => ({
    id: s.id,
    path: store.readPath(s.path),
    formatVersion: s.formatVersion,
    minStartNs: s.minStartNs,
    maxStartNs: s.maxStartNs,
    rolledUp: s.rolledUp,
  }));
}

function inScope(
  all: readonly CachedSegment[],
  scope: ReadScope,
  fromNs: bigint | null,
  toNs: bigint | null,
): CachedSegment[] {
  return all.filter(
    (s) =>
      (scope.environmentId === null || s.environmentId === null || s.environmentId === scope.environmentId) &&
      (fromNs === null || s.maxStartNs >= fromNs) &&
      (toNs === null || s.minStartNs < toNs),
  );
}

/**
 * The live segments of a scope that may hold span `spanId`, in start order (as `segmentsFor`): every
 * file but those whose span id filter rules the id out (spanIdFilter.ts).
 */
export async function segmentsMayHold(
  db: Database,
  store: SegmentStore,
  scope: ReadScope,
  spanId: string,
): Promise<SegmentFile[]> {
  const all = await appSegments(db, scope.tenantId, scope.appId);
  const filters = await spanIdFilters(
    db,
    store,
    `${scope.tenantId}/${scope.appId}`,
    all.map((s) => s.path),
  );
  const probe = spanIdProbe(spanId);
  return inScope(all, scope, null, null)
    .filter((s) => {
      const filter = filters.get(s.path);
      return !filter || mayHoldSpan(filter, probe);
    })
    .map((s) => ({ path: store.readPath(s.path), formatVersion: s.formatVersion }));
}

/**
 * The span id filters of each app's segment files by path (null: the file has none), kept by the
 * thread that owns the database. A file's filter never changes, so it is read once: the first
 * lookup after a compaction reads the new file's, and paths no longer live are dropped then.
 * Loaded on an app's first lookup, not with its segment lists (read again after every commit): they
 * take about a byte a span.
 */
const filterCache = new WeakMap<Database, Map<string, Map<string, Uint8Array | null>>>();

async function spanIdFilters(
  db: Database,
  store: SegmentStore,
  app: string,
  paths: readonly string[],
): Promise<ReadonlyMap<string, Uint8Array | null>> {
  let apps = filterCache.get(db);
  if (!apps) filterCache.set(db, (apps = new Map()));
  let cached = apps.get(app);
  if (!cached) apps.set(app, (cached = new Map()));
  const missing = paths.filter((p) => !cached.has(p));
  if (missing.length === 0) return cached;
  const read = await Promise.all(missing.map(async (p) => [p, await store.readSpanFilter(p)] as const));
  const live = new Set(paths);
  for (const path of cached.keys()) if (!live.has(path)) cached.delete(path);
  for (const [path, filter] of read) cached.set(path, filter);
  return cached;
}

/** The paths whose span id filters the cache holds for an app, sorted (what the cache keeps, for its tests). */
export function cachedSpanIdFilterPaths(db: Database, tenantId: string, appId: string): string[] {
  return [...(filterCache.get(db)?.get(`${tenantId}/${appId}`)?.keys() ?? [])].sort();
}

/** The format's columns, in order. */
const FORMAT_COLUMNS = SPAN_COLUMNS.map(([name]) => name).join(', ');

/**
 * A relation of span rows over `files` (SQL text, for a FROM clause): the format's columns and no
 * others, as stored (`attributes` without the keys a column holds: see attributeColumns.ts). No
 * files: the empty span schema.
 *
 * DuckDB would otherwise read the Hive layout's `tenant=`, `app=`, `date=` directories as three more
 * columns: compaction's `SELECT *` copied them into the files of early builds (they are
 * still in those files, and the explicit list leaves them out), and detecting them slows every
 * trace read (native-bench/RESULTS.md, "Figures behind the code").
 *
 * Readers by format version: version 1 files lack `attributes_in_columns` (read as null: no key left
 * out); a list mixing versions is read by column name.
 */
export function spansFrom(files: readonly SegmentFile[]): string {
  if (files.length === 0) return '(SELECT * FROM span_schema WHERE false)';
  const unknown = files.find((f) => !READABLE_FORMAT_VERSIONS.includes(f.formatVersion));
  if (unknown)
    throw new Error(
      `segment format ${unknown.formatVersion} is not readable by this version of Tracelake (${unknown.path})`,
    );
  const older = files.filter((f) => f.formatVersion === 1).length;
  const list = files.map((f) => quote(f.path)).join(', ');
  if (older === 0) return `(SELECT ${FORMAT_COLUMNS} FROM read_parquet([${list}], hive_partitioning = false))`;
  if (older === files.length)
    return `(SELECT ${FORMAT_COLUMNS} FROM (SELECT *, NULL::INTEGER AS attributes_in_columns FROM read_parquet([${list}], hive_partitioning = false)))`;
  return `(SELECT ${FORMAT_COLUMNS} FROM read_parquet([${list}], hive_partitioning = false, union_by_name = true))`;
}

/**
 * Deletes segment files that no manifest row names: files published by a writer that crashed
 * before its commit, or by a compaction that did not commit. Run at start, before anything writes.
 * With `setAsideIn` (the WAL was found damaged) they are moved there instead of deleted.
 */
export async function sweepOrphans(
  db: Database,
  store: SegmentStore,
  setAsideIn: string | null = null,
): Promise<number> {
  store.clearTemps();
  // Before the manifest exists (a store older than segments) no file can be known.
  const [table] = await db.query<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'segments'`,
  );
  const known = new Set(
    table?.n ? (await db.query<{ path: string }>('SELECT path FROM segments')).map((r) => r.path) : [],
  );
  let removed = 0;
  for (const key of store.keys()) {
    if (known.has(key)) continue;
    // After a damaged WAL the manifest itself may have lost rows: keep the files for the operator.
    if (setAsideIn) await store.setAside(key, setAsideIn);
    else await store.remove(key);
    removed++;
  }
  return removed;
}

export function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

export interface SpanKeys {
  scope: { tenantId: string; appId: string; environmentId: string };
  traceIds: string[];
  spanIds: string[];
}

/** `SpanKeys` as the admission index's words: `ID_WORDS` a span, its trace id's four, then its span id's two. */
export interface SpanKeyWords {
  scope: SpanKeys['scope'];
  words: Int32Array;
}

/** A hex id's `count` words of eight digits, each as an unsigned integer (null when not hex). */
const wordsOf = (column: string, count: number) =>
  Array.from({ length: count }, (_, k) => `try_cast('0x' || substr(${column}, ${k * 8 + 1}, 8) AS UINTEGER)`).join(
    ', ',
  );

/**
 * The ids of the most recent spans of segments committed since `sinceMs` (at most `limit`), by
 * scope: at start, so that a client re-sending a request whose answer the crash lost is recognised
 * even when its spans already reached a segment. DuckDB splits the ids into the admission index's
 * words: a string for each of a million ids was most of a large store's start.
 */
export async function recentSpanKeys(
  db: Database,
  store: SegmentStore,
  sinceMs: number,
  limit: number,
): Promise<SpanKeyWords[]> {
  const recent = await db.query<{
    path: string;
    rows: number;
    format_version: number;
    tenant_id: string;
    app_id: string;
    environment_id: string | null;
  }>(
    `SELECT path, rows::DOUBLE AS rows, format_version, tenant_id::VARCHAR AS tenant_id, app_id::VARCHAR AS app_id,
            environment_id::VARCHAR AS environment_id
       FROM segments
      WHERE replaced_at IS NULL AND created_at >= make_timestamp($1::BIGINT * 1000)
      ORDER BY max_start_ns DESC, id DESC`,
    [Math.trunc(sinceMs)],
  );
  // The files with the newest spans, until they hold `limit` rows: ordering every recent span by
  // its start sorted them all, which made a large store's start slow and its memory peak high
  // (native-bench/RESULTS.md, "Figures behind the code"). Among those files the newest spans win; a
  // span only older files hold may be left out (the files' time ranges overlap), which costs a
  // re-sent span its recognition, not a loss.
  const byScope = new Map<
    string,
    { scope: { tenantId: string; appId: string; environmentId: string | null }; files: typeof recent }
  >();
  let rows = 0;
  for (const f of recent) {
    if (rows >= limit) break;
    rows += f.rows;
    // A segment holds one scope's spans.
    const scope = { tenantId: f.tenant_id, appId: f.app_id, environmentId: f.environment_id };
    const key = `${scope.tenantId}/${scope.appId}/${scope.environmentId}`;
    let group = byScope.get(key);
    if (!group) byScope.set(key, (group = { scope, files: [] }));
    group.files.push(f);
  }
  const keys = new Map<string, SpanKeyWords & { n: number }>();
  for (const { scope, files } of byScope.values()) {
    const capacity =
      Math.min(
        limit,
        files.reduce((n, f) => n + f.rows, 0),
      ) * ID_WORDS;
    // A segment a migration listed holds every environment of its app (its row says none): the
    // environment is read with each span there.
    const mixed = scope.environmentId === null;
    // A span without an environment (stored before there were any) is keyed with an empty one,
    // which no request's scope matches.
    const into = (environmentId: string) => {
      const key = `${scope.tenantId}/${scope.appId}/${environmentId}`;
      let k = keys.get(key);
      if (!k) keys.set(key, (k = { scope: { ...scope, environmentId }, words: new Int32Array(capacity), n: 0 }));
      return k;
    };
    // Ids that are not lowercase hex (none the server stores) are left out rather than hashed here.
    await db.streamColumns(
      `SELECT ${wordsOf('trace_id', 4)}, ${wordsOf('span_id', 2)}${mixed ? ', environment_id::VARCHAR' : ''}
         FROM ${spansFrom(files.map((f) => ({ path: store.readPath(f.path), formatVersion: f.format_version })))}
        WHERE regexp_full_match(trace_id, '[0-9a-f]{32}') AND regexp_full_match(span_id, '[0-9a-f]{16}')
        ORDER BY start_ns DESC LIMIT ${Math.trunc(limit)}`,
      [],
      (columns, count) => {
        let k = into(scope.environmentId ?? '');
        for (let i = 0; i < count; i++) {
          if (mixed) k = into((columns[ID_WORDS]![i] as string | null) ?? '');
          // A migrated segment's environment may also have segments of its own: room grows then.
          if (k.n + ID_WORDS > k.words.length) {
            const grown = new Int32Array(Math.max(2 * k.words.length, k.n + ID_WORDS));
            grown.set(k.words);
            k.words = grown;
          }
          for (let w = 0; w < ID_WORDS; w++) k.words[k.n++] = (columns[w]![i] as number) | 0;
        }
      },
    );
  }
  return [...keys.values()].filter((k) => k.n > 0).map((k) => ({ scope: k.scope, words: k.words.subarray(0, k.n) }));
}

/**
 * Reads the footer of every live segment (created since `sinceMs`, when given) once at start: a
 * file that cannot be read — truncated, overwritten, gone — would fail every search over its time
 * range, and the start itself, which reads the recent ones. Such a file
 * is moved to `setAsideIn` and its manifest row dropped, so reads go on without it; the caller
 * reports what was set aside (the spans in it are unreadable until an operator restores the file).
 */
export async function verifySegments(
  db: Database,
  store: SegmentStore,
  setAsideIn: string,
  sinceMs: number | null = null,
): Promise<{ path: string; rows: number; error: string }[]> {
  const live = await db.query<{ id: number; path: string; rows: number }>(
    `SELECT id::DOUBLE AS id, path, rows::DOUBLE AS rows FROM segments
      WHERE replaced_at IS NULL ${sinceMs === null ? '' : 'AND created_at >= make_timestamp($1::BIGINT * 1000)'} ORDER BY id`,
    sinceMs === null ? [] : [Math.trunc(sinceMs)],
  );
  const damaged: { path: string; rows: number; error: string }[] = [];
  for (const s of live) {
    try {
      await db.query(`SELECT count(*) AS n FROM parquet_metadata(${quote(store.readPath(s.path))})`);
    } catch (e) {
      const error = (e as Error).message;
      // Only the file's own damage; a dead database is another matter (its own error path).
      if (/FATAL|invalidated/i.test(error)) throw e;
      damaged.push({ path: s.path, rows: s.rows, error });
      await store.setAside(s.path, setAsideIn).catch(() => undefined);
      await db.transaction(async (tx) => {
        await tx.exec('DELETE FROM span_rollups WHERE segment_id = $1', [Math.trunc(s.id)]);
        await tx.exec('DELETE FROM segments WHERE id = $1', [Math.trunc(s.id)]);
      });
    }
  }
  if (damaged.length > 0) forgetSegments(db);
  return damaged;
}
