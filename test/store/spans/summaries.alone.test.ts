/**
 * The segment store against a real DuckDB, without HTTP: generations written as Parquet segments by
 * the worker-side buffer and committed by the store; trace summaries merged from parts give the same
 * answer whether read from parts, from merged rows, or from a mix; a committed generation commits
 * once; a trace read answers the same whatever its trace hint says, and the store's hints are filled
 * from what it holds and kept up by its commits; a span opened by id alone is the latest of that id,
 * read from the files whose span id filters do not rule it out.
 */
import { createHash } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { mapExportRequest } from '../../../src/core/otlp/map.js';
import { toRows } from '../../../src/ingest/rows.js';
import { SummaryParts } from '../../../src/ingest/summaryParts.js';
import type { GenerationReport } from '../../../src/store/spans/generation.js';
import { Database } from '../../../src/store/db.js';
import { DATABASE_FILE, storeDirs } from '../../../src/store/layout.js';
import { migrate } from '../../../src/store/migrate.js';
import { compactOnce, purgeReplaced } from '../../../src/store/spans/compaction.js';
import { FileEngine } from '../../../src/store/spans/fileEngine.js';
import {
  cachedSpanIdFilterPaths,
  commitGenerations,
  quote,
  segmentsFor,
  segmentsMayHold,
} from '../../../src/store/spans/manifest.js';
import { settledScope, spanDetail, traceSpans, traceWithSpans, tracesWhere } from '../../../src/store/spans/reads.js';
import type { ReadScope } from '../../../src/store/scope.js';
import { searchTraces } from '../../../src/store/spans/search.js';
import { SegmentBuffer } from '../../../src/store/spans/segmentBuffer.js';
import { LocalSegmentStore, spanFilterKey } from '../../../src/store/spans/segmentStore.js';
import { mergeParts, reclaimSummaryBlocks } from '../../../src/store/spans/summaryMerge.js';
import { traceKeySql, traceSummariesSql } from '../../../src/store/spans/traceParts.js';
import { advanceSettledKeys, SETTLE_AFTER_NS, settledKeys } from '../../../src/store/spans/settledKeys.js';
import { scopeSql } from '../../../src/store/scope.js';
import { DEFAULT_TRACE_HINT_SLOTS, TraceHints } from '../../../src/store/spans/traceHintTable.js';
import { hintsFilled, setTraceHintSlots, traceHints } from '../../../src/store/spans/traceHints.js';
import { lookupResources } from '../../../src/store/scores/resources.js';
import { exportRequest, hex, type SpanSpec } from '../../helpers/otlp.js';
import { tempDir } from '../../helpers/server.js';
import { mergedTraces } from '../../helpers/summaries.js';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const read: ReadScope = { ...scope };

/**
 * A store in a temporary directory, `write`: writes spans as one generation (one segment) and
 * reports it, as a compute worker would, and `commit`: writes and commits it, as the store would;
 * `startOffsetMs` moves the spans in time, `environmentId` puts them in another environment of the app,
 * `serviceName` names their resource.
 */
