/**
 * src/ingest/summaryParts.ts: trace summary parts folded from span rows as they come in (the rules
 * of the SQL `partsOfSpans`, which test/store/spans/parts.test.ts holds this to against DuckDB).
 */
import t from 'tap';
import { SummaryParts, type PartRow } from '../../../src/ingest/summaryParts.js';
import { COLUMN_INDEX as C, SPAN_COLUMNS, type SpanRow } from '../../../src/store/spans/columns.js';

const TENANT = '11111111-1111-4111-8111-111111111111';
const APP = '22222222-2222-4222-8222-222222222222';
const ENV = '33333333-3333-4333-8333-333333333333';
const TRACE = 'a'.repeat(32);

interface Spec {
  env?: string;
  trace?: string;
  parent?: string | null;
  name?: string;
  start?: bigint;
  end?: bigint;
  type?: string;
  status?: string;
  cost?: number | null;
  tokens?: number | null;
  tags?: string[] | null;
  session?: string | null;
  user?: string | null;
  run?: string | null;
  input?: string | null;
  output?: string | null;
  inputPreview?: string | null;
  outputPreview?: string | null;
  metadata?: string | null;
}

function row(s: Spec): SpanRow {
  const r: SpanRow = SPAN_COLUMNS.map(() => null);
  r[C.tenant_id] = TENANT;
  r[C.app_id] = APP;
  r[C.environment_id] = s.env ?? ENV;
  r[C.trace_id] = s.trace ?? TRACE;
  r[C.parent_id] = s.parent === undefined ? 'p'.repeat(16) : s.parent;
  r[C.name] = s.name ?? 'span';
  r[C.type] = s.type ?? 'SPAN';
  r[C.status] = s.status ?? 'UNSET';
  r[C.start_ns] = s.start ?? 100n;
  r[C.end_ns] = s.end ?? 200n;
  r[C.cost] = s.cost ?? null;
  r[C.tokens] = s.tokens ?? null;
  r[C.tags] = s.tags === undefined ? [] : s.tags;
  r[C.session_id] = s.session ?? null;
  r[C.user_id] = s.user ?? null;
  r[C.run_id] = s.run ?? null;
  r[C.input] = s.input ?? null;
  r[C.output] = s.output ?? null;
  r[C.metadata] = s.metadata ?? null;
  r[C.input_preview] = s.inputPreview ?? null;
  r[C.output_preview] = s.outputPreview ?? null;
  return r;
}

const partsOf = (...batches: Spec[][]): PartRow[] => {
  const p = new SummaryParts();
  for (const b of batches) p.add(b.map(row));
  return p.rows();
};

t.test('one span: its part', async (t) => {
  const [part, ...rest] = partsOf([
    {
      parent: null,
      name: 'root',
      start: 10n,
      end: 20n,
      cost: 0.5,
      tokens: 7,
      status: 'OK',
      tags: ['b', 'a'],
      session: 's',
      user: 'u',
      run: 'r',
      input: 'in',
      output: 'out',
      metadata: '{"k":1}',
    },
  ]);
  t.equal(rest.length, 0);
  t.strictSame(part, [
    TENANT,
    APP,
    ENV,
    TRACE,
    10n,
    20n,
    0,
    10n,
    'root',
    'in',
    'out',
    0.5,
    7,
    1,
    0,
    1,
    ['a', 'b'],
    's',
    'u',
    'r',
    '{"k":1}',
    null,
    null,
    null,
  ]);
});

