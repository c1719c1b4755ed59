import t from 'tap';
import { flattenAttributes, type JsonMap } from '../../../src/core/otlp/attributes.js';
import { splitNamespaces, tagsOf } from '../../../src/core/otlp/namespaces.js';
import type { KeyValue } from '../../../src/core/otlp/wire.js';
import { attrs, type Plain } from './wire-builders.js';

const flat = (o: Record<string, Plain> | KeyValue[]): JsonMap =>
  flattenAttributes(Array.isArray(o) ? o : attrs(o), { dropped: 0 });
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const none = new Set<string>();

t.test('graph.node.* leaves attributes for graph, without the prefix', async (t) => {
  const split = splitNamespaces(
    flat({
      'graph.node.id': 'retriever',
      'graph.node.parent_id': 'agent',
      'graph.node.name': 'Retriever',
      'openinference.span.kind': 'RETRIEVER',
    }),
    none,
    { dropped: 0 },
  );
  t.same(plain(split.graph), { id: 'retriever', parent_id: 'agent', name: 'Retriever' });
  t.same(plain(split.attributes), { 'openinference.span.kind': 'RETRIEVER' });
  t.same(plain(split.metadata), {});
  t.equal(Object.getPrototypeOf(split.graph), null);
});

t.test('metadata from every source; the most explicit wins a clash', async (t) => {
  const split = splitNamespaces(
    flat({
      metadata: '{"experiment":"A","source":"openinference","nested":{"k":1}}',
      'traceloop.association.properties.source': 'traceloop',
      'traceloop.association.properties.customer_id': 'c-1',
      'ai.telemetry.metadata.source': 'ai-sdk',
      'ai.telemetry.metadata.userTier': 'pro',
      'langfuse.trace.metadata.source': 'langfuse-trace',
      'langfuse.trace.metadata.foo': 'bar',
      'langfuse.observation.metadata.source': 'langfuse-observation',
      'langfuse.observation.metadata.step': 2,
      'tracelake.metadata.source': 'tracelake',
      'tracelake.metadata.customer_id': 'c-42',
      'gen_ai.system': 'openai',
    }),
    none,
    { dropped: 0 },
  );
  t.same(plain(split.metadata), {
    experiment: 'A',
    source: 'tracelake',
    nested: { k: 1 },
    userTier: 'pro',
    foo: 'bar',
    step: 2,
    customer_id: 'c-42',
  });
  t.same(plain(split.attributes), { 'gen_ai.system': 'openai' }, 'no metadata key left among attributes');
  t.equal(Object.getPrototypeOf(split.metadata), null);
});

t.test('an OpenInference metadata map sent as a kvlist merges too', async (t) => {
  const split = splitNamespaces(flat({ metadata: { run: 'r1', __proto__x: 1 } }), none, { dropped: 0 });
  t.same(plain(split.metadata), { run: 'r1', __proto__x: 1 });
});

t.test('a metadata attribute that is no JSON object stays an attribute', async (t) => {
  for (const v of ['not json', '["a","b"]', 'null', 7] as Plain[]) {
    const split = splitNamespaces(flat({ metadata: v }), none, { dropped: 0 });
    t.same(plain(split.attributes), { metadata: v }, JSON.stringify(v));
    t.same(plain(split.metadata), {});
  }
});