async function openStore(t: Test) {
  const dataDir = tempDir();
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '512MiB', queryTimeoutMs: 30_000 });
  const segments = new LocalSegmentStore(storeDirs(dataDir).segments);
  const buffer = await SegmentBuffer.open(segments.root);
  t.teardown(() => {
    buffer.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await migrate(db);
  let seq = 0;
  const write = async (
    specs: SpanSpec[],
    startOffsetMs = 0,
    environmentId = scope.environmentId,
    serviceName?: string,
  ): Promise<GenerationReport> => {
    const place = { ...scope, environmentId };
    const request = exportRequest(specs, serviceName);
    for (const s of request.resourceSpans[0]!.scopeSpans[0]!.spans) {
      s.startTimeUnixNano = String(BigInt(s.startTimeUnixNano) + BigInt(startOffsetMs) * 1_000_000n);
      s.endTimeUnixNano = String(BigInt(s.endTimeUnixNano) + BigInt(startOffsetMs) * 1_000_000n);
    }
    const { rows, resources } = toRows(place, mapExportRequest(request).spans);
    const parts = new SummaryParts();
    parts.add(rows);
    const cell = await buffer.cell();
    buffer.append(cell, rows);
    const temp = segments.tempPath();
    const written = await buffer.write(cell, place, temp);
    const date = new Date(Number(written.minStartNs / 1_000_000n)).toISOString().slice(0, 10);
    const key = await segments.publish(temp, { ...place, date, name: `test-${++seq}` });
    const report: GenerationReport = {
      workerId: 'w',
      seq,
      log: `w-${seq}.log`,
      segments: [
        {
          key,
          ...place,
          date,
          rows: written.rows,
          bytes: segments.size(key),
          minStartNs: written.minStartNs,
          maxStartNs: written.maxStartNs,
        },
      ],
      parts: parts.rows(),
      resources: resources.map((r) => ({ ...r, ...place })),
      blobs: [],
      usage: [{ tenantId: scope.tenantId, spans: rows.length, bytes: 1 }],
      bodyBytes: 1,
      skippedRecords: 0,
    };
    return report;
  };
  const commit = async (
    specs: SpanSpec[],
    startOffsetMs = 0,
    environmentId = scope.environmentId,
  ): Promise<GenerationReport> => {
    const report = await write(specs, startOffsetMs, environmentId);
    await commitGenerations(db, segments, [report]);
    return report;
  };
  return { db, dataDir, segments, src: { db, segments }, write, commit };
}

/** The latest 10 traces of all time in `scope`, as `GET /v1/traces` lists them. */
function latestTraces(src: { db: Database; segments: LocalSegmentStore }, scope: ReadScope) {
  const q = { scope, fromMs: 0, toMs: Date.now() + 60_000, limit: 10, offset: 0 };
  return searchTraces(src, { ...q, sortBy: 'start', sortOrder: 'desc', format: 'json' }, []);
}

t.test('summaries: parts, merged rows and a mix answer the same', async (t) => {
  const { db, segments, src, commit } = await openStore(t);

  const traceId = hex(16);
  const root = hex(8);
  // Three generations, out of order: children first (the earliest spans), then the root, then an error.
  await commit(
    [
      {
        traceId,
        parentSpanId: root,
        name: 'child-a',
        attributes: { 'tracelake.cost': 0.25, 'session.id': 's-1', 'tracelake.tags': 'x' },
      },
      { traceId, parentSpanId: root, name: 'child-b' },
    ],
    -5000,
  );
  const summaryOf = async () => (await traceWithSpans(src, read, traceId))!.trace;
  const fromFirstPart = await summaryOf();
  t.equal(fromFirstPart.name, 'child-a', 'with the root not yet received, the earliest span names the trace');
  t.equal(fromFirstPart.span_count, 2);

  await mergeParts(db);
  await commit([{ traceId, spanId: root, name: 'root', attributes: { 'user.id': 'u-1', 'tracelake.tags': 'y' } }], 0);
  const mixed = await summaryOf();
  const errorReport = await commit(
    [{ traceId, parentSpanId: root, name: 'failing', attributes: { 'tracelake.cost': 0.5 } }],
    2000,
  );
  await db.exec(`UPDATE trace_parts SET has_error = 1, has_ok = 0 WHERE seq = (SELECT max(seq) FROM trace_parts)`);
  const unmerged = await summaryOf();
  const list = () => latestTraces(src, read);
  t.equal(await settledScope(db, read), false, 'parts wait');
  const listUnmerged = await list();
  await mergeParts(db);
  const merged = await summaryOf();
  t.equal(await settledScope(db, read), true, 'none wait: lists read the merged rows alone');
  const listMerged = await list();
  t.same(listMerged, listUnmerged, 'a list answers the same from parts and merged rows as from merged rows alone');
  t.match(listMerged, {
    kind: 'json',
    total: 1,
    data: [{ id: traceId, name: 'root', span_count: 4, status: 'ERROR' }],
  });

  t.equal(mixed.name, 'root', 'a merged row plus a newer part: the root wins');
  t.same(merged, unmerged, 'the same summary before and after the background merge');
  t.equal(merged.name, 'root');
  t.equal(merged.status, 'ERROR');
  t.equal(merged.span_count, 4);
  t.equal(merged.cost, 0.75);
  t.same(merged.tags, ['x', 'y']);
  t.equal(merged.session_id, 's-1');
  t.equal(merged.user_id, 'u-1');
  t.equal(merged.start, fromFirstPart.start, 'start is the earliest span (of the first part)');
  t.ok(Date.parse(merged.end) > Date.parse(mixed.end), 'end is the latest span end (of the last part)');

  const spans = await traceSpans(src, read, traceId);
  t.same(
    spans.map((s) => s.name),
    ['child-a', 'child-b', 'root', 'failing'],
    'the spans of all three segments, by start',
  );
  t.equal((await segmentsFor(db, segments, read, null, null)).length, 3);

  const [{ n: partsBefore } = { n: -1 }] = await db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM segments');
  await commitGenerations(db, segments, [errorReport]);
  const [{ n: partsAfter } = { n: -1 }] = await db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM segments');
  t.equal(partsAfter, partsBefore, 'committing a generation again changes nothing');
  t.equal((await traceSpans(src, read, traceId)).length, 4);

  const session = await tracesWhere(db, read, 'session_id', 's-1', 10, 0);
  t.same(
    session.data.map((x) => x.id),
    [traceId],
  );
  t.equal(
    await traceWithSpans(src, { ...read, environmentId: '00000000-0000-4000-8000-000000000009' }, traceId),
    null,
    'another environment sees nothing',
  );
  t.equal(
    await traceWithSpans(src, { ...read, appId: '00000000-0000-4000-8000-000000000009' }, traceId),
    null,
    'another app sees nothing',
  );
});

t.test("a root without previews: the trace takes its earliest model call's, across parts and merges", async (t) => {
  const { db, src, commit } = await openStore(t);
  const traceId = hex(16);
  const root = hex(8);
  const model = { 'gen_ai.request.model': 'gpt-4o' };
  await commit(
    [
      {
        traceId,
        parentSpanId: root,
        name: 'second call',
        attributes: { ...model, 'input.value': 'second', 'output.value': 'two' },
      },
    ],
    2000,
  );
  await mergeParts(db);
  await commit(
    [
      { traceId, spanId: root, name: 'app' },
      { traceId, parentSpanId: root, name: 'tool', attributes: { 'input.value': 'not a model call' } },
    ],
    0,
  );
  await commit(
    [
      {
        traceId,
        parentSpanId: root,
        name: 'first call',
        attributes: { ...model, 'input.value': 'first', 'output.value': 'one' },
      },
    ],
    1000,
  );
  const summaryOf = async () => (await traceWithSpans(src, read, traceId))!.trace;
  const unmerged = await summaryOf();
  t.match(unmerged, { name: 'app', input_preview: 'first', output_preview: 'one' }, 'a merged row and two parts');
  await mergeParts(db);
  t.same(await summaryOf(), unmerged, 'the same once merged');
  const withInput = hex(16);
  await commit(
    [
      { traceId: withInput, name: 'app', attributes: { 'input.value': 'asked' } },
      { traceId: withInput, name: 'call', attributes: { ...model, 'input.value': 'prompt', 'output.value': 'answer' } },
    ],
    0,
  );
  t.match(
    (await traceWithSpans(src, read, withInput))!.trace,
    { input_preview: 'asked', output_preview: 'answer' },
    "the root's own preview wins; what it lacks comes from the model call",
  );
});

t.test("a merged row keeps its best candidate's start only when it is not the trace's start", async (t) => {
  const { db, src, commit } = await openStore(t);
  const traceId = hex(16);
  const [a, b] = [hex(8), hex(8)];
  const stored = async () =>
    (
      await db.query<{ best_s: string | null; start_ns: string }>(
        'SELECT best_s::VARCHAR AS best_s, start_ns::VARCHAR AS start_ns FROM traces WHERE trace_id = $1',
        [traceId],
      )
    )[0]!;
  const name = async () => (await traceWithSpans(src, read, traceId))!.trace.name;
  const rootA = (await commit([{ traceId, spanId: a, name: 'root a' }], 0)).segments[0]!.minStartNs;
  await mergeParts(db);
  t.equal((await stored()).best_s, null, 'the root started with the trace: its start is not stored again');
  // Offsets of a minute and half a minute: far more than the time between the commits.
  await commit([{ traceId, parentSpanId: a, name: 'early child' }], -60_000);
  await mergeParts(db);
  const afterChild = await stored();
  t.ok(BigInt(afterChild.start_ns) < rootA, 'a child started earlier: the trace starts with it');
  t.equal(afterChild.best_s, String(rootA), 'and the root keeps its own start');
  t.equal(await name(), 'root a');
  await commit([{ traceId, spanId: b, name: 'root b' }], -30_000);
  await mergeParts(db);
  t.equal(await name(), 'root b', 'a second root that started before the first, after the child, names the trace');
  t.not((await stored()).best_s, null, "and its start is kept, not the child's");
});

t.test('a group commit stores each generation of the group once, as commits one by one would', async (t) => {
  const { db, segments, src, write, commit } = await openStore(t);
  const [a, b, c] = [hex(16), hex(16), hex(16)];
  const before = await commit([{ traceId: a, name: 'before' }]);
  // Three generations and one committed already (a retry after a lost answer), in one group; two in
  // another environment; all of one tenant and one resource.
  const first = await write(
    [
      { traceId: b, name: 'b1' },
      { traceId: b, name: 'b2' },
    ],
    1000,
  );
  const second = await write([{ traceId: b, name: 'b3' }], 2000, '00000000-0000-4000-8000-000000000004');
  const third = await write([{ traceId: c, name: 'c1' }], 3000);
  await commitGenerations(db, segments, [first, before, second, third]);
  await commitGenerations(db, segments, []);

  const count = async (sql: string) =>
    (await db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${sql}`))[0]!.n;
  t.equal(await count('segments'), 4, 'a manifest row a segment, none twice');
  t.equal(await count('committed_logs'), 4, 'every log named once');
  t.equal(await count('resources'), 1, 'one resource, named by every generation');
  const [usage] = await db.query<{ spans: number; bytes: number }>(
    'SELECT spans::INTEGER AS spans, bytes::INTEGER AS bytes FROM tenant_usage',
  );
  t.same(usage, { spans: 5, bytes: 4 }, "the tenant's usage: each generation counted once");
  const seqs = await db.query<{ log: string; seq: number }>(
    `SELECT DISTINCT CASE WHEN trace_id = '${a}' THEN 'before' WHEN environment_id = '00000000-0000-4000-8000-000000000004' THEN 'second' WHEN trace_id = '${b}' THEN 'first' ELSE 'third' END AS log, seq::INTEGER AS seq
       FROM trace_parts ORDER BY seq`,
  );
  t.same(
    seqs.map((r) => r.log),
    ['before', 'first', 'second', 'third'],
    'a sequence number a generation, rising in the order of the group',
  );
  t.equal(new Set(seqs.map((r) => r.seq)).size, 4);
  t.same(
    (await traceSpans(src, read, b)).map((s) => s.name),
    ['b1', 'b2'],
    "b's spans in its first environment",
  );
  t.same(
    (await traceSpans(src, { ...read, environmentId: null }, b)).map((s) => s.name),
    ['b3'],
    'and, unpinned, the one that started last: the second',
  );
  t.same(
    (await traceSpans(src, read, c)).map((s) => s.name),
    ['c1'],
  );

  // The resource is known now: a generation naming it and a new one stores the new one.
  await commitGenerations(db, segments, [
    await write([{ traceId: hex(16) }], 4000),
    await write([{ traceId: hex(16) }], 5000, scope.environmentId, 'another-service'),
  ]);
  const services = await db.query<{ resource: string }>('SELECT resource FROM resources ORDER BY resource');
  t.equal(services.length, 2, 'a new resource beside a known one is stored');
  t.match(services.map((r) => r.resource).join(' '), /another-service/);
});

t.test('a trace is found by its 64-bit key, without an index on its id', async (t) => {
  const { db, segments, src, commit } = await openStore(t);
  // Two ids alike in their first 64 bits (one key), and one that is not.
  const prefix = hex(8);
  const [a, b, c] = [prefix + hex(8), prefix + hex(8), hex(16)];
  await commit([
    { traceId: a, name: 'a' },
    { traceId: b, name: 'b' },
    { traceId: c, name: 'c' },
  ]);
  await mergeParts(db);

  const indexes = await db.query<{ n: number }>(
    "SELECT count(*)::INTEGER AS n FROM duckdb_indexes() WHERE table_name = 'traces'",
  );
  t.equal(indexes[0]?.n, 0, 'no index on the summaries (it was most of the file)');
  const keys = await db.query<{ trace_id: string; trace_key: string }>(
    'SELECT trace_id, trace_key::VARCHAR AS trace_key FROM traces ORDER BY trace_id',
  );
  t.same(
    Object.fromEntries(keys.map((r) => [r.trace_id, r.trace_key])),
    Object.fromEntries([a, b, c].map((id) => [id, BigInt('0x' + id.slice(0, 16)).toString()])),
    'each merged row keeps the first 64 bits of its id',
  );
  for (const [id, name] of [
    [a, 'a'],
    [b, 'b'],
    [c, 'c'],
  ] as const)
    t.equal(
      (await traceWithSpans(src, read, id))?.trace.name,
      name,
      `trace ${name} by id: its own row, its key shared or not`,
    );
  t.equal(await traceWithSpans(src, read, prefix + '0'.repeat(16)), null, 'a key alone does not make a trace');
  t.equal(await traceWithSpans(src, read, 'not-hex'), null, 'an id that is not hex has no key and finds nothing');
  const found = await lookupResources(
    db,
    segments,
    read,
    [a, b, c, 'f'.repeat(32)].map((resourceId) => ({ resourceId, resourceKind: 'trace' as const, sessionId: null })),
  );
  t.same(
    [...found.traces.keys()].sort(),
    [a, b, c].sort(),
    'a batch of ids (scores and comments) finds its traces by their keys',
  );

  // An id that does not start with hex digits (no OTLP id is one; a row put in by hand can be) has key 0.
  await db.exec(
    `INSERT INTO trace_parts (tenant_id, app_id, environment_id, trace_id, start_ns, end_ns, best_r, best_s, best_name, cost, tokens, span_count, has_error, has_ok, tags)
     VALUES ($1, $2, $3, 'session-one', 1, 2, 0, 1, 'odd', 0, 0, 1, 0, 1, [])`,
    [scope.tenantId, scope.appId, scope.environmentId],
  );
  await mergeParts(db);
  t.same(
    await db.query("SELECT trace_key::VARCHAR AS k FROM traces WHERE trace_id = 'session-one'"),
    [{ k: '0' }],
    'key 0, not NULL',
  );
  t.equal((await traceWithSpans(src, read, 'session-one'))?.trace.name, 'odd', 'found by key 0 and its id');
  const again = await lookupResources(db, segments, read, [
    { resourceId: 'session-one', resourceKind: 'trace', sessionId: null },
  ]);
  t.same([...again.traces.keys()], ['session-one']);
});

t.test('traces that share a key with a waiting one: lists and merges leave them as they were', async (t) => {
  const { db, src, commit } = await openStore(t);
  const other = '00000000-0000-4000-8000-000000000004';
  const prefix = hex(8);
  const [late, twin, elsewhere] = [prefix + hex(8), prefix + hex(8), hex(16)];
  // Merged first: a trace, its twin (the same key), the late trace's id in another environment, and
  // two ids that are not hex (key 0: no OTLP id is one; a row put in by hand can be).
  await commit([
    { traceId: late, name: 'late' },
    { traceId: twin, name: 'twin' },
  ]);
  await commit([{ traceId: late, name: 'late elsewhere' }], 0, other);
  await commit([{ traceId: elsewhere, name: 'elsewhere' }], 1000, other);
  const odd = (id: string, name: string, startNs: number) =>
    db.exec(
      `INSERT INTO trace_parts (tenant_id, app_id, environment_id, trace_id, start_ns, end_ns, best_r, best_s, best_name, cost, tokens, span_count, has_error, has_ok, tags)
       VALUES ($1, $2, $3, $4, $5, $5 + 1, 0, $5, $6, 0, 0, 1, 0, 1, [])`,
      [scope.tenantId, scope.appId, scope.environmentId, id, BigInt(startNs) * 1_000_000n, name],
    );
  await odd('odd-one', 'odd one', Date.now() - 5000);
  await mergeParts(db);
  const rows = () =>
    db.query<Record<string, unknown>>(
      'SELECT environment_id::VARCHAR AS env, trace_id, trace_key::VARCHAR AS k, start_ns::VARCHAR AS s, end_ns::VARCHAR AS e, best_name, span_count, tags FROM traces ORDER BY trace_id, env',
    );
  const before = await rows();
  t.equal(before.length, 5);

  // Waiting: a late span of `late` in the first environment, and a second odd id.
  await commit([{ traceId: late, name: 'late child', parentSpanId: hex(8) }], 2000);
  await odd('odd-two', 'odd two', Date.now() - 4000);
  const list = (environmentId: string | null) => latestTraces(src, { ...read, environmentId });
  t.equal(await settledScope(db, read), false, 'parts wait');
  const waiting = { all: await list(null), first: await list(scope.environmentId), other: await list(other) };
  await mergeParts(db);
  t.equal(await settledScope(db, read), true);
  const merged = { all: await list(null), first: await list(scope.environmentId), other: await list(other) };
  t.same(waiting, merged, 'every list answers the same with parts waiting as from the merged rows alone');
  t.equal(merged.all.total, 6);
  const counts = Object.fromEntries(
    (merged.all.kind === 'json' ? merged.all.data : []).map((x) => [x.name, x.span_count]),
  );
  t.same(
    counts,
    { late: 2, twin: 1, 'late elsewhere': 1, elsewhere: 1, 'odd one': 1, 'odd two': 1 },
    'one summary a trace and environment, the late span in its own',
  );

  const after = await rows();
  const unchanged = (r: Record<string, unknown>) => !(r.trace_id === late && r.env === scope.environmentId);
  t.same(
    after.filter(unchanged).filter((r) => r.trace_id !== 'odd-two'),
    before.filter(unchanged),
    'the merge rewrote the late trace alone: its twin, its id elsewhere and the other key-0 row are as they were',
  );
  t.match(
    after.filter((r) => !unchanged(r)),
    [{ trace_id: late, best_name: 'late', span_count: 2 }],
    'the late trace: one row, its part folded in',
  );
  t.match(
    after.filter((r) => r.trace_id === 'odd-two'),
    [{ k: '0', best_name: 'odd two' }],
  );
});

t.test("a session's traces are found by a 64-bit key of the session, before and after the merge", async (t) => {
  const { db, segments, commit } = await openStore(t);
  const [a, b, c, other] = [hex(16), hex(16), hex(16), hex(16)];
  await commit([
    { traceId: a, name: 'a', attributes: { 'session.id': 'chat-1' } },
    { traceId: b, name: 'b', attributes: { 'session.id': 'chat-1' } },
    { traceId: other, name: 'other', attributes: { 'session.id': 'chat-2' } },
    { traceId: hex(16), name: 'none' },
  ]);
  const ids = async (session: string) =>
    (await tracesWhere(db, read, 'session_id', session, 10, 0)).data.map((x) => x.id).sort();
  t.same(await ids('chat-1'), [a, b].sort(), 'unmerged parts: found by their session');
  await mergeParts(db);
  const keys = await db.query<{ name: string; key: string }>(
    'SELECT best_name AS name, session_key::VARCHAR AS key FROM traces ORDER BY best_name',
  );
  const md5Key = (id: string) => BigInt('0x' + createHash('md5').update(id).digest('hex').slice(0, 16)).toString();
  t.same(
    keys,
    [
      { name: 'a', key: md5Key('chat-1') },
      { name: 'b', key: md5Key('chat-1') },
      { name: 'none', key: '0' },
      { name: 'other', key: md5Key('chat-2') },
    ],
    "each merged row keeps 64 bits of its session's MD5, 0 without a session",
  );
  t.same(await ids('chat-1'), [a, b].sort(), 'merged rows: found by the key, then the id');
  t.same(await ids('chat-2'), [other]);
  t.same(await ids('chat-3'), [], 'a session no trace names finds nothing');

  // A trace merged under one session that a newer part names too stays where its summary says.
  await commit([{ traceId: c, name: 'c', attributes: { 'session.id': 'chat-1' } }]);
  await commit([{ traceId: other, name: 'late', attributes: { 'session.id': 'chat-1' } }], 60_000);
  // What every summary says, read the long way (all of them, then their session compared).
  const named = async (session: string) =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM (${traceSummariesSql((x) => scopeSql(read, x).sql)}) WHERE session_id = $${scopeSql(read).params.length + 1} ORDER BY id`,
        [...scopeSql(read).params, session],
      )
    ).map((r) => r.id);
  const before = await ids('chat-1');
  t.same(before, await named('chat-1'), 'a part unmerged: the traces whose summary names the session');
  t.ok(before.includes(c), 'the new trace among them');
  await mergeParts(db);
  t.same(await ids('chat-1'), before, 'the same traces after its merge');
  t.same(await ids('chat-2'), await named('chat-2'));
  const scored = await lookupResources(db, segments, read, [
    { resourceId: null, resourceKind: null, sessionId: 'chat-1' },
    { resourceId: null, resourceKind: null, sessionId: 'chat-9' },
  ]);
  t.same([...scored.sessions.keys()], ['chat-1'], 'a score names a session that exists, found by its key');
  t.same(
    (await tracesWhere(db, { ...read, appId: '00000000-0000-4000-8000-000000000009' }, 'session_id', 'chat-1', 10, 0))
      .data,
    [],
    'another app sees nothing',
  );
});

