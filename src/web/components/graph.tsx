/**
 * The graph view of a trace whose spans carry `graph.node.*` (agent graphs: LangGraph and the like):
 * nodes in layers by their distance from a root, edges as lines, a node opens its span.
 */
import type { Graph } from '../api.js';

export function GraphView({
  graph,
  selected,
  onOpen,
}: {
  graph: Graph;
  selected: string | null;
  onOpen: (spanId: string) => void;
}) {
  const depth = new Map<string, number>();
  const incoming = new Set(graph.edges.map((e) => e.target));
  const queue = graph.nodes.filter((n) => !incoming.has(n.id)).map((n) => n.id);
  for (const id of queue) depth.set(id, 0);
  while (queue.length) {
    const id = queue.shift()!;
    for (const e of graph.edges) {
      if (e.source === id && !depth.has(e.target)) {
        depth.set(e.target, depth.get(id)! + 1);
        queue.push(e.target);
      }
    }
  }
  for (const n of graph.nodes) if (!depth.has(n.id)) depth.set(n.id, 0);
  const layers = new Map<number, string[]>();
  for (const n of graph.nodes) layers.set(depth.get(n.id)!, [...(layers.get(depth.get(n.id)!) ?? []), n.id]);
  const pos = new Map<string, { x: number; y: number }>();
  for (const [d, ids] of layers) for (const [i, id] of ids.entries()) pos.set(id, { x: 20 + i * 170, y: 20 + d * 80 });
  const width = 40 + Math.max(...[...layers.values()].map((l) => l.length)) * 170;
  const height = 40 + layers.size * 80;
  return (
    <svg class="graph" width={width} height={height} role="img" aria-label="Graph of the trace's nodes">
      {graph.edges.map((e) => {
        const a = pos.get(e.source);
        const b = pos.get(e.target);
        return a && b ? (
          <line key={`${e.source}-${e.target}`} x1={a.x + 70} y1={a.y + 36} x2={b.x + 70} y2={b.y} class="edge" />
        ) : null;
      })}
      {graph.nodes.map((n) => {
        const p = pos.get(n.id)!;
        return (
          // biome-ignore lint/a11y/noStaticElementInteractions: a pointer's shortcut; the Timeline tab's tree opens the same spans from the keyboard
          <g
            key={n.id}
            class={`node ${n.span_id === selected ? 'selected' : ''}`}
            transform={`translate(${p.x},${p.y})`}
            onClick={() => onOpen(n.span_id)}
            data-node={n.id}
          >
            <rect width="140" height="36" rx="6" />
            <text x="70" y="16" text-anchor="middle">
              {n.name}
            </text>
            <text x="70" y="30" text-anchor="middle" class="type">
              {n.type}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
