/**
 * The graph of a trace, from the reserved `graph.node.*` attributes (kept apart from metadata at
 * ingest). A span carrying any of them is a node: `graph.node.id` names it (default: the span id),
 * `graph.node.name` and `graph.node.type` describe it (default: span name and kind), and
 * `graph.node.parent_id` names the node it comes from; without one, the edge comes from the nearest
 * ancestor span that is itself a node. Other `graph.node.<key>` attributes ride along on the node.
 */

export interface GraphSpan {
  id: string;
  parent_id: string | null;
  name: string;
  span_kind: string;
  graph: Record<string, unknown>;
}

export interface GraphNode {
  id: string;
  span_id: string;
  name: string;
  type: string;
  attributes: Record<string, unknown>;
}

export interface GraphEdge {
  source: string;
  target: string;
}

export interface TraceGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

const OWN_KEYS = new Set(['id', 'name', 'type', 'parent_id']);

export function buildGraph(spans: readonly GraphSpan[]): TraceGraph {
  const byId = new Map(spans.map((s) => [s.id, s]));
  const nodeOfSpan = new Map<string, string>();
  const nodes: GraphNode[] = [];
  for (const s of spans) {
    if (Object.keys(s.graph).length === 0) continue;
    const id = text(s.graph.id) ?? s.id;
    nodeOfSpan.set(s.id, id);
    const attributes = Object.fromEntries(Object.entries(s.graph).filter(([k]) => !OWN_KEYS.has(k)));
    nodes.push({
      id,
      span_id: s.id,
      name: text(s.graph.name) ?? s.name,
      type: text(s.graph.type) ?? s.span_kind,
      attributes,
    });
  }
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const s of spans) {
    const target = nodeOfSpan.get(s.id);
    if (target === undefined) continue;
    const source = text(s.graph.parent_id) ?? nearestNodeAncestor(s, byId, nodeOfSpan);
    const key = `${source}→${target}`;
    if (source === undefined || source === target || seen.has(key)) continue;
    seen.add(key);
    edges.push({ source, target });
  }
  return { nodes, edges };
}

function nearestNodeAncestor(
  s: GraphSpan,
  byId: Map<string, GraphSpan>,
  nodeOfSpan: Map<string, string>,
): string | undefined {
  const visited = new Set<string>();
  let parent = s.parent_id;
  // Parent chains come from clients: guard against cycles.
  while (parent !== null && !visited.has(parent)) {
    visited.add(parent);
    const node = nodeOfSpan.get(parent);
    if (node !== undefined) return node;
    parent = byId.get(parent)?.parent_id ?? null;
  }
  return undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}