t.test('a trace read answers the same whether its hint is current, missing, too wide or stale', async (t) => {
  const { db, src, commit } = await openStore(t);
  const traceId = hex(16);
  const [root, otherRoot] = [hex(8), hex(8)];
  const staging = '00000000-0000-4000-8000-000000000004';
  const early = await commit(
    [
      { traceId, spanId: root, name: 'root' },
      { traceId, parentSpanId: root, name: 'child' },
    ],
    -60_000,
  );
  const late = await commit([{ traceId, parentSpanId: root, name: 'late' }], 0);
  // The same id in another environment, started later, over a range that holds the first one's late span.
  const elsewhere = [
    await commit([{ traceId, spanId: otherRoot, name: 'staging root' }], -30_000, staging),
    await commit([{ traceId, parentSpanId: otherRoot, name: 'staging late' }], 5_000, staging),
  ];
  await commit([{ traceId: hex(16), name: 'another trace' }], -30_000);
  const noted = (reports: GenerationReport[]) => {
    const hints = new TraceHints(64);
    hints.noteParts(reports.flatMap((r) => r.parts));
    return hints;
  };
  // Made afresh for every read: a read corrects the stale hint it finds.
  const hintsOf: Record<string, () => TraceHints> = {
    current: () => noted([early, late, ...elsewhere]),
    missing: () => new TraceHints(64),
    'too wide': () => {
      const wide = new TraceHints(64);
      wide.noteSeconds(scope.tenantId, scope.appId, traceId, 0, 2 ** 32 - 1);
      return wide;
    },
    stale: () => noted([early]),
  };

  const unpinned: ReadScope = { ...read, environmentId: null };
  const expected = {
    pinned: await traceWithSpans(src, read, traceId),
    unpinned: await traceWithSpans(src, unpinned, traceId),
  };
  const expectedSpans = {
    pinned: await traceSpans(src, read, traceId),
    unpinned: await traceSpans(src, unpinned, traceId),
  };
  t.same(
    expected.pinned?.spans.map((s) => s.name),
    ['root', 'child', 'late'],
    'without hints: the trace of the pinned environment',
  );
  t.same(
    expected.unpinned?.spans.map((s) => s.name),
    ['staging root', 'staging late'],
    "unpinned: the trace that started last, without the other one's span in its range",
  );
  t.same(
    expectedSpans.unpinned.map((s) => s.name),
    ['staging root', 'staging late'],
  );
  const lateId = expected.pinned!.spans.find((s) => s.name === 'late')!.id;
  const expectedLate = await spanDetail(src, read, lateId, traceId);
  t.equal(expectedLate?.name, 'late', 'a span opened through its trace');
  t.equal(
    await spanDetail(src, unpinned, lateId, traceId),
    null,
    'unpinned, the trace is the one that started last, and the span is not one of its',
  );
  t.equal((await spanDetail(src, unpinned, otherRoot, traceId))?.name, 'staging root');
  // With the parts waiting, then merged: a read with a hint takes another statement in each case.
  for (const state of ['parts waiting', 'merged']) {
    if (state === 'merged') t.ok((await mergeParts(db)) > 0, 'the parts are merged');
    for (const [name, hints] of Object.entries(hintsOf)) {
      for (const [reader, scoped] of [
        ['pinned', read],
        ['unpinned', unpinned],
      ] as const) {
        t.same(
          await traceWithSpans({ ...src, hints: hints() }, scoped, traceId),
          expected[reader],
          `trace with spans, ${reader}, hint ${name}, ${state}`,
        );
        t.same(
          await traceSpans({ ...src, hints: hints() }, scoped, traceId),
          expectedSpans[reader],
          `its spans alone, ${reader}, hint ${name}, ${state}`,
        );
        t.same(
          await spanDetail({ ...src, hints: hints() }, scoped, lateId, traceId),
          reader === 'pinned' ? expectedLate : null,
          `a span opened, ${reader}, hint ${name}, ${state}`,
        );
      }
    }
  }
  const stale = hintsOf.stale!();
  await traceSpans({ ...src, hints: stale }, read, traceId);
  const corrected = stale.rangeOf(scope.tenantId, scope.appId, traceId)!;
  t.ok(
    corrected.fromNs <= early.parts[0]![4] && corrected.toNs >= late.parts[0]![5],
    'a stale hint is corrected by the read that found it stale',
  );
  t.equal(
    await traceWithSpans(
      { ...src, hints: hintsOf.current!() },
      { ...read, environmentId: '00000000-0000-4000-8000-000000000009' },
      traceId,
    ),
    null,
    'a hint does not show a trace outside the scope',
  );
});

