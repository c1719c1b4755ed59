/**
 * Every valid filter case compiled and run against a real DuckDB, over fixture tables with the
 * compiler's contract: `spans x` (the real span columns), a trace summary `t`, `scores s`. Invalid
 * SQL fails here instead of passing a string comparison; `expect` lists check the rows matched.
 */
import { DuckDBInstance, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import t, { type Test } from 'tap';
import {
  compileFilter,
  parseFilter,
  validateJsonFilters,
  type Filter,
  type Resource,
} from '../../../src/core/filter/index.js';
import { filterSql } from '../../../src/store/filterSql.js';
import { storedResourceId } from '../../../src/store/scores/scores.js';
import { SPAN_COLUMNS, SQL_TYPE } from '../../../src/store/spans/columns.js';
import { cases } from '../../core/filter/casesData.js';

const TENANT = '00000000-0000-4000-8000-000000000001';
const APP_A = '00000000-0000-4000-8000-00000000000a';
const APP_B = '00000000-0000-4000-8000-00000000000b';
const PROD_A = '00000000-0000-4000-8000-0000000000e1';
const STAGING_A = '00000000-0000-4000-8000-0000000000e2';
const PROD_B = '00000000-0000-4000-8000-0000000000e3';
const INJECTION = "'; DROP TABLE spans; --";

const ns = (iso: string, plusMs = 0, extraNs = 0n) => BigInt(Date.parse(iso) + plusMs) * 1_000_000n + extraNs;

type Span = Partial<Record<(typeof SPAN_COLUMNS)[number][0], DuckDBValue | string[] | object>> & { span_id: string };

function span(trace: string, app: string, env: string, start: bigint, durationMs: number, s: Span): Span {
  return {
    tenant_id: TENANT,
    app_id: app,
    environment_id: env,
    trace_id: trace,
    start_ns: start,
    end_ns: start + BigInt(durationMs) * 1_000_000n,
    type: 'SPAN',
    span_kind: 'function',
    status: 'UNSET',
    ...s,
  };
}

const T1 = ns('2026-01-10T00:00:00Z');
const T2 = ns('2026-01-12T08:00:00Z');
const T3 = ns('2026-01-15T00:00:00Z', 0, 123_456_789n);
const MS = 1_000_000n;

const SPANS: Span[] = [
  span('t1', APP_A, PROD_A, T1, 2000, {
    span_id: 's1a',
    name: 'chat',
    span_kind: 'agent',
    status: 'OK',
    service_name: 'api',
    session_id: 'sess-1',
    user_id: 'u1',
    tags: ['prod', 'beta'],
    metadata: { tier: 'gold', user_type: 'beta', n: 3 },
  }),
  span('t1', APP_A, PROD_A, T1 + 100n * MS, 1000, {
    span_id: 's1b',
    parent_id: 's1a',
    name: 'llm call',
    type: 'GENERATION',
    span_kind: 'llm',
    status: 'OK',
    model: 'gpt-4o-mini',
    prompt_name: 'greeting',
    service_name: 'api',
    input_tokens: 100,
    output_tokens: 20,
    tokens: 120,
    cost: 0.02,
    session_id: 'sess-1',
    user_id: 'u1',
    metadata: { tier: 'gold', flag: null },
    attributes: { 'tracelake.prompt.version': 3 },
  }),
  span('t2', APP_A, PROD_A, T2, 5000, {
    span_id: 's2a',
    name: 'rag-query',
    span_kind: 'agent',
    status: 'ERROR',
    service_name: 'worker',
    user_id: 'u2',
    tags: ['prod'],
    metadata: { tier: 'silver', note: 'it\'s "quoted" \\ back' },
  }),
  span('t2', APP_A, PROD_A, T2 + 10n * MS, 500, {
    span_id: 's2b',
    parent_id: 's2a',
    name: 'retrieve',
    span_kind: 'retrieval',
    status: 'OK',
    service_name: 'worker',
  }),
  span('t2', APP_A, PROD_A, T2 + 600n * MS, 4000, {
    span_id: 's2c',
    parent_id: 's2a',
    name: 'answer',
    type: 'GENERATION',
    span_kind: 'llm',
    status: 'ERROR',
    model: 'claude-3-5-sonnet',
    prompt_name: 'rag-answer',
    service_name: 'worker',
    input_tokens: 1000,
    output_tokens: 500,
    tokens: 1500,
    cost: 0.5,
    metadata: { tier: 'silver', percent: '50%_off' },
    attributes: { 'langfuse.observation.prompt.version': '2' },
  }),
  span('t2', APP_A, PROD_A, T2 + 4600n * MS, 0, {
    span_id: 's2d',
    parent_id: 's2c',
    name: 'exception',
    type: 'EVENT',
    service_name: 'worker',
  }),
  span('t3', APP_A, STAGING_A, T3, 250, {
    span_id: 's3a',
    name: `batch${INJECTION}`,
    span_kind: 'tool',
    metadata: { sql: INJECTION },
  }),
  // The same trace id in another app: span-level predicates must not reach across apps.
  span('t1', APP_B, PROD_B, T1, 800, {
    span_id: 'sb1',
    name: 'other-app',
    type: 'GENERATION',
    span_kind: 'llm',
    status: 'OK',
    model: 'other-model',
    service_name: 'other',
    input_tokens: 5,
    output_tokens: 5,
    tokens: 10,
    cost: 0.001,
    user_id: 'u1',
    tags: ['prod'],
    metadata: { tier: 'gold' },
  }),
];

interface ScoreRow {
  id: string;
  name: string;
  score: number;
  source: string;
  user_id: string | null;
  resource_type: 'trace' | 'span' | 'session';
  resource_id: string;
  trace_id: string | null;
  session_id: string | null;
  label: string | null;
  created_at: string;
}

/** A score of a session, for the resource_id test alone (the shared cases expect the four above). */
const SESSION_SCORE: ScoreRow = {
  id: 'c5',
  name: 'accuracy',
  score: 0.7,
  source: 'api',
  user_id: null,
  resource_type: 'session',
  resource_id: 'sess-1',
  trace_id: null,
  session_id: 'sess-1',
  label: null,
  created_at: '2026-01-16 00:00:00',
};

/** Scores as the API shows them; stored as the store stores them (`storedResourceId`). */
const SCORES: readonly ScoreRow[] = [
  {
    id: 'c1',
    name: 'accuracy',
    score: 0.9,
    source: 'api',
    user_id: 'u1',
    resource_type: 'trace',
    resource_id: 't1',
    trace_id: 't1',
    session_id: null,
    label: null,
    created_at: '2026-01-10 10:00:00',
  },
  {
    id: 'c2',
    name: 'accuracy',
    score: 0.4,
    source: 'eval',
    user_id: null,
    resource_type: 'trace',
    resource_id: 't2',
    trace_id: 't2',
    session_id: 'sess-1',
    label: 'bad',
    created_at: '2026-01-12 09:00:00',
  },
  {
    id: 'c3',
    name: 'helpfulness',
    score: 1,
    source: 'annotation',
    user_id: 'u2',
    resource_type: 'span',
    resource_id: 's2c',
    trace_id: 't2',
    session_id: null,
    label: 'good',
    created_at: '2026-02-01 00:00:00',
  },
  {
    id: 'c4',
    name: 'O\'Brien \\ "x"',
    score: 0,
    source: 'sdk',
    user_id: 'u1',
    resource_type: 'trace',
    resource_id: 't3',
    trace_id: 't3',
    session_id: null,
    label: '50%_off',
    created_at: '2026-01-15 00:00:00.5',
  },
] as const;

/** The trace-summary relation of the compiler contract, computed from the fixture spans. */
const TRACE_SUMMARY = `
  CREATE TABLE trace_summary AS
  SELECT x.tenant_id, x.app_id, x.trace_id AS id,
    arg_min(x.name, {'r': x.parent_id IS NOT NULL, 's': x.start_ns}) AS name,
    CASE WHEN bool_or(x.status = 'ERROR') THEN 'ERROR' WHEN bool_or(x.status = 'OK') THEN 'OK' ELSE 'UNSET' END AS status,
    min(x.start_ns) AS start_ns, max(x.end_ns) AS end_ns,
    ((max(x.end_ns) - min(x.start_ns)) / 1e6)::DOUBLE AS latency_ms,
    coalesce(sum(x.cost), 0)::DOUBLE AS cost,
    coalesce(sum(x.tokens), 0)::DOUBLE AS tokens,
    (count(*) FILTER (WHERE x.type <> 'EVENT'))::INTEGER AS span_count,
    list_sort(list_distinct(flatten(list(coalesce(x.tags, []))))) AS tags,
    any_value(x.session_id) FILTER (WHERE x.session_id IS NOT NULL) AS session_id,
    any_value(x.user_id) FILTER (WHERE x.user_id IS NOT NULL) AS user_id,
    any_value(e.name) AS environment,
    arg_min_null(x.metadata, {'r': x.parent_id IS NOT NULL, 's': x.start_ns}) AS metadata
  FROM spans x JOIN environments e ON e.id = x.environment_id
  GROUP BY x.tenant_id, x.app_id, x.trace_id`;

async function fixtures(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE TABLE spans (${SPAN_COLUMNS.map(([name, kind]) => `${name} ${SQL_TYPE[kind]}`).join(', ')})`);
  for (const s of SPANS) {
    const cols = Object.keys(s);
    const values = Object.values(s).map(
      (v): DuckDBValue =>
        Array.isArray(v)
          ? listValue(v as string[])
          : typeof v === 'object' && v !== null
            ? JSON.stringify(v)
            : (v as DuckDBValue),
    );
    await conn.run(
      `INSERT INTO spans (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    );
  }
  await conn.run('CREATE TABLE environments (id UUID, name VARCHAR)');
  await conn.run('INSERT INTO environments VALUES ($1, $2), ($3, $4), ($5, $6)', [
    PROD_A,
    'production',
    STAGING_A,
    'staging',
    PROD_B,
    'production',
  ]);
  await conn.run(TRACE_SUMMARY);
  await conn.run(
    'CREATE TABLE scores (id VARCHAR, name VARCHAR, score DOUBLE, source VARCHAR, user_id VARCHAR, resource_id VARCHAR, resource_type VARCHAR, trace_id VARCHAR, session_id VARCHAR, label VARCHAR, created_at TIMESTAMP)',
  );
  for (const s of SCORES) await insertScore(conn, s);
}

