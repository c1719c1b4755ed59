import t from 'tap';
import { buildGraph, type GraphSpan } from '../../src/core/graph.js';

const span = (id: string, parent_id: string | null, graph: Record<string, unknown> = {}, name = id): GraphSpan => ({
  id,
  parent_id,
  name,
  span_kind: 'function',
  graph,
});

t.test('nodes come from spans with graph.node.* attributes', async (t) => {
  const g = buildGraph([
    span('s1', null, { id: 'router', name: 'Router', type: 'agent', color: 'blue' }),
    span('s2', 's1'),
    span('s3', 's2', { name: 'Answer' }),
    span('s4', 's1', { id: 'tool', parent_id: 'router' }),
    span('s5', null, { id: 7 }),
  ]);
  t.same(g.nodes, [
    { id: 'router', span_id: 's1', name: 'Router', type: 'agent', attributes: { color: 'blue' } },
    { id: 's3', span_id: 's3', name: 'Answer', type: 'function', attributes: {} },
    { id: 'tool', span_id: 's4', name: 's4', type: 'function', attributes: {} },
    { id: '7', span_id: 's5', name: 's5', type: 'function', attributes: {} },
  ]);
  t.same(
    g.edges,
    [
      { source: 'router', target: 's3' },
      { source: 'router', target: 'tool' },
    ],
    'explicit parents, else the nearest node ancestor; roots have no edge',
  );
});

t.test('duplicates, self-edges and parent cycles', async (t) => {
  const g = buildGraph([
    span('a', 'b', { id: 'n' }),
    span('b', 'a'),
    span('c', null, { id: 'm', parent_id: 'm' }),
    span('d', null, { id: 'x', parent_id: 'y' }),
    span('e', null, { id: 'x', parent_id: 'y' }),
    span('f', null, { name: '' }),
    span('g', null, { id: true }),
    span('h', 'not-in-this-trace', { id: 'orphan' }),
  ]);
  t.same(g.edges, [{ source: 'y', target: 'x' }], 'no self-edge, one edge per pair, cycles end');
  t.equal(g.nodes.length, 7, 'a node whose parent span is missing has no edge');
  t.equal(g.nodes[4]!.name, 'f', 'an empty name falls back to the span name');
  t.equal(g.nodes[5]!.id, 'g', 'an id that is not text or a number falls back to the span id');
});

t.test('no graph attributes, no graph', async (t) => {
  t.same(buildGraph([span('a', null), span('b', 'a')]), { nodes: [], edges: [] });
});