t.test("the store's trace hints: filled from merged rows and parts, kept up by commits, off at 0 slots", async (t) => {
  t.teardown(() => setTraceHintSlots(DEFAULT_TRACE_HINT_SLOTS));
  setTraceHintSlots(0);
  const { db, commit } = await openStore(t);
  t.equal(traceHints(db), null, 'no table when hints are off; commits note nothing');
  const [merged, waiting, fresh] = [hex(16), hex(16), hex(16)];
  const mergedReports = [
    await commit([{ traceId: merged, name: 'm-1' }], -90_000),
    await commit([{ traceId: merged, name: 'm-2' }], -20_000),
  ];
  await mergeParts(db);
  const waitingReport = await commit([{ traceId: waiting, name: 'w' }], -10_000);
  const [{ n } = { n: -1 }] = await db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM trace_parts');
  t.equal(n, 1, 'one trace merged, one still a part');

  setTraceHintSlots(64);
  const hints = traceHints(db)!;
  t.equal(traceHints(db), hints, 'one table per database');
  await hintsFilled(db);
  const noted = (reports: GenerationReport[]) => {
    const expected = new TraceHints(64);
    expected.noteParts(reports.flatMap((r) => r.parts));
    return expected;
  };
  t.same(
    hints.rangeOf(scope.tenantId, scope.appId, merged),
    noted(mergedReports).rangeOf(scope.tenantId, scope.appId, merged),
    'a merged row: the range of all its parts',
  );
  t.same(
    hints.rangeOf(scope.tenantId, scope.appId, waiting),
    noted([waitingReport]).rangeOf(scope.tenantId, scope.appId, waiting),
    'a part not yet merged',
  );
  t.ok(hints.rangeOf(scope.tenantId, scope.appId, waiting), 'both hinted');

  const freshReport = await commit([{ traceId: fresh, name: 'f' }]);
  t.same(
    hints.rangeOf(scope.tenantId, scope.appId, fresh),
    noted([freshReport]).rangeOf(scope.tenantId, scope.appId, fresh),
    'a committed generation notes its traces at once',
  );
  t.ok(hints.rangeOf(scope.tenantId, scope.appId, fresh));
});

