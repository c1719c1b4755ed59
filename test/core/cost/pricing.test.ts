import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  compilePriceTable,
  costOf,
  parsePriceTable,
  type ModelPrice,
  type PriceTable,
} from '../../../src/core/cost/pricing.js';

// Four levels up from dist/test/core/cost/ (or .build-pricing/test/core/cost/) is the project root.
const dataUrl = new URL('../../../../data/pricing.json', import.meta.url);
const table = parsePriceTable(JSON.parse(readFileSync(dataUrl, 'utf8')));
const index = compilePriceTable(table);

const price = (over: Partial<ModelPrice> = {}): ModelPrice => ({
  id: 'm',
  provider: 'p',
  match: '^m$',
  input: 2.5,
  output: 10,
  cached_input: 1.25,
  ...over,
});

const minimal = (models: unknown[]): Record<string, unknown> => ({
  version: 1,
  currency: 'USD',
  unit: 'per_1m_tokens',
  as_of: '2025-01-01',
  sources: ['test'],
  models,
});

t.test('data/pricing.json', async (t) => {
  t.equal(table.version, 1);
  t.match(table.as_of, /^\d{4}-\d{2}-\d{2}$/);
  t.ok(table.models.length >= 40, `${table.models.length} models`);
  const providers = new Set(table.models.map((m) => m.provider));
  for (const p of ['openai', 'anthropic', 'google', 'mistral', 'meta', 'deepseek']) t.ok(providers.has(p), p);
  for (const m of table.models.filter((m) => m.provider === 'meta'))
    t.match(m.note, /Together AI/, `${m.id} names its host`);

  t.test('every id resolves to its own entry and matches no other pattern', async (t) => {
    const compiled = table.models.map((m) => ({ m, re: new RegExp(m.match, 'i') }));
    for (const m of table.models) {
      t.equal(index.find(m.id), m, `find(${m.id})`);
      const matching = compiled.filter(({ re }) => re.test(m.id)).map(({ m }) => m.id);
      t.same(matching, [m.id], `patterns matching ${m.id}`);
    }
  });
});