async function insertScore(conn: DuckDBConnection, s: ScoreRow): Promise<void> {
  await conn.run('INSERT INTO scores VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::TIMESTAMP)', [
    s.id,
    s.name,
    s.score,
    s.source,
    s.user_id,
    storedResourceId(s.resource_type, s.resource_id),
    s.resource_type,
    s.trace_id,
    s.session_id,
    s.label,
    s.created_at,
  ]);
}

/** A connection to an in-memory DuckDB holding the fixtures, closed with the test. */
async function withFixtures(t: Test): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  t.teardown(() => {
    conn.closeSync();
    instance.closeSync();
  });
  await fixtures(conn);
  return conn;
}

/** Ids matched by `filter`; `$1` is taken by the query itself, as the store's statements bind their scope first. */
async function run(conn: DuckDBConnection, filter: Filter, resource: Resource): Promise<string[]> {
  const params: DuckDBValue[] = [TENANT];
  const sql = filterSql(filter, resource, params);
  const query = {
    spans: `SELECT x.span_id AS id FROM spans x WHERE x.tenant_id = $1 AND (${sql})`,
    traces: `SELECT t.id || CASE WHEN t.app_id = '${APP_B}' THEN '@B' ELSE '' END AS id FROM trace_summary t WHERE t.tenant_id = $1 AND (${sql})`,
    scores: `SELECT s.id FROM scores s WHERE $1::UUID IS NOT NULL AND (${sql})`,
  }[resource];
  const reader = await conn.runAndReadAll(query, params);
  return reader
    .getRowObjectsJS()
    .map((r) => String(r.id))
    .sort();
}