t.test(
  'a span by id without its trace: found in the newest file or an old one; of an id stored twice, the latest',
  async (t) => {
    const { src, commit } = await openStore(t);
    const DAY = 86_400_000;
    const [oldTrace, midTrace, newTrace, otherEnvTrace] = [hex(16), hex(16), hex(16), hex(16)];
    const [oldSpan, midSpan, newSpan, twice, elsewhere] = [hex(8), hex(8), hex(8), hex(8), hex(8)];
    // One file a generation: three days apart, the oldest committed last (the manifest's order is by start).
    await commit(
      [
        { traceId: newTrace, spanId: newSpan, name: 'new' },
        { traceId: newTrace, spanId: twice, parentSpanId: newSpan, name: 'twice, later' },
      ],
      0,
    );
    await commit([{ traceId: midTrace, spanId: midSpan, name: 'mid' }], -3 * DAY);
    await commit(
      [
        { traceId: oldTrace, spanId: oldSpan, name: 'old' },
        { traceId: oldTrace, spanId: twice, parentSpanId: oldSpan, name: 'twice, earlier' },
      ],
      -6 * DAY,
    );
    await commit(
      [{ traceId: otherEnvTrace, spanId: elsewhere, name: 'staging' }],
      -1 * DAY,
      '00000000-0000-4000-8000-000000000004',
    );
    t.equal(
      (await segmentsFor(src.db, src.segments, { ...read, environmentId: null }, null, null)).length,
      4,
      'four files',
    );

    for (const [spanId, name, traceId] of [
      [newSpan, 'new', newTrace],
      [midSpan, 'mid', midTrace],
      [oldSpan, 'old', oldTrace],
    ] as const) {
      t.match(await spanDetail(src, read, spanId), { id: spanId, name, trace_id: traceId }, `the ${name} one`);
    }
    t.match(
      await spanDetail(src, read, twice),
      { id: twice, name: 'twice, later', trace_id: newTrace },
      'an id in two traces: the one that started last',
    );
    t.equal(await spanDetail(src, read, elsewhere), null, "another environment's span, pinned");
    t.match(
      await spanDetail(src, { ...read, environmentId: null }, elsewhere),
      { id: elsewhere, name: 'staging' },
      'unpinned',
    );
    t.equal(await spanDetail(src, read, hex(8)), null, 'an id that no file holds');
  },
);