t.test('reported model ids resolve to the right entry', async (t) => {
  const cases: Array<[string, string]> = [
    ['gpt-4o', 'gpt-4o'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-2024-11-20', 'gpt-4o'],
    ['gpt-4o-2024-05-13', 'gpt-4o-2024-05-13'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['GPT-4O-MINI', 'gpt-4o-mini'],
    ['openai/gpt-4.1-mini', 'gpt-4.1-mini'],
    ['gpt-4.1-2025-04-14', 'gpt-4.1'],
    ['gpt-4-turbo-2024-04-09', 'gpt-4-turbo'],
    ['gpt-3.5-turbo-0125', 'gpt-3.5-turbo'],
    ['o1-2024-12-17', 'o1'],
    ['o3-mini-2025-01-31', 'o3-mini'],
    ['o4-mini-2025-04-16', 'o4-mini'],
    ['gpt-5-2025-08-07', 'gpt-5'],
    ['gpt-5-mini-2025-08-07', 'gpt-5-mini'],
    ['gpt-5.1-codex', 'gpt-5.1'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['anthropic/claude-3.5-sonnet', 'claude-3-5-sonnet'],
    ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet'],
    ['claude-3-7-sonnet-20250219', 'claude-3-7-sonnet'],
    ['claude-3-haiku-20240307', 'claude-3-haiku'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-sonnet-4-0', 'claude-sonnet-4'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-opus-4-5-20251101', 'claude-opus-4-5'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['claude-haiku-4-5@20251001', 'claude-haiku-4-5'],
    ['models/gemini-1.5-pro', 'gemini-1.5-pro'],
    ['gemini-1.5-flash-002', 'gemini-1.5-flash'],
    ['gemini-1.5-flash-8b-latest', 'gemini-1.5-flash-8b'],
    ['gemini-2.0-flash-001', 'gemini-2.0-flash'],
    ['models/gemini-2.5-flash-lite', 'gemini-2.5-flash-lite'],
    ['gemini-2.5-pro-preview-06-05', 'gemini-2.5-pro'],
    ['publishers/google/models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['google/gemini-3-pro-preview', 'gemini-3-pro-preview'],
    ['mistral-large-latest', 'mistral-large-2512'],
    ['mistral-large-2407', 'mistral-large-2411'],
    ['mistral/mistral-small-latest', 'mistral-small-2506'],
    ['codestral-2501', 'codestral-2508'],
    ['open-mistral-nemo', 'mistral-nemo'],
    ['deepseek-chat', 'deepseek-chat'],
    ['deepseek/deepseek-reasoner', 'deepseek-reasoner'],
    ['meta-llama/Llama-3.3-70B-Instruct', 'llama-3.3-70b-instruct'],
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'llama-3.3-70b-instruct'],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo', 'llama-3.1-8b-instruct'],
    ['meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8', 'llama-4-maverick'],
    ['meta-llama/Llama-4-Scout-17B-16E-Instruct', 'llama-4-scout'],
  ];
  for (const [reported, id] of cases) t.equal(index.find(reported)?.id, id, reported);

  const unpriced = [
    '',
    'unknown-model',
    'models/',
    'gpt-4o-2024-08-06-extra',
    'gpt-4o-mini-audio-preview',
    'gpt-4-32k',
    'claude-2.1',
    'gemini-2.5-flash-image',
    'gemini-3-pro-image-preview',
    'mistral-medium',
    'ministral-8b-2410',
    'llama3',
  ];
  for (const reported of unpriced) t.equal(index.find(reported), undefined, JSON.stringify(reported));
});

t.test('gpt-4o-mini is not priced as gpt-4o', async (t) => {
  const gpt4o = table.models.find((m) => m.id === 'gpt-4o');
  t.ok(gpt4o);
  t.notOk(new RegExp(gpt4o!.match, 'i').test('gpt-4o-mini'));
  t.equal(index.find('gpt-4o-mini')?.input, 0.15);
  t.equal(index.find('gpt-4o-mini-2024-07-18')?.id, 'gpt-4o-mini');
});

t.test('lookup order', async (t) => {
  const idx = compilePriceTable(
    parsePriceTable(
      minimal([
        price({ id: 'wide', match: '^.*$' }),
        price({ id: 'narrow', match: '^narrow$' }),
        price({ id: 'vendored', match: '^vendor/x$' }),
      ]),
    ),
  );
  t.equal(idx.find('NARROW')?.id, 'narrow', 'an exact id beats an earlier pattern');
  t.equal(idx.find('anything')?.id, 'wide', 'otherwise the first matching pattern wins');

  const prefixed = compilePriceTable(
    parsePriceTable(minimal([price({ id: 'bare', match: '^x$' }), price({ id: 'vendored', match: '^vendor/x$' })])),
  );
  t.equal(prefixed.find('vendor/x')?.id, 'vendored', 'the full string is tried before any prefix is stripped');
  t.equal(prefixed.find('other/x')?.id, 'bare', 'a prefix is stripped when the full string matches nothing');
  t.equal(prefixed.find('a/b/x')?.id, 'bare', 'several prefix segments are stripped');
  t.equal(prefixed.find(' x ')?.id, 'bare', 'surrounding whitespace is ignored');
});

t.test('find caches hits and misses, and stays correct past the cache bound', async (t) => {
  const idx = compilePriceTable(table);
  const first = idx.find('gpt-4o-2024-08-06');
  t.equal(idx.find('gpt-4o-2024-08-06'), first, 'cached hit');
  t.equal(idx.find('no-such-model'), undefined);
  t.equal(idx.find('no-such-model'), undefined, 'cached miss');
  for (let i = 0; i < 1100; i++) idx.find(`unknown-${i}`);
  t.equal(idx.find('gpt-4o-2024-08-06')?.id, 'gpt-4o', 'evicted entries are resolved again');
  t.equal(idx.find('unknown-1099'), undefined);
});

t.test('costOf', async (t) => {
  const p = price(); // 2.5 input, 10 output, 1.25 cached, per 1M tokens
  t.equal(costOf(p, { inputTokens: 1_000_000, outputTokens: 1_000_000 }), 12.5);
  // 600k uncached * 2.5 + 400k cached * 1.25 + 200k output * 10 = 1.5 + 0.5 + 2 = 4
  t.equal(costOf(p, { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 200_000 }), 4);
  // No cached rate: cached tokens bill at the input rate. 2000 * 0.5 + 500 * 1.5 = 1750 per 1M = 0.00175
  t.equal(
    costOf(price({ input: 0.5, output: 1.5, cached_input: null }), {
      inputTokens: 2000,
      cachedInputTokens: 1000,
      outputTokens: 500,
    }),
    0.00175,
  );
  t.equal(
    costOf(price({ input: 0.5, output: 1.5, cached_input: undefined }), { inputTokens: 2000, cachedInputTokens: 1000 }),
    0.001,
  );
  // A cached count above the input count is capped at it: 100 * 1.25 per 1M.
  t.equal(costOf(p, { inputTokens: 100, cachedInputTokens: 500 }), 0.000125);
  t.equal(costOf(p, {}), 0);
  t.equal(costOf(p, { inputTokens: -5, outputTokens: Number.NaN, cachedInputTokens: Number.POSITIVE_INFINITY }), 0);
  t.equal(costOf(p, { inputTokens: 1000, outputTokens: Number.POSITIVE_INFINITY }), 0.0025);
  // 7 * 0.1 / 1e6 is 7.000000000000001e-7 in floating point; the result is rounded to 1e-10.
  t.equal(costOf(price({ input: 0.1 }), { inputTokens: 7 }), 7e-7);

  const sonnet = index.find('claude-sonnet-4-5-20250929');
  t.ok(sonnet);
  // 2345 * 3 + 10000 * 0.3 + 678 * 15 = 7035 + 3000 + 10170 = 20205 per 1M
  t.equal(costOf(sonnet!, { inputTokens: 12_345, cachedInputTokens: 10_000, outputTokens: 678 }), 0.020205);
});

t.test('parsePriceTable normalises valid input', async (t) => {
  const parsed = parsePriceTable(minimal([{ id: 'a', provider: 'p', match: '^a$', input: 1, output: 2 }]));
  t.same(parsed.models[0], { id: 'a', provider: 'p', match: '^a$', input: 1, output: 2, cached_input: null });
  t.notOk('note' in parsed);
  const noted = parsePriceTable({ ...minimal([price({ note: 'hello' })]), note: 'top' });
  t.equal(noted.note, 'top');
  t.equal(noted.models[0]?.note, 'hello');
});

t.test('parsePriceTable rejects invalid tables', async (t) => {
  const model = (over: Record<string, unknown>) => ({
    id: 'x',
    provider: 'p',
    match: '^x$',
    input: 1,
    output: 1,
    ...over,
  });
  const cases: Array<[string, unknown, RegExp]> = [
    ['null', null, /not an object/],
    ['array', [], /not an object/],
    ['version', { ...minimal([model({})]), version: 2 }, /unsupported version 2/],
    ['currency', { ...minimal([model({})]), currency: 'EUR' }, /currency/],
    ['unit', { ...minimal([model({})]), unit: 'per_token' }, /unit/],
    ['as_of type', { ...minimal([model({})]), as_of: 20250101 }, /as_of/],
    ['as_of format', { ...minimal([model({})]), as_of: '2025/01/01' }, /as_of/],
    ['sources type', { ...minimal([model({})]), sources: 'x' }, /sources/],
    ['sources items', { ...minimal([model({})]), sources: [1] }, /sources/],
    ['table note', { ...minimal([model({})]), note: 5 }, /note must be a string/],
    ['models missing', { ...minimal([]), models: undefined }, /models must be a non-empty array/],
    ['models empty', minimal([]), /models must be a non-empty array/],
    ['model not object', minimal([null]), /models\[0\]: not an object/],
    ['id', minimal([model({ id: '' })]), /models\[0\] "": id must be/],
    ['id missing', minimal([model({ id: undefined })]), /models\[0\]: id must be/],
    ['provider', minimal([model({ provider: undefined })]), /models\[0\] "x": provider/],
    ['match missing', minimal([model({ match: 7 })]), /"x": match must be .*anchored/],
    ['match unanchored start', minimal([model({ match: 'x$' })]), /anchored/],
    ['match unanchored end', minimal([model({ match: '^x' })]), /anchored/],
    ['match invalid', minimal([model({ match: '^(x$' })]), /"x": match is not a valid regular expression/],
    ['negative input', minimal([model({ input: -1 })]), /"x": input must be a non-negative/],
    ['non-finite input', minimal([model({ input: Number.POSITIVE_INFINITY })]), /"x": input/],
    ['output', minimal([model({ output: '10' })]), /"x": output/],
    ['cached_input', minimal([model({ cached_input: -0.5 })]), /"x": cached_input/],
    ['model note', minimal([model({ note: 1 })]), /"x": note must be a string/],
    [
      'duplicate id',
      minimal([model({ id: 'Dup' }), model({ id: 'dup', match: '^y$' })]),
      /models\[1\] "dup": duplicate id/,
    ],
  ];
  for (const [name, input, message] of cases) t.throws(() => parsePriceTable(input), { message }, name);
  // The error names the bad entry by position even deep in a real-sized table.
  const real = structuredClone(table) as PriceTable;
  (real.models[10] as { output: number }).output = -3;
  t.throws(() => parsePriceTable(real), {
    message: new RegExp(`models\\[10\\] "${real.models[10]!.id.replace('.', '\\.')}": output`),
  });
});