t.test('every valid case runs against DuckDB', async (t) => {
  const conn = await withFixtures(t);
  t.same(await run(conn, [], 'traces'), ['t1', 't1@B', 't2', 't3'], 'the trace summary holds the fixture traces');

  let checked = 0;
  for (const c of cases.valid) {
    const ids = await run(conn, parseFilter(c.expression, c.resource), c.resource);
    if (c.expect) {
      t.same(ids, c.expect, `${c.resource}: ${c.expression}`);
      checked++;
    } else {
      t.pass(`${c.resource}: ${c.expression} runs`);
    }
  }
  for (const c of cases.valid_json) {
    const ids = await run(conn, validateJsonFilters(c.filters, c.resource), c.resource);
    if (c.expect) {
      t.same(ids, c.expect, `${c.resource}: ${JSON.stringify(c.filters)}`);
      checked++;
    }
  }
  t.ok(checked >= 40, `${checked} cases checked row by row`);

  const [count] = (await conn.runAndReadAll('SELECT count(*)::INTEGER AS n FROM spans')).getRowObjectsJS();
  t.same(count, { n: SPANS.length }, 'injection values stayed data: the spans table is intact');
});

t.test(
  "a score's resource_id matches the trace, span or session it names, though only a span's is stored",
  async (t) => {
    const conn = await withFixtures(t);
    await insertScore(conn, SESSION_SCORE);
    const all = [...SCORES, SESSION_SCORE];
    const stored = (await conn.runAndReadAll('SELECT id, resource_id FROM scores ORDER BY id')).getRowObjectsJS();
    t.same(
      stored.filter((r) => r.resource_id !== null),
      [{ id: 'c3', resource_id: 's2c' }],
      'only the span score keeps a resource_id',
    );
    for (const s of all) {
      const ids = await run(conn, parseFilter(`resource_id = "${s.resource_id}"`, 'scores'), 'scores');
      t.same(
        ids,
        all.filter((o) => o.resource_id === s.resource_id).map((o) => o.id),
        `resource_id = ${s.resource_id} (${s.resource_type})`,
      );
    }
    t.same(
      await run(conn, parseFilter('resource_id = "sess-1"', 'scores'), 'scores'),
      ['c5'],
      "a trace score of a session does not match the session's id",
    );
  },
);