t.test(
  'a span by id without its trace reads only the compacted files its filter does not rule out; filters are built by compaction and by the migration',
  async (t) => {
    const { db, src, commit, segments } = await openStore(t);
    const DAY = 86_400_000;
    const all: ReadScope = { ...read, environmentId: null };
    // Fixed ids: which files a filter lets through is then the same every run.
    const spans = {
      new: 'b7ad6b7169203331',
      mid: '00f067aa0ba902b7',
      old: '53995c3f42cd8ad8',
      staging: '5fb397be34d26b51',
    };
    await commit(
      [
        { traceId: hex(16), spanId: spans.new, name: 'new' },
        { traceId: hex(16), spanId: 'e457b5a2e4d86bd1', name: 'new too' },
      ],
      0,
    );
    await commit([{ traceId: hex(16), spanId: spans.mid, name: 'mid' }], -3 * DAY);
    await commit([{ traceId: hex(16), spanId: spans.old, name: 'old' }], -6 * DAY);
    await commit(
      [{ traceId: hex(16), spanId: spans.staging, name: 'staging' }],
      -1 * DAY,
      '00000000-0000-4000-8000-000000000004',
    );
    const missing = '0123456789abcdef';
    t.equal(
      (await segmentsMayHold(db, segments, all, missing)).length,
      4,
      'ingested files have no filter: every one is read',
    );
    const ingested = (await db.query<{ path: string }>('SELECT path FROM segments ORDER BY path')).map((r) => r.path);
    t.same(
      cachedSpanIdFilterPaths(db, scope.tenantId, scope.appId),
      ingested,
      'the cache holds what the lookup read: the four files, without filters',
    );

    // Each file is a day of its own: compacted alone, into a file with a filter.
    const engine = await FileEngine.open(segments.root, '256MiB');
    t.teardown(() => engine.close());
    const policy = { targetRows: 1000, minFiles: 2, maxAgeMs: 0 };
    while ((await compactOnce(db, engine, segments, policy)) > 0);
    // A filter's length in bits: DuckDB's BIT bytes, the first one the count of padding bits.
    const live = async () =>
      Promise.all(
        (
          await db.query<{ path: string; level: number }>(
            'SELECT path, level FROM segments WHERE replaced_at IS NULL ORDER BY path',
          )
        ).map(async (s) => {
          const filter = await segments.readSpanFilter(s.path);
          return {
            ...s,
            filter: filter && Buffer.from(filter).toString('hex'),
            bits: filter && (filter.length - 1) * 8 - filter[0]!,
          };
        }),
      );
    const compacted = await live();
    t.same(
      compacted.map((s) => [s.level, s.bits]),
      Array(4).fill([1, 64]),
      'four compacted files, each with a filter of 64 bits beside it',
    );
    const filterColumns = async () =>
      (
        await db.query<{ n: number }>(
          "SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE table_name = 'segments' AND column_name = 'span_filter'",
        )
      )[0]?.n;
    t.equal(await filterColumns(), 0, 'and none in the manifest');

    for (const [name, spanId] of Object.entries(spans)) {
      const files = await segmentsMayHold(db, segments, all, spanId);
      t.equal(files.length, 1, `the ${name} span: one file to read`);
      t.match(await spanDetail(src, all, spanId), { id: spanId, name }, `and it is found there`);
    }
    t.equal(
      (await segmentsMayHold(db, segments, read, spans.staging)).length,
      0,
      "another environment's span, pinned: no file",
    );
    t.equal((await segmentsMayHold(db, segments, all, missing)).length, 0, 'an id no file holds: no file');
    const cached = cachedSpanIdFilterPaths(db, scope.tenantId, scope.appId);
    t.same(
      cached,
      compacted.map((s) => s.path),
      'the cache now holds the compacted files alone',
    );
    t.notOk(
      cached.some((p) => ingested.includes(p)),
      'the replaced files were dropped from it',
    );
    t.equal(await spanDetail(src, all, missing), null);

    // A store whose compacted files predate filters: migration 206 builds the same ones in the
    // manifest, and 210 moves them beside the files.
    for (const s of compacted) rmSync(join(segments.root, spanFilterKey(s.path)));
    t.same(
      (await live()).map((s) => s.filter),
      Array(4).fill(null),
      'with the files gone, no filter',
    );
    await db.exec('DELETE FROM schema_migrations WHERE version IN (206, 210)');
    t.same(await migrate(db), [206, 210], 'the migrations run');
    t.same(await live(), compacted, "the migrations' filters are the ones compaction built");
    t.equal(await filterColumns(), 0, 'and the manifest holds them no longer');

    // A filter goes with its file.
    await db.exec('UPDATE segments SET replaced_at = now()::TIMESTAMP WHERE replaced_at IS NULL');
    t.equal(
      await purgeReplaced(db, segments, 0),
      8,
      'the four files purged, with the four ingested ones they replaced',
    );
    for (const s of compacted) t.equal(await segments.readSpanFilter(s.path), null, `no filter left for ${s.path}`);
  },
);