t.test('spans of one trace fold into one part', async (t) => {
  const [p] = partsOf(
    [
      {
        name: 'child-late',
        start: 50n,
        end: 400n,
        cost: 1,
        tokens: 10,
        tags: ['x'],
        session: 's2',
        user: null,
        run: 'r9',
        status: 'ERROR',
      },
      { name: 'child-early', start: 5n, end: 60n, cost: null, tokens: 5, tags: null, session: 's1', user: 'u2' },
    ],
    [
      {
        name: 'event',
        type: 'EVENT',
        start: 70n,
        end: 70n,
        cost: 2,
        tokens: null,
        tags: ['x', 'a'],
        session: null,
        user: 'u1',
        run: 'r1',
        status: 'OK',
      },
      { name: 'root', parent: null, start: 30n, end: 90n, input: 'root in', session: 's3' },
      { name: 'late child', start: 31n, end: 40n, metadata: '{"child":true}' },
      { name: 'tail', start: 60n, end: 500n },
    ],
  );
  t.equal(p![4], 5n, 'the earliest start');
  t.equal(p![5], 500n, 'the latest end');
  t.equal(p![6], 0, 'a root span was seen');
  t.equal(p![7], 30n);
  t.equal(p![8], 'root', 'the root names the trace, however late it comes');
  t.equal(p![9], 'root in', 'and gives its previews');
  t.equal(p![10], null);
  t.equal(p![11], 3, 'costs summed, nulls skipped');
  t.equal(p![12], 15, 'tokens summed, nulls skipped');
  t.equal(p![13], 5, 'events are not counted as spans');
  t.equal(p![14], 1, 'an error');
  t.equal(p![15], 1, 'an OK');
  t.same(p![16], ['a', 'x'], 'tags: distinct, sorted');
  t.equal(p![17], 's1', 'the least session id, nulls last');
  t.equal(p![18], 'u1', 'the least user id');
  t.equal(p![19], 'r1', 'the least run id');
  t.equal(p![20], null, "the root's metadata (none), not a child's");
});

t.test("the trace's metadata is the best span's", async (t) => {
  const [p] = partsOf(
    [{ name: 'child', start: 1n, metadata: '{"c":1}' }],
    [{ name: 'root', parent: null, start: 9n, metadata: '{"r":1}' }],
  );
  t.equal(p![20], '{"r":1}', 'a root arriving later replaces the earlier child');
});

t.test('the best span: root before child, then earliest', async (t) => {
  const names = (...specs: Spec[]) => partsOf(specs)[0]![8];
  t.equal(names({ name: 'b', start: 20n }, { name: 'a', start: 10n }), 'a', 'an earlier child wins among children');
  t.equal(names({ name: 'a', start: 10n }, { name: 'b', start: 20n }), 'a', 'a later child does not');
  t.equal(names({ name: 'a', start: 10n }, { name: 'b', start: 10n }), 'a', 'a tie keeps the first');
  t.equal(
    names({ name: 'root', parent: null, start: 50n }, { name: 'child', start: 1n }),
    'root',
    'a child never replaces a root',
  );
  t.equal(
    names({ name: 'r2', parent: null, start: 50n }, { name: 'r1', parent: null, start: 40n }),
    'r1',
    'the earliest of two roots',
  );
});

t.test("the earliest generation's previews, beside the best span's", async (t) => {
  const [p] = partsOf(
    [
      { parent: null, name: 'app', start: 10n },
      { name: 'tool', start: 20n, input: 'tool in' },
      { name: 'second call', type: 'GENERATION', start: 40n, input: 'second', output: 'two' },
    ],
    [{ name: 'first call', type: 'GENERATION', start: 30n, input: 'first', output: 'one' }],
  );
  t.same([p![9], p![10]], [null, null], 'the root has none: the best previews are empty');
  t.same(p!.slice(21), [30n, 'first', 'one'], "the earliest generation's start and previews, whatever the order");
  const [none] = partsOf([{ parent: null, name: 'app', input: 'root in' }]);
  t.same(none!.slice(21), [null, null, null], 'no generation: none');
});

t.test('previews: stored ones, else the first 500 characters of the text', async (t) => {
  const [stored] = partsOf([{ input: null, output: null, inputPreview: 'stored in', outputPreview: 'stored out' }]);
  t.equal(stored![9], 'stored in');
  t.equal(stored![10], 'stored out');
  const [derived] = partsOf([{ input: 'i'.repeat(600), output: 'short' }]);
  t.equal(derived![9], 'i'.repeat(500));
  t.equal(derived![10], 'short');
  const [none] = partsOf([{}]);
  t.equal(none![9], null);
  t.equal(none![10], null);
});

t.test('one part per trace and environment', async (t) => {
  const p = new SummaryParts();
  t.equal(p.size, 0);
  p.add([row({}), row({ trace: 'b'.repeat(32) }), row({ env: '44444444-4444-4444-8444-444444444444' })]);
  t.equal(p.size, 3, 'a trace id reused in another environment is another trace');
  p.add([row({ name: 'again' })]);
  t.equal(p.size, 3);
  const rows = p.rows();
  t.same(
    rows.map((r) => [r[2], r[3], r[13]]),
    [
      [ENV, TRACE, 2],
      [ENV, 'b'.repeat(32), 1],
      ['44444444-4444-4444-8444-444444444444', TRACE, 1],
    ],
  );
});
