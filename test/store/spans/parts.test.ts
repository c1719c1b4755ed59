/**
 * Trace summary parts: what compute workers compute in JS while taking spans in equals what the
 * SQL of the store computes from the same rows (the migration of older stores and the benchmarks'
 * synthetic stores use the SQL).
 */
import t from 'tap';
import { DuckDBInstance } from '@duckdb/node-api';
import { mapExportRequest } from '../../../src/core/otlp/map.js';
import { toRows } from '../../../src/ingest/rows.js';
import { SummaryParts } from '../../../src/ingest/summaryParts.js';
import { SPAN_COLUMNS, SQL_TYPE } from '../../../src/store/spans/columns.js';
import { PART_COLUMNS, partsOfSpans } from '../../../src/store/spans/traceParts.js';
import { exportRequest, hex } from '../../helpers/otlp.js';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};

t.test('parts: JS while taking spans in = SQL over the stored rows', async (t) => {
  const a = hex(16);
  const b = hex(16);
  const c = hex(16);
  const rootA = hex(8);
  const d = hex(16);
  const e = hex(16);
  const rootE = hex(8);
  const long = 'x'.repeat(9000);
  const emojiInline = `${'😀'.repeat(300)}${'z'.repeat(300)}`; // 600 characters, 900 units, inline
  const emojiLong = `${'y'.repeat(499)}😀${'y'.repeat(9000)}`; // out of line, the pair straddling unit 500
  const request = exportRequest([
    {
      traceId: a,
      parentSpanId: rootA,
      name: 'child',
      attributes: {
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 3,
        'tracelake.tags': 'x',
        'session.id': 's-2',
        'tracelake.cost': 0.1,
        'tracelake.metadata.tier': 'silver',
      },
    },
    {
      traceId: a,
      spanId: rootA,
      name: 'root',
      attributes: {
        'session.id': 's-1',
        'input.value': 'hello',
        'output.value': long,
        'tracelake.cost': 0.2,
        'user.id': 'u',
        'tracelake.tags': 'y',
        'tracelake.metadata.tier': 'gold',
      },
    },
    {
      traceId: a,
      parentSpanId: rootA,
      name: 'later',
      attributes: { 'tracelake.run.id': 'r-1', 'tracelake.tags': 'x' },
    },
    { traceId: b, name: 'orphan-b', attributes: { 'user.id': 'u-2' } },
    { traceId: b, parentSpanId: hex(8), name: 'orphan-b2', attributes: { 'tracelake.metadata.tier': 'child' } },
    { traceId: c, name: 'only', attributes: { 'input.value': long } },
    // Previews count characters as SQL's left() does: a pair (an emoji) is one.
    { traceId: d, name: 'emoji', attributes: { 'input.value': emojiInline, 'output.value': emojiLong } },
    // An app span without input around two model calls: the earliest call's previews stand in.
    { traceId: e, spanId: rootE, name: 'app' },
    {
      traceId: e,
      parentSpanId: rootE,
      name: 'second call',
      attributes: { 'gen_ai.request.model': 'gpt-4o', 'input.value': 'second', 'output.value': 'two' },
    },
    {
      traceId: e,
      parentSpanId: rootE,
      name: 'first call',
      attributes: { 'gen_ai.request.model': 'gpt-4o', 'input.value': 'first', 'output.value': 'one' },
    },
  ]);
  const spans = request.resourceSpans[0]!.scopeSpans[0]!.spans as { status: { code: number }; events?: unknown[] }[];
  spans[2]!.status = { code: 2 };
  const at = (i: number, offsetNs: bigint) => {
    const span = spans[i] as unknown as { startTimeUnixNano: string };
    span.startTimeUnixNano = String(BigInt(span.startTimeUnixNano) + offsetNs);
  };
  // The helper starts each span 1 µs after the one before: the second call now starts after the first.
  at(8, 5_000n);
  spans[3]!.events = [{ name: 'an event', timeUnixNano: String(BigInt(Date.now()) * 1_000_000n) }];
  const { rows } = toRows(scope, mapExportRequest(request).spans);
  t.ok(
    rows.some((r) => r[SPAN_COLUMNS.findIndex(([n]) => n === 'type')] === 'EVENT'),
    'with an event row',
  );

  const js = new SummaryParts();
  js.add(rows.slice(0, 3));
  js.add(rows.slice(3));
  const fromJs = js.rows();

  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  t.teardown(() => {
    conn.closeSync();
    db.closeSync();
  });
  await conn.run(`CREATE TABLE spans (${SPAN_COLUMNS.map(([name, kind]) => `${name} ${SQL_TYPE[kind]}`).join(', ')})`);
  const appender = await conn.createAppender('spans');
  for (const row of rows) {
    for (const [i, [, kind]] of SPAN_COLUMNS.entries()) {
      const v = row[i];
      if (v === null) appender.appendNull();
      else if (kind === 'bigint') appender.appendBigInt(v as bigint);
      else if (kind === 'ubigint') appender.appendUBigInt(v as bigint);
      else if (kind === 'int') appender.appendInteger(v as number);
      else if (kind === 'double') appender.appendDouble(v as number);
      else if (kind === 'text_list')
        (v as string[]).length === 0 ? appender.appendNull() : appender.appendVarchar(`[${(v as string[]).join(',')}]`);
      else appender.appendVarchar(v as string);
    }
    appender.endRow();
  }
  appender.closeSync();
  const columns = PART_COLUMNS.map((c) =>
    c === 'tags'
      ? 'list_sort(tags) AS tags'
      : c === 'cost'
        ? 'cost::DOUBLE AS cost'
        : c === 'tokens'
          ? 'tokens::BIGINT::VARCHAR AS tokens'
          : `${c}::VARCHAR AS ${c}`,
  ).join(', ');
  const fromSql = (
    await conn.runAndReadAll(
      `SELECT ${columns} FROM (${partsOfSpans('spans')}) p(${PART_COLUMNS.join(', ')}) ORDER BY trace_id`,
    )
  ).getRowObjectsJson();

  const normal = (p: (string | number | bigint | string[] | null)[]) =>
    Object.fromEntries(
      PART_COLUMNS.map((c, i) => [
        c,
        c === 'tags' ? p[i] : c === 'cost' ? Number((p[i] as number).toFixed(12)) : p[i] === null ? null : String(p[i]),
      ]),
    );
  const expected = fromJs.map(normal).sort((x, y) => String(x.trace_id).localeCompare(String(y.trace_id)));
  const actual = fromSql.map((r) => ({ ...r, cost: Number(Number(r.cost).toFixed(12)), tags: r.tags ?? [] }));
  t.same(actual, expected, 'every column of every part');
  const partA = expected.find((p) => p.trace_id === a)!;
  t.equal(partA.best_name, 'root', 'the root names the trace');
  t.equal(partA.best_output_preview, 'x'.repeat(500), 'an out-of-line output has a stored preview');
  t.equal(partA.best_input_preview, 'hello', 'an inline input is its own preview');
  const partE = expected.find((p) => p.trace_id === e)!;
  t.same(
    [partE.best_name, partE.best_input_preview, partE.gen_input_preview, partE.gen_output_preview],
    ['app', null, 'first', 'one'],
    "an app root without input: the earliest model call's previews are kept beside it",
  );
  const partD = expected.find((p) => p.trace_id === d)!;
  t.equal(
    partD.best_input_preview,
    `${'😀'.repeat(300)}${'z'.repeat(200)}`,
    'an inline preview: 500 characters, as left() derives it',
  );
  t.equal(partD.best_output_preview, `${'y'.repeat(499)}😀`, 'a stored preview: 500 characters, the pair whole');
  t.equal(partA.session_id, 's-1', 'several sessions: the smallest id');
  t.equal(partA.has_error, '1');
  t.same(partA.tags, ['x', 'y']);
  t.equal(expected.find((p) => p.trace_id === b)!.span_count, '2', 'events are not spans');
  t.same(JSON.parse(partA.best_metadata as string), { tier: 'gold' }, "the root's metadata is the trace's");
  t.equal(
    expected.find((p) => p.trace_id === b)!.best_metadata,
    null,
    "a root without metadata gives the trace none, not a child's",
  );
});