t.test(
  'files written at ingest are Snappy, compacted files ZSTD, as docs/segments.md states; compaction reads the one into the other',
  async (t) => {
    const { db, src, commit, segments } = await openStore(t);
    const traceId = hex(16);
    await commit([{ traceId, spanId: hex(8), name: 'first' }]);
    await commit([{ traceId, spanId: hex(8), name: 'second' }]);
    // The codecs of the live files' column chunks (DuckDB's own reading of the Parquet footers), with
    // how many files there are.
    const codecs = async () => {
      const files = await segmentsFor(db, segments, read, null, null);
      const found = await db.query<{ codec: string }>(
        `SELECT DISTINCT compression AS codec FROM parquet_metadata([${files.map((f) => quote(f.path)).join(', ')}])`,
      );
      return { files: files.length, codecs: found.map((r) => r.codec) };
    };
    t.same(await codecs(), { files: 2, codecs: ['SNAPPY'] }, 'written at ingest: two files, Snappy');
    const engine = await FileEngine.open(segments.root, '256MiB');
    t.teardown(() => engine.close());
    t.equal(
      await compactOnce(db, engine, segments, { targetRows: 1000, minFiles: 2, maxAgeMs: 0 }),
      2,
      'the two compacted into one',
    );
    t.same(await codecs(), { files: 1, codecs: ['ZSTD'] }, 'compacted: one file, ZSTD');
    t.same(
      (await traceSpans(src, read, traceId)).map((s) => s.name),
      ['first', 'second'],
      'and read back whole',
    );
  },
);

t.test(
  'the summaries are rewritten into the free blocks their rewrites left, and the file shrinks; the rows stay as they were',
  async (t) => {
    const { db, dataDir } = await openStore(t);
    // Enough summaries for several blocks of 256 KiB, merged from parts as ingestion makes them; the
    // parts kept in memory, so the file has no holes yet.
    await mergedTraces(db, scope, 150_000, 0n, { partsInMemory: true });
    const file = join(dataDir, DATABASE_FILE);
    const blocks = async () =>
      (
        await db.query<{ total: number; free: number }>(
          'SELECT total_blocks::INTEGER AS total, free_blocks::INTEGER AS free FROM pragma_database_size() WHERE database_name = current_database()',
        )
      )[0]!;
    const rows = async () =>
      db.query<{ n: number; digest: string }>(
        "SELECT count(*)::INTEGER AS n, md5(string_agg(trace_id || start_ns || end_ns || best_name || cost || tokens || span_count || trace_key, ',' ORDER BY trace_id)) AS digest FROM traces",
      );
    t.equal(await reclaimSummaryBlocks(db), null, 'no holes yet: nothing to do');

    // A second span for every trace: the merge writes every summary again, the checkpoint puts the
    // new copy at the file's end, and the old one (with the parts, written this time) leaves holes
    // below it.
    await mergedTraces(db, scope, 150_000, 0n, { offsetNs: 10n });
    const holed = await blocks();
    const sizeHoled = statSync(file).size;
    const before = await rows();
    t.ok(holed.free >= 8, `the file has holes (${holed.free} of ${holed.total} blocks free)`);

    const done = await reclaimSummaryBlocks(db);
    t.same(done, { blocksBefore: holed.total, freeBefore: holed.free }, 'the summaries fit in the holes: rewritten');
    const after = await blocks();
    t.ok(after.total < holed.total, `the file's tail is cut: ${holed.total} → ${after.total} blocks`);
    t.ok(statSync(file).size < sizeHoled, 'smaller on disk');
    t.same(await rows(), before, 'the same summaries, once each');
    t.equal(before[0]!.n, 150_000);
    t.equal(await reclaimSummaryBlocks(db), null, 'the rewrite filled the holes: not again');
    const found = await traceWithSpans(
      { db, segments: new LocalSegmentStore(storeDirs(dataDir).segments) },
      read,
      md5Hex('42'),
    );
    t.equal(found?.trace.name, 'trace 42', 'a summary reads as before');

    // As many traces again: the table is now larger than the holes its appends leave, and a rewrite
    // would grow the file.
    await mergedTraces(db, scope, 150_000, 0n, { from: 150_000, partsInMemory: true });
    const grown = await blocks();
    t.ok(grown.free >= 8, `holes again (${grown.free} of ${grown.total} blocks free)`);
    t.equal(await reclaimSummaryBlocks(db), null, 'more than the holes hold: not rewritten');
    t.same(await blocks(), grown, 'the file as it was');
  },
);

