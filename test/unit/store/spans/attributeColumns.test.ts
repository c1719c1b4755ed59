/**
 * src/store/spans/attributeColumns.ts: attributes a column holds are left out of the stored JSON,
 * and the reader's SQL (run here on DuckDB) puts them back exactly.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import t from 'tap';
import type { JsonValue } from '../../../../src/core/span.js';
import {
  CACHED_INPUT_TOKEN_KEYS,
  INPUT_TOKEN_KEYS,
  MODEL_KEYS,
  OUTPUT_TOKEN_KEYS,
  PROMPT_NAME_KEYS,
  PROMPT_VERSION_KEYS,
  RUN_ID_KEYS,
  SESSION_KEYS,
  USER_KEYS,
} from '../../../../src/core/otlp/conventions.js';
import {
  ATTRIBUTE_COLUMNS,
  restoredAttributes,
  restoredAttributesSql,
  storedAttributes,
} from '../../../../src/store/spans/attributeColumns.js';
import {
  COLUMN_INDEX as C,
  SPAN_COLUMNS,
  SQL_TYPE,
  type SpanColumn,
  type SpanRow,
} from '../../../../src/store/spans/columns.js';

function row(columns: Partial<Record<SpanColumn, string | number>>): SpanRow {
  const r: SpanRow = SPAN_COLUMNS.map(() => null);
  for (const [name, value] of Object.entries(columns)) r[C[name as SpanColumn]] = value;
  return r;
}

const bit = (key: string) => 2 ** ATTRIBUTE_COLUMNS.findIndex(([k]) => k === key);

t.test('a key is left out only when its column holds exactly its value', async (t) => {
  const columns = row({
    session_id: 's-1',
    user_id: 'u-1',
    model: 'gpt-4o',
    input_tokens: 1087,
    output_tokens: 12,
    prompt_name: 'p',
  });
  const stored = storedAttributes(
    {
      'session.id': 's-1',
      'user.id': ' u-1', // the column holds the trimmed text: kept as sent
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06', // not the column's value: kept
      'gen_ai.usage.input_tokens': 1087,
      'gen_ai.usage.output_tokens': '12', // text, not the number the column holds: kept
      'tracelake.prompt.name': 'p',
      'tool.name': 'lookup', // no column of its own
    },
    columns,
  );
  t.same(JSON.parse(stored.json!), {
    'user.id': ' u-1',
    'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.usage.output_tokens': '12',
    'tool.name': 'lookup',
  });
  t.equal(
    stored.inColumns,
    bit('session.id') + bit('gen_ai.request.model') + bit('gen_ai.usage.input_tokens') + bit('tracelake.prompt.name'),
  );
  t.same(
    storedAttributes({ 'session.id': 's-1' }, columns),
    { json: null, inColumns: bit('session.id') },
    'nothing left: no JSON',
  );
  t.same(storedAttributes({ a: 1 }, columns), { json: '{"a":1}', inColumns: null }, 'nothing left out: no bits');
  t.same(storedAttributes({}, columns), { json: null, inColumns: null });
  t.same(
    storedAttributes({ 'session.id': 's-2', 'gen_ai.usage.input_tokens': [1087] }, columns).inColumns,
    null,
    'other values and types stay',
  );
});

t.test('the bits fit an INTEGER and name each key once', async (t) => {
  t.ok(ATTRIBUTE_COLUMNS.length <= 31);
  t.equal(new Set(ATTRIBUTE_COLUMNS.map(([k]) => k)).size, ATTRIBUTE_COLUMNS.length);
});

t.test('each key is one the mapper reads into its column (the list is frozen, the conventions may grow)', async (t) => {
  const read: Partial<Record<SpanColumn, readonly string[]>> = {
    session_id: SESSION_KEYS,
    user_id: USER_KEYS,
    run_id: RUN_ID_KEYS,
    model: MODEL_KEYS,
    prompt_name: PROMPT_NAME_KEYS,
    input_tokens: INPUT_TOKEN_KEYS,
    output_tokens: OUTPUT_TOKEN_KEYS,
    cached_input_tokens: CACHED_INPUT_TOKEN_KEYS,
  };
  for (const [key, column] of ATTRIBUTE_COLUMNS) t.ok(read[column]?.includes(key), `${key} → ${column}`);
});

t.test('SQL over the stored attributes looks up no key a column holds', async (t) => {
  // PROMPT_VERSION_SQL reads the stored JSON (segment reads do not put keys back).
  for (const key of PROMPT_VERSION_KEYS)
    t.notOk(
      ATTRIBUTE_COLUMNS.some(([k]) => k === key),
      key,
    );
});

t.test('a key named __proto__ stays data, stored and put back', async (t) => {
  const attributes = JSON.parse('{"__proto__": {"x": 1}, "session.id": "s-1", "a": 2}') as Record<string, JsonValue>;
  const stored = storedAttributes(attributes, row({ session_id: 's-1' }));
  t.equal(stored.json, '{"__proto__":{"x":1},"a":2}');
  const whole = restoredAttributes(JSON.parse(stored.json!), stored.inColumns, { session_id: 's-1' });
  t.equal(JSON.stringify(whole), '{"session.id":"s-1","__proto__":{"x":1},"a":2}');
  t.equal(Object.getPrototypeOf(whole), Object.prototype, 'and sets no prototype');
});

t.test('a row without bits gives its stored attributes as they are', async (t) => {
  const stored = { a: 1 };
  t.equal(restoredAttributes(stored, null, {}), stored);
  t.equal(restoredAttributes(stored, 0, {}), stored);
});

t.test('DuckDB puts the left-out keys back: the attributes as sent', async (t) => {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  await db.run(`CREATE TABLE s (${SPAN_COLUMNS.map(([name, kind]) => `${name} ${SQL_TYPE[kind]}`).join(', ')})`);
  const cases: [Partial<Record<SpanColumn, string | number>>, Record<string, JsonValue>][] = [
    [
      { session_id: 's-1', user_id: 'u "quoted" \\ ü', run_id: 'r' },
      { 'session.id': 's-1', 'user.id': 'u "quoted" \\ ü', 'tracelake.run.id': 'r', other: { nested: [1, 'x'] } },
    ],
    [{ session_id: 's-1' }, { 'session.id': 's-1', 'gen_ai.conversation.id': 's-1' }],
    [
      { model: 'm', input_tokens: 0, output_tokens: 2147483647, cached_input_tokens: 5 },
      {
        'llm.model_name': 'm',
        'llm.token_count.prompt': 0,
        'llm.token_count.completion': 2147483647,
        'llm.token_count.prompt_details.cache_read': 5,
        'gen_ai.system': 'openai',
      },
    ],
    [{ model: 'm' }, { 'ai.model.id': 'n', x: null }],
    [{}, {}],
    [
      { prompt_name: 'p' },
      { 'langfuse.prompt.name': 'p', 'langfuse.observation.prompt.name': 'p', 'tracelake.prompt.name': 'p' },
    ],
  ];
  for (const [i, [columns, attributes]] of cases.entries()) {
    const r = row(columns);
    const stored = storedAttributes(attributes, r);
    r[C.attributes] = stored.json;
    r[C.attributes_in_columns] = stored.inColumns;
    const values = SPAN_COLUMNS.map(([name]) => r[C[name]] ?? null).map((v) =>
      v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`,
    );
    await db.run(`INSERT INTO s VALUES (${values.join(', ')})`);
    const [[text]] = (
      await db.runAndReadAll(`SELECT ${restoredAttributesSql()} FROM s WHERE rowid = ${i}`)
    ).getRows() as [[string | null]];
    t.same(text === null ? {} : JSON.parse(text), attributes, `SQL, case ${i}: ${JSON.stringify(attributes)}`);
    // The API's way: the stored JSON parsed, and the row's columns by name as DuckDB hands them over.
    const [byName] = (await db.runAndReadAll(`SELECT * FROM s WHERE rowid = ${i}`)).getRowObjectsJson();
    const storedKeys = Object.keys(JSON.parse(stored.json ?? '{}'));
    const whole = restoredAttributes(JSON.parse(stored.json ?? '{}'), stored.inColumns, byName!);
    t.same(whole, attributes, `JS, case ${i}`);
    t.same(
      Object.keys(whole).slice(Object.keys(whole).length - storedKeys.length),
      storedKeys,
      'the stored keys last, in their order',
    );
  }
});