t.test('hostile values match literally and never reach the SQL text', async (t) => {
  const conn = await withFixtures(t);
  const hostile = [
    INJECTION,
    `batch${INJECTION}`,
    "' OR '1'='1",
    '"; DELETE FROM scores; --',
    '\\',
    "\\'",
    '%',
    '_',
    '$1',
    '$."x"',
    ')) OR TRUE --',
  ];
  for (const v of hostile) {
    for (const [resource, field] of [
      ['spans', 'name'],
      ['traces', 'name'],
      ['traces', 'model'],
      ['spans', 'metadata.sql'],
      ['scores', 'label'],
    ] as const) {
      const filter: Filter = [{ field, op: 'equals', value: v }];
      const { sql, params } = compileFilter(filter, resource, 2);
      t.equal(
        sql,
        compileFilter([{ field, op: 'equals', value: 'plain' }], resource, 2).sql,
        `the SQL of ${resource}.${field} does not depend on ${JSON.stringify(v)}`,
      );
      t.ok(params.includes(v), 'it is a parameter');
      const expected =
        v === `batch${INJECTION}` && field === 'name'
          ? [resource === 'spans' ? 's3a' : 't3']
          : v === INJECTION && field === 'metadata.sql'
            ? ['s3a']
            : [];
      t.same(await run(conn, filter, resource), expected, `${resource}.${field} = ${JSON.stringify(v)}`);
    }
  }
  const tables = (await conn.runAndReadAll(`SELECT table_name FROM information_schema.tables ORDER BY 1`))
    .getRowObjectsJS()
    .map((r) => r.table_name);
  t.same(tables, ['environments', 'scores', 'spans', 'trace_summary']);
  const [n] = (
    await conn.runAndReadAll(
      'SELECT (SELECT count(*) FROM spans)::INTEGER AS spans, (SELECT count(*) FROM scores)::INTEGER AS scores',
    )
  ).getRowObjectsJS();
  t.same(n, { spans: SPANS.length, scores: SCORES.length });
});