/** The MD5 of `text` in hex (the trace ids of the test above). */
function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

t.test('traces whose merged rows start before the settled-keys cutoff: found through its filter', async (t) => {
  const { db, src, commit } = await openStore(t);
  const MINUTE = 60_000;
  const [old, recent, fresh, backfill, crossing, unknown] = [hex(16), hex(16), hex(16), hex(16), hex(16), hex(16)];
  // A trace's key is its id's first 16 hex digits (traceKeySql): the filter takes its two halves.
  const mayHave = (id: string) =>
    settledKeys(db)!.filter.mayHave(Number.parseInt(id.slice(0, 8), 16), Number.parseInt(id.slice(8, 16), 16));
  const rowsOf = async (id: string) =>
    (
      await db.query<{ n: number; spans: number }>(
        'SELECT count(*)::INTEGER AS n, sum(span_count)::INTEGER AS spans FROM traces WHERE trace_id = $1',
        [id],
      )
    )[0];
  await commit([{ traceId: old, name: 'old' }], -30 * MINUTE);
  await commit(
    [
      { traceId: recent, name: 'recent' },
      { traceId: crossing, name: 'crossing' },
    ],
    -5 * MINUTE,
  );
  await mergeParts(db);
  t.equal(settledKeys(db), null, 'no filter before the background work builds it: every key read');
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  await advanceSettledKeys(db, nowNs);
  t.equal(settledKeys(db)!.cutoffNs, nowNs - SETTLE_AFTER_NS, 'the cutoff, ten minutes behind now');
  t.ok(mayHave(old), 'a row before the cutoff: its key in the filter');
  t.notOk(mayHave(recent) || mayHave(fresh), 'rows after it, and traces never merged: not (or hardly ever)');

  // Late spans of the old and the recent trace, and a new trace, wait.
  await commit([{ traceId: old, name: 'old child', parentSpanId: hex(8) }], -29 * MINUTE);
  await commit([{ traceId: recent, name: 'recent child', parentSpanId: hex(8) }], -4 * MINUTE);
  await commit([{ traceId: fresh, name: 'fresh' }], 0);
  const waiting = await latestTraces(src, read);
  await mergeParts(db);
  t.same(await latestTraces(src, read), waiting, 'a list with parts waiting answers as the merged rows do');
  t.same(
    Object.fromEntries((waiting.kind === 'json' ? waiting.data : []).map((x) => [x.name, x.span_count])),
    { fresh: 1, recent: 2, crossing: 1, old: 2 },
    'each trace once, the late spans folded in',
  );
  t.same(
    [await rowsOf(old), await rowsOf(recent)],
    [
      { n: 1, spans: 2 },
      { n: 1, spans: 2 },
    ],
    'one merged row each',
  );

  // A trace first seen with spans before the cutoff: the merge puts its key in the filter.
  await commit([{ traceId: backfill, name: 'backfill' }], -60 * MINUTE);
  await mergeParts(db);
  t.ok(mayHave(backfill), 'the merge adds the key of a row it writes before the cutoff');
  await commit([{ traceId: backfill, name: 'backfill child', parentSpanId: hex(8) }], -59 * MINUTE);
  await mergeParts(db);
  t.same(await rowsOf(backfill), { n: 1, spans: 2 }, 'and its late span finds that row');

  // The cutoff moves past a row: its key joins the filter first.
  t.notOk(mayHave(crossing));
  await advanceSettledKeys(db, nowNs + 10n * BigInt(MINUTE) * 1_000_000n);
  t.ok(mayHave(crossing), 'a row the cutoff moved past: its key added');
  await commit([{ traceId: crossing, name: 'crossing child', parentSpanId: hex(8) }], -4 * MINUTE);
  await mergeParts(db);
  t.same(await rowsOf(crossing), { n: 1, spans: 2 });

  // The bound is what the merge reads by: a row before the cutoff that no one told the filter of
  // (put in by hand, as no writer does) is not looked for.
  await commit([{ traceId: unknown, name: 'unknown' }], -45 * MINUTE);
  await db.exec('DELETE FROM trace_parts WHERE trace_id = $1', [unknown]);
  await db.exec(
    `INSERT INTO traces (tenant_id, app_id, environment_id, trace_id, start_ns, end_ns, best_r, best_name, cost, tokens, span_count, has_error, has_ok, tags, trace_key, session_key)
     VALUES ($1, $2, $3, $4, $5, $5 + 1, 0, 'unknown', 0, 0, 1, 0, 1, [], ${traceKeySql('$4')}, 0)`,
    [scope.tenantId, scope.appId, scope.environmentId, unknown, BigInt(Date.now() - 45 * MINUTE) * 1_000_000n],
  );
  await commit([{ traceId: unknown, name: 'unknown child', parentSpanId: hex(8) }], -44 * MINUTE);
  await mergeParts(db);
  t.equal((await rowsOf(unknown))?.n, 2, 'two rows: the merge read the keys after the cutoff and the filter only');
});