t.test('__proto__ metadata keys stay data', async (t) => {
  const split = splitNamespaces(
    flat([
      { key: 'tracelake.metadata.__proto__', value: { stringValue: 'x' } },
      { key: 'metadata', value: { stringValue: '{"__proto__":{"polluted":true}}' } },
    ]),
    none,
    { dropped: 0 },
  );
  t.same(Object.keys(split.metadata), ['__proto__']);
  t.equal(split.metadata['__proto__'], 'x', 'tracelake beats the metadata object');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('skipped keys are in none of the three maps; caps of parsed metadata are counted', async (t) => {
  const counter = { dropped: 0 };
  const deep = '{"a":' + '['.repeat(100) + ']'.repeat(100) + '}';
  const split = splitNamespaces(
    flat({ 'input.value': 'big', 'graph.node.id': 'n', metadata: deep }),
    new Set(['input.value', 'graph.node.id']),
    counter,
  );
  t.same(plain(split.attributes), {});
  t.same(plain(split.graph), {});
  t.equal(counter.dropped, 1);
});

t.test('tags: first source that yields any; arrays, JSON text or one plain tag', async (t) => {
  const c = { dropped: 0 };
  t.same(tagsOf(flat({ 'tag.tags': ['rag', 'prod'] }), c), ['rag', 'prod'], 'OpenInference list');
  t.same(tagsOf(flat({ 'langfuse.trace.tags': '["beta", "eu"]' }), c), ['beta', 'eu'], 'JSON text');
  t.same(tagsOf(flat({ 'tracelake.tags': '  ["a"]' }), c), ['a'], 'leading blanks before JSON');
  t.same(tagsOf(flat({ 'tracelake.tags': 'nightly' }), c), ['nightly'], 'one plain tag');
  t.same(
    tagsOf(flat({ 'tracelake.tags': ['x'], 'langfuse.trace.tags': ['y'], 'tag.tags': ['z'] }), c),
    ['x'],
    'ours first',
  );
  t.same(
    tagsOf(flat({ 'tracelake.tags': [' a ', 'a', '', 3, 'b'], 'tag.tags': ['z'] }), c),
    ['a', 'b'],
    'trimmed, deduplicated, strings only',
  );
  t.same(
    tagsOf(flat({ 'tracelake.tags': [], 'langfuse.trace.tags': '[not json', 'tag.tags': ['z'] }), c),
    ['z'],
    'empty and broken sources fall through',
  );
  t.same(
    tagsOf(flat({ 'tracelake.tags': '{"a":1}', 'tag.tags': 5 }), c),
    ['{"a":1}'],
    'text not starting with [ is one tag',
  );
  t.same(tagsOf(flat({ 'tag.tags': 5 }), c), []);
  t.same(tagsOf(flat({}), c), []);
});

t.test(
  'metadata key order: the metadata object first, then prefixed keys by precedence, each in attribute order',
  async (t) => {
    const split = splitNamespaces(
      flat({
        'tracelake.metadata.b': 'ours',
        'ai.telemetry.metadata.b': 'ai-sdk',
        'ai.telemetry.metadata.c': 'ai-sdk',
        'langfuse.trace.metadata.a': 'langfuse',
        'tracelake.metadata.d': 'ours',
        metadata: '{"z":"object","a":"object"}',
        'langfuse.observation.metadata.c': 'observation',
      }),
      none,
      { dropped: 0 },
    );
    t.equal(JSON.stringify(split.metadata), '{"z":"object","a":"langfuse","b":"ours","c":"observation","d":"ours"}');
  },
);

t.test('keys near the special prefixes, and keys outside ASCII, stay attributes', async (t) => {
  const o = {
    graph: 'g',
    'graph.nodes': 'g',
    'graph.node': 'g',
    meta: 'm',
    metadatas: 'm',
    'tracelake.metadata': 'm',
    'langfuse.trace.name': 'n',
    'ai.telemetry.functionId': 'f',
    'émoji.key': 'e',
    '': 'empty',
    'GRAPH.NODE.ID': 'upper',
  };
  const split = splitNamespaces(flat(o), none, { dropped: 0 });
  t.same(plain(split.attributes), o);
  t.same(plain(split.metadata), {});
  t.same(plain(split.graph), {});
});

t.test('keys to skip: any object that answers `has`', async (t) => {
  const split = splitNamespaces(
    flat({ a: 1, b: 2, 'graph.node.c': 3 }),
    { has: (key: string) => key !== 'a' },
    { dropped: 0 },
  );
  t.same(plain(split.attributes), { a: 1 });
  t.same(plain(split.graph), {});
});
